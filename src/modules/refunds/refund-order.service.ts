import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError } from '../../platform/errors.ts';
import { enqueue } from '../../platform/jobs/outbox.ts';
import type { Job } from '../../platform/jobs/jobs.ts';
import { logOrder, recordPartRefunded, recordRefunded } from '../orders/order-state.repo.ts';
import { issueCreditNote } from '../orders/invoice-register.repo.ts';
import { isUniqueViolation } from '../../platform/db/pg-errors.ts';
import { accountOf } from '../payments/payments.service.ts';
import { paymentsUnavailable, providerFor, ProviderError, type PaymentProvider } from '../payments/providers.ts';
import { formatMoney } from '../../platform/money.ts';
import { ticketsWithPrices } from './refund-scope.repo.ts';

export type RefundResult = { refunded_cents: number } | { already: true };

/** What to refund. Nothing given refunds the whole balance (the API's refund). */
export interface RefundAsk {
  /** in minor units; by default the chosen tickets' price (at most the balance), or the whole balance */
  amount_cents?: number;
  /** tickets (by ref) that become void and give their places back */
  ticket_refs?: string[];
  /** why, for the order's activity */
  reason?: string;
  /** a one-time key from the form: the same request sent twice refunds once */
  key?: string;
}

const notRefundable = (why: string) => new AppError('unprocessable', 'not_refundable', why);
const noPaymentIntent = () =>
  new AppError(
    'unprocessable',
    'no_payment_intent',
    'This order has no recorded payment to refund against (free, complimentary, or the reference was never stored)',
  );
const refundTooMuch = (left: string) =>
  new AppError('unprocessable', 'refund_exceeds_balance', `Only ${left} is left to refund`, {
    fields: { amount: [`Only ${left} is left to refund`] },
  });
const badTickets = (why: string) => new AppError('unprocessable', 'not_refundable', why, { fields: { tickets: [why] } });
const refundFailed = (why: string) =>
  new AppError('upstream', 'refund_failed', `The payment provider refused or failed the refund: ${why}`);

type Intent =
  | { kind: 'already' }
  | { kind: 'wait' }
  | { kind: 'go'; refundId: number; amount: number; paymentRef: string; provider: PaymentProvider };

interface RefundTarget {
  id: number;
  account_id: number;
  ref: string;
  /** who asked, for the order's activity log */
  by?: string;
}

/** The payment a refund goes back through: a succeeded payment that took money and has a reference. */
async function refundablePayment(db: Db, orderId: number) {
  return db
    .selectFrom('payments')
    .select(['id', 'provider', 'provider_ref', 'amount_cents', 'currency'])
    .where('order_id', '=', orderId)
    .where('status', '=', 'succeeded')
    .where('amount_cents', '>', 0)
    .where('provider_ref', 'is not', null)
    .orderBy('id')
    .executeTakeFirst();
}

/**
 * Refunds the whole remaining balance (or the part `ask` names) through the order's own rail, checking in the spec's order:
 * refunded (200 already) → no recorded payment (422 no_payment_intent) → not paid or nothing left
 * (422 not_refundable) → payments not configured (503) → provider (502 on failure).
 *
 * The provider is never called inside a transaction. A pending refund row is committed first
 * (one per order, by a unique index: the lock against refunding twice), then the provider is
 * called with an idempotency key derived from that row, then one transaction records the
 * outcome. A crash in between leaves the pending row for the reconciliation job.
 */
export async function refundOrder(ctx: AppContext, order: RefundTarget, ask: RefundAsk = {}): Promise<RefundResult> {
  for (let waited = 0; ; waited++) {
    const intent: Intent = await ctx.db
      .transaction()
      .execute(async (trx): Promise<Intent> => {
        const o = await trx
          .selectFrom('orders')
          .select(['status', 'total_cents', 'refunded_cents', 'currency'])
          .where('id', '=', order.id)
          .forUpdate()
          .executeTakeFirstOrThrow();
        if (o.status === 'refunded') return { kind: 'already' } as Intent;
        if (ask.key) {
          const same = await trx
            .selectFrom('refunds')
            .select('status')
            .where('order_id', '=', order.id)
            .where('request_key', '=', ask.key)
            .where('status', '<>', 'failed')
            .executeTakeFirst();
          if (same) return { kind: same.status === 'pending' ? 'wait' : 'already' } as Intent;
        }
        const inFlight = await trx
          .selectFrom('refunds as r')
          .leftJoin('payments as p', 'p.id', 'r.payment_id')
          .select(['r.id', 'r.error', 'r.amount_cents', 'p.provider', 'p.provider_ref'])
          .where('r.order_id', '=', order.id)
          .where('r.status', '=', 'pending')
          .executeTakeFirst();
        if (inFlight?.error && inFlight.provider_ref) {
          // An earlier attempt ended with an unknown outcome: finish it with the same idempotency key.
          const account = await accountOf(trx, order.account_id);
          const provider =
            inFlight.provider === 'sandbox' ? providerFor({ ...account, payments_mode: 'sandbox' }) : providerFor(account);
          if (!provider) throw paymentsUnavailable();
          return {
            kind: 'go',
            refundId: inFlight.id,
            amount: inFlight.amount_cents,
            paymentRef: inFlight.provider_ref,
            provider,
          } as Intent;
        }
        if (inFlight) return { kind: 'wait' } as Intent;
        if (o.status !== 'paid') throw notRefundable(`Only a paid order can be refunded; this one is ${o.status}`);
        const payment = await refundablePayment(trx, order.id);
        if (!payment) throw noPaymentIntent();
        const balance = o.total_cents - o.refunded_cents;
        if (balance <= 0) throw notRefundable('The balance of this order has already been returned in full');
        const part = await partOf(trx, order.id, balance, o.currency, ask);
        const account = await accountOf(trx, order.account_id);
        const provider =
          payment.provider === 'sandbox'
            ? providerFor({ ...account, payments_mode: account.payments_mode === 'none' ? 'none' : 'sandbox' })
            : providerFor(account);
        if (!provider) throw paymentsUnavailable();
        const row = await trx
          .insertInto('refunds')
          .values({
            account_id: order.account_id,
            order_id: order.id,
            payment_id: payment.id,
            amount_cents: part.amount,
            currency: o.currency,
            status: 'pending',
            simulated: provider.simulated,
            created_at: ctx.clock.now(),
            reason: ask.reason?.trim() || null,
            ticket_ids: part.ticketIds,
            request_key: ask.key ?? null,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return { kind: 'go', refundId: row.id, amount: part.amount, paymentRef: payment.provider_ref!, provider } as Intent;
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, ['refunds_one_pending', 'refunds_request_key'])) return { kind: 'wait' } as Intent;
        throw err;
      });
    if (intent.kind === 'already') return { already: true };
    if (intent.kind === 'wait') {
      // Another request is refunding this order right now: wait for its outcome, then answer as it did.
      if (waited > 150) throw new AppError('conflict', 'refund_in_progress', 'A refund of this order is already in progress');
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    return {
      refunded_cents: await completeRefund(ctx, order, intent.refundId, intent.amount, intent.paymentRef, intent.provider),
    };
  }
}

/**
 * The part of the balance a request names: the chosen tickets (valid ones of this order) and the
 * amount, by default their price as sold, at most what is left. Refused before anything is written.
 */
async function partOf(
  trx: Db,
  orderId: number,
  balance: number,
  currency: string,
  ask: RefundAsk,
): Promise<{ amount: number; ticketIds: number[] | null }> {
  const refs = [...new Set(ask.ticket_refs ?? [])];
  let ticketIds: number[] | null = null;
  let price = balance;
  if (refs.length) {
    const all = await ticketsWithPrices(trx, orderId);
    const chosen = all.filter((t) => refs.includes(t.ref) && t.status === 'valid');
    if (chosen.length !== refs.length) throw badTickets('Choose tickets of this order that are still valid');
    ticketIds = chosen.map((t) => t.id);
    price = Math.min(
      balance,
      chosen.reduce((sum, t) => sum + t.price_cents, 0),
    );
  }
  const amount = ask.amount_cents ?? price;
  if (!Number.isSafeInteger(amount) || amount < 1)
    throw new AppError('unprocessable', 'invalid_amount', 'The amount must be more than zero', {
      fields: { amount: ['Enter an amount above zero'] },
    });
  if (amount > balance) throw refundTooMuch(formatMoney(balance, currency));
  return { amount, ticketIds };
}

/** Calls the provider for a committed pending refund and records the outcome. Safe to repeat. */
export async function completeRefund(
  ctx: AppContext,
  order: RefundTarget,
  refundId: number,
  amount: number,
  paymentRef: string,
  provider: PaymentProvider,
): Promise<number> {
  let outcome: { ref: string; status: 'succeeded' | 'pending' | 'failed' };
  try {
    outcome = await provider.refund({
      payment_ref: paymentRef,
      amount_cents: amount,
      idempotencyKey: `admit-refund-${refundId}`,
    });
  } catch (err) {
    const message = err instanceof ProviderError ? err.message : 'provider unreachable';
    if (err instanceof ProviderError && err.definite) {
      await ctx.db
        .updateTable('refunds')
        .set({ status: 'failed', error: message, completed_at: ctx.clock.now() })
        .where('id', '=', refundId)
        .where('status', '=', 'pending')
        .execute();
    } else {
      // Unknown outcome (timeout, dropped connection, 5xx): the provider may have refunded. The row
      // stays pending, blocking a second refund of this order, and the reconciler retries with the
      // same idempotency key, so the provider answers with the refund it made, if it made one.
      await ctx.db.updateTable('refunds').set({ error: message }).where('id', '=', refundId).execute();
    }
    throw refundFailed(message);
  }
  if (outcome.status === 'failed') {
    await ctx.db
      .updateTable('refunds')
      .set({ status: 'failed', provider_ref: outcome.ref, error: 'provider declined', completed_at: ctx.clock.now() })
      .where('id', '=', refundId)
      .execute();
    throw refundFailed('declined');
  }
  await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    const done = await trx
      .updateTable('refunds')
      .set({ status: 'succeeded', provider_ref: outcome.ref, completed_at: now })
      .where('id', '=', refundId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (done.numUpdatedRows === 0n) return; // recorded already (reconciliation got there first)
    const r = await trx
      .selectFrom('refunds')
      .select(['reason', 'ticket_ids', 'request_key'])
      .where('id', '=', refundId)
      .executeTakeFirstOrThrow();
    const o = await trx
      .selectFrom('orders')
      .select(['total_cents', 'refunded_cents'])
      .where('id', '=', order.id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    // Nothing left to return: the order is refunded and all its tickets go, whatever was chosen.
    const whole = o.refunded_cents + amount >= o.total_cents;
    let voided: string[] | undefined;
    if (whole) await recordRefunded(trx, order.id, amount, now, { endsOrder: true });
    else voided = await recordPartRefunded(trx, order.id, amount, (r.ticket_ids ?? []).map(Number));
    // the refund corrects the order's invoice by a credit note (none when it has no invoice)
    await issueCreditNote(trx, order.id, whole ? 'rest' : amount, now);
    await logOrder(trx, order, 'refunded', now, {
      amount_cents: amount,
      refund_id: refundId,
      simulated: provider.simulated,
      by: order.by ?? 'reconciliation',
      ...(whole ? {} : { partial: true, tickets: voided }),
      ...(r.reason ? { reason: r.reason } : {}),
    });
    // a cancellation on the order page (self-cancel.service) is also a change of the order's tickets
    if (r.request_key?.startsWith('self-cancel:'))
      await logOrder(trx, order, 'tickets_canceled', now, {
        tickets: voided ?? 'all',
        refunded_cents: amount,
        by: order.by ?? 'reconciliation',
      });
    await enqueue(trx, {
      accountId: order.account_id,
      kind: 'mail.refund',
      payload: { order_id: order.id, refund_id: refundId },
    });
  });
  return amount;
}

/**
 * Background job: a refund left pending for over a minute (the process died between the
 * provider call and the write) is completed by asking the provider again with the same
 * idempotency key: the provider answers with the refund it already made, never a second one.
 */
export const refundReconciler: Job = {
  name: 'refund-reconciler',
  every: 60_000,
  async run(ctx) {
    const stale = await ctx.db
      .selectFrom('refunds as r')
      .innerJoin('orders as o', 'o.id', 'r.order_id')
      .innerJoin('payments as p', 'p.id', 'r.payment_id')
      .select(['r.id', 'r.amount_cents', 'r.account_id', 'o.id as order_id', 'o.ref', 'p.provider_ref', 'p.provider'])
      .where('r.status', '=', 'pending')
      .where('r.created_at', '<', new Date(ctx.clock.now().getTime() - 60_000))
      .limit(50)
      .execute();
    for (const r of stale) {
      const account = await accountOf(ctx.db, r.account_id);
      const provider = r.provider === 'sandbox' ? providerFor({ ...account, payments_mode: 'sandbox' }) : providerFor(account);
      if (!provider || !r.provider_ref) continue;
      await completeRefund(
        ctx,
        { id: r.order_id, account_id: r.account_id, ref: r.ref },
        r.id,
        r.amount_cents,
        r.provider_ref,
        provider,
      ).catch((err: unknown) => ctx.log.warn({ err, refund: r.id }, 'refund reconciliation failed'));
    }
    return stale.length;
  },
};
