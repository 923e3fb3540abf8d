import type { AppContext } from '../../platform/context.ts';
import { logOrder, recordRefunded } from '../orders/order-state.repo.ts';
import { accountOf } from '../payments/payments.service.ts';
import { providerFor } from '../payments/providers.ts';

/**
 * Gives back one payment that landed on an order that could not be honoured (sold out meanwhile,
 * or paid a second time). Runs from the outbox, so a provider failure is retried with backoff;
 * the refund row is written before the provider call and its id is the provider idempotency key.
 */
export async function autoRefund(ctx: AppContext, payload: Record<string, unknown>): Promise<void> {
  const payment = await ctx.db
    .selectFrom('payments as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .select(['p.id', 'p.order_id', 'p.account_id', 'p.provider', 'p.provider_ref', 'p.amount_cents', 'p.currency', 'o.ref'])
    .where('p.order_id', '=', Number(payload.order_id))
    .where('p.provider_ref', '=', String(payload.payment_ref))
    .where('p.status', '=', 'succeeded')
    .executeTakeFirst();
  if (!payment?.provider_ref) return;
  let refund = await ctx.db
    .selectFrom('refunds')
    .select(['id', 'status'])
    .where('payment_id', '=', payment.id)
    .where('status', '!=', 'failed')
    .executeTakeFirst();
  if (refund?.status === 'succeeded') return;
  if (!refund) {
    refund = await ctx.db
      .insertInto('refunds')
      .values({
        account_id: payment.account_id,
        order_id: payment.order_id,
        payment_id: payment.id,
        amount_cents: payment.amount_cents,
        currency: payment.currency,
        status: 'pending',
        simulated: payment.provider === 'sandbox',
        created_at: ctx.clock.now(),
      })
      .returning(['id', 'status'])
      .executeTakeFirstOrThrow();
  }
  const account = await accountOf(ctx.db, payment.account_id);
  const provider = payment.provider === 'sandbox' ? providerFor({ ...account, payments_mode: 'sandbox' }) : providerFor(account);
  if (!provider) throw new Error('payments are not configured; the late payment cannot be returned yet');
  const out = await provider.refund({
    payment_ref: payment.provider_ref,
    amount_cents: payment.amount_cents,
    idempotencyKey: `admit-refund-${refund.id}`,
  });
  if (out.status === 'failed') throw new Error('provider declined the automatic refund');
  await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    await trx
      .updateTable('refunds')
      .set({ status: 'succeeded', provider_ref: out.ref, completed_at: now })
      .where('id', '=', refund.id)
      .execute();
    await recordRefunded(trx, payment.order_id, payment.amount_cents, now, { endsOrder: false });
    await logOrder(trx, { id: payment.order_id, account_id: payment.account_id }, 'late_payment_refunded', now, {
      amount_cents: payment.amount_cents,
      reason: payload.reason,
    });
  });
}
