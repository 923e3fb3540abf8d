import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { enqueue } from '../../platform/jobs/outbox.ts';
import { issueInvoice } from './invoice-register.repo.ts';
import { logOrder, markPaid, type MintTarget } from './order-state.repo.ts';

export type FulfilTarget = MintTarget;

/**
 * Makes an order paid: status and paid_at, one ticket per ticket unit (each with an unguessable
 * QR token), an order_log entry, and the ticket mail queued in the outbox. Call it inside the
 * transaction that records why the order is paid (zero total, a payment that landed); the
 * caller has already checked the order may become paid. Stock stays taken: the hold becomes sold.
 * The invoice (where the account issues them) is numbered last, in this same transaction: its
 * counter's row lock is then held only from there to the commit.
 */
export async function fulfilOrder(trx: Db, ctx: AppContext, order: FulfilTarget, at: Date, reason: string): Promise<void> {
  await markPaid(trx, order, at);
  await logOrder(trx, order, 'paid', ctx.clock.now(), { reason });
  await enqueue(trx, { accountId: order.account_id, kind: 'mail.tickets', payload: { order_id: order.id } });
  await issueInvoice(trx, order.id, at);
}
