import type { Selectable } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import type { AccountsTable, Rail } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { enqueue } from '../../platform/jobs/outbox.ts';
import type { Job } from '../../platform/jobs/jobs.ts';
import { applyBp } from '../../platform/money.ts';
import { fulfilOrder } from '../orders/fulfil-order.service.ts';
import { logOrder, markCanceled } from '../orders/order-state.repo.ts';
import { releaseStock, tryReserve, unitsByInventory } from '../inventory/stock.repo.ts';
import { retakeSeats } from '../inventory/seats.repo.ts';
import { completePayment, fillFee, insertPayment, setProviderRef } from './payments.repo.ts';
import { providerFor, type PaymentProvider } from './providers.ts';

type Account = Selectable<AccountsTable>;

/** The platform's fee on one payment: `platform` accounts only; own-key accounts pay none. */
export function platformFee(
  account: Pick<Account, 'payments_mode' | 'platform_fee_bp' | 'platform_fee_fixed_cents'>,
  amount: number,
): number {
  if (account.payments_mode !== 'platform' || amount === 0) return 0;
  return applyBp(amount, account.platform_fee_bp) + account.platform_fee_fixed_cents;
}

export async function accountOf(db: Db, accountId: number): Promise<Account> {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
}

export type PaymentOutcome = 'paid' | 'already_paid' | 'reinstated' | 'refund_due';

interface PayableOrder {
  id: number;
  account_id: number;
  event_id: number;
  ref: string;
  currency: string;
  total_cents: number;
}

/**
 * Records money that landed for an order, in one transaction with the order's change. A pending
 * order with a live hold becomes paid. A payment that lands on an order canceled or expired
 * meanwhile is never lost: the order is reinstated when its stock can be taken again, otherwise
 * the payment is kept on the ledger and an automatic refund is queued.
 */
export async function recordPayment(
  ctx: AppContext,
  order: PayableOrder,
  p: { rail: Rail; provider: PaymentProvider; ref: string; amount_cents: number; paymentId?: number },
): Promise<PaymentOutcome> {
  const account = await accountOf(ctx.db, order.account_id);
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    const o = await trx
      .selectFrom('orders')
      .select(['status', 'expires_at'])
      .where('id', '=', order.id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const dup = await trx
      .selectFrom('payments')
      .select('id')
      .where('order_id', '=', order.id)
      .where('provider_ref', '=', p.ref)
      .where('status', '=', 'succeeded')
      .executeTakeFirst();
    if (dup) return 'already_paid';
    const values = {
      account_id: order.account_id,
      order_id: order.id,
      rail: p.rail,
      provider: p.provider.name,
      status: 'succeeded' as const,
      amount_cents: p.amount_cents,
      currency: order.currency,
      provider_ref: p.ref,
      fee_cents: p.provider.simulated ? 0 : null,
      fee_currency: order.currency,
      platform_fee_cents: platformFee(account, p.amount_cents),
      simulated: p.provider.simulated,
      succeeded_at: now,
    };
    if (p.paymentId) await completePayment(trx, p.paymentId, values);
    else await insertPayment(trx, { ...values, created_at: now });

    const live = o.status === 'pending' && (!o.expires_at || new Date(o.expires_at).getTime() > now.getTime());
    if (live) {
      await fulfilOrder(trx, ctx, order, now, `payment ${p.ref}`);
      return 'paid';
    }
    if (o.status === 'paid' || o.status === 'refunded') {
      // Paid twice (two payment sessions): keep the money on the ledger and give it back.
      await queueLateRefund(trx, order, now, p.ref, 'second payment');
      return 'refund_due';
    }
    // Canceled, or pending past its hold: take the stock again if it is still there.
    if (o.status === 'pending') await releaseStock(trx, [order.id]);
    const lines = await trx
      .selectFrom('order_lines')
      .select(['inventory_id', 'quantity'])
      .where('order_id', '=', order.id)
      .execute();
    let failed = await tryReserve(trx, unitsByInventory(lines));
    // a seated order comes back only with its own seats (taken again under the rows just locked)
    if (failed === null && !(await retakeSeats(trx, order.id))) {
      await releaseStock(trx, [order.id]);
      failed = -1;
    }
    if (failed === null) {
      await fulfilOrder(trx, ctx, order, now, `late payment ${p.ref}: reinstated`);
      await logOrder(trx, order, 'reinstated', now, { payment: p.ref });
      await enqueue(trx, {
        accountId: order.account_id,
        kind: 'mail.late_payment',
        payload: { order_id: order.id, outcome: 'reinstated' },
      });
      return 'reinstated';
    }
    // its hold was released above, before the stock was tried again
    if (o.status === 'pending') await markCanceled(trx, order.id, now, { releaseHold: false });
    await queueLateRefund(trx, order, now, p.ref, 'sold out before the payment landed');
    return 'refund_due';
  });
}

async function queueLateRefund(trx: Db, order: PayableOrder, now: Date, paymentRef: string, reason: string): Promise<void> {
  await logOrder(trx, order, 'late_payment_refund_due', now, { reason, payment: paymentRef });
  await enqueue(trx, {
    accountId: order.account_id,
    kind: 'payment.auto_refund',
    payload: { order_id: order.id, payment_ref: paymentRef, reason },
  });
  await enqueue(trx, {
    accountId: order.account_id,
    kind: 'mail.late_payment',
    payload: { order_id: order.id, outcome: 'refunded' },
  });
}

/**
 * Opens (or reuses) a card PaymentIntent for a pending order: the pending payment row is
 * committed before the provider is called, and the provider's reference recorded after.
 */
export async function openCardPayment(
  ctx: AppContext,
  order: PayableOrder,
  provider: PaymentProvider,
): Promise<{ ref: string; client_secret?: string }> {
  const existing = await ctx.db
    .selectFrom('payments')
    .select(['id', 'provider_ref'])
    .where('order_id', '=', order.id)
    .where('status', '=', 'pending')
    .where('rail', '=', 'card')
    .executeTakeFirst();
  if (existing?.provider_ref) {
    const pi = await provider.retrievePayment(existing.provider_ref);
    return { ref: pi.ref, ...(pi.client_secret ? { client_secret: pi.client_secret } : {}) };
  }
  const row = existing ?? {
    id: await insertPayment(ctx.db, {
      account_id: order.account_id,
      order_id: order.id,
      rail: 'card',
      provider: provider.name,
      status: 'pending',
      amount_cents: order.total_cents,
      currency: order.currency,
      created_at: ctx.clock.now(),
    }),
  };
  const pi = await provider.createPayment({
    amount_cents: order.total_cents,
    currency: order.currency,
    order_ref: order.ref,
    idempotencyKey: `admit-payment-${row.id}`,
  });
  await setProviderRef(ctx.db, row.id, pi.ref);
  return { ref: pi.ref, ...(pi.client_secret ? { client_secret: pi.client_secret } : {}) };
}

/** After the browser confirmed a card payment: ask the provider, record it if it succeeded. */
export async function confirmCardPayment(ctx: AppContext, order: PayableOrder): Promise<PaymentOutcome | 'pending'> {
  const account = await accountOf(ctx.db, order.account_id);
  const provider = providerFor(account);
  if (!provider) throw new AppError('unavailable', 'payments_unavailable', 'Payments are not configured for this account');
  const pending = await ctx.db
    .selectFrom('payments')
    .select(['id', 'provider_ref', 'amount_cents'])
    .where('order_id', '=', order.id)
    .where('status', '=', 'pending')
    .where('provider_ref', 'is not', null)
    .execute();
  for (const p of pending) {
    const pi = await provider.retrievePayment(p.provider_ref!);
    if (pi.status === 'succeeded') {
      return recordPayment(ctx, order, {
        rail: 'card',
        provider,
        ref: pi.ref,
        amount_cents: pi.amount_cents || p.amount_cents,
        paymentId: p.id,
      });
    }
  }
  return 'pending';
}

/** Background job: fills in the provider's fee once the processor has established it. */
export const feeFiller: Job = {
  name: 'payment-fees',
  every: 60_000,
  async run(ctx) {
    const rows = await ctx.db
      .selectFrom('payments as p')
      .innerJoin('accounts as a', 'a.id', 'p.account_id')
      .select(['p.id', 'p.provider_ref', 'a.payments_mode', 'a.payments_provider', 'a.payments_api_key', 'a.payments_api_base'])
      .where('p.provider', '=', 'stripe')
      .where('p.status', '=', 'succeeded')
      .where('p.fee_cents', 'is', null)
      .where('p.provider_ref', 'is not', null)
      .orderBy('p.id')
      .limit(100)
      .execute();
    let filled = 0;
    for (const r of rows) {
      const provider = providerFor(r);
      if (!provider || provider.name !== 'stripe') continue;
      const fee = await provider.paymentFee(r.provider_ref!).catch(() => null);
      if (!fee) continue;
      await fillFee(ctx.db, r.id, fee);
      filled++;
    }
    return filled;
  },
};
