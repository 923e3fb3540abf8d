import type { AppContext } from '../../platform/context.ts';
import { actorOf, type Principal } from '../../platform/http/auth.ts';
import { cancelFailed, notCancelable } from '../orders/orders.errors.ts';
import { presentOrders, type OrderView } from '../orders/orders.presenter.ts';
import { logOrder, markCanceled } from '../orders/order-state.repo.ts';
import { findOrderById } from '../orders/orders.repo.ts';
import { loadVisibleOrder } from '../orders/orders.service.ts';
import { markPaymentsCanceled } from './payments.repo.ts';
import { voidTerminalPayment } from './terminal.ts';

// Canceling lives with payments: a pending order may carry a live card-present payment, which
// must be voided at the provider before the order can go.
/**
 * Pending to canceled, stock released. A door sale's live card-present payment is voided first;
 * when that cannot be proven, nothing changes (502 cancel_failed).
 */
export async function cancelOrder(ctx: AppContext, p: Principal, ref: string): Promise<OrderView> {
  const order = await loadVisibleOrder(ctx, p, ref);
  if (order.status !== 'pending') throw notCancelable(order.status);
  const terminal = await ctx.db
    .selectFrom('payments')
    .select(['id', 'provider_ref', 'account_id'])
    .where('order_id', '=', order.id)
    .where('rail', '=', 'terminal')
    .where('status', '=', 'pending')
    .execute();
  for (const payment of terminal) {
    // Outside any transaction: a provider call never holds database locks.
    const outcome = await voidTerminalPayment(ctx, payment).catch(() => 'unknown' as const);
    if (outcome !== 'voided') throw cancelFailed();
  }
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await trx
      .selectFrom('orders')
      .select('status')
      .where('id', '=', order.id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (locked.status !== 'pending') throw notCancelable(locked.status);
    const now = ctx.clock.now();
    await markPaymentsCanceled(
      trx,
      terminal.map((t) => t.id),
    );
    await markCanceled(trx, order.id, now, { releaseHold: true });
    await logOrder(trx, order, 'canceled', now, { by: actorOf(p) });
  });
  const [view] = await presentOrders(ctx.db, [(await findOrderById(ctx.db, p.accountId, order.id))!]);
  return view!;
}
