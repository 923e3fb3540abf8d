import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/errors.ts';
import { enqueue } from '../../platform/jobs/outbox.ts';
import { orderNotFound } from './orders.errors.ts';
import { logOrder } from './order-state.repo.ts';

export interface ResendResult {
  ref: string;
  sent: 'tickets' | 'pay_link';
}

/**
 * Sends the buyer's mail again through the outbox (contract section 6): the tickets of a paid
 * order, the pay link of a pending one. Takes the account, not a token, so the console resends
 * through here too. An order with no email, or canceled or refunded, has nothing to resend.
 */
export async function resendOrderMail(
  ctx: AppContext,
  accountId: number,
  ref: string,
  visible: (eventSlug: string) => boolean = () => true,
  by = 'API',
): Promise<ResendResult> {
  return ctx.db.transaction().execute(async (trx) => {
    const order = await trx
      .selectFrom('orders as o')
      .innerJoin('events as e', 'e.id', 'o.event_id')
      .select(['o.id', 'o.ref', 'o.status', 'o.email', 'o.expires_at', 'e.slug as event_slug'])
      .where('o.account_id', '=', accountId)
      .where('o.ref', '=', ref)
      .executeTakeFirst();
    if (!order || !visible(order.event_slug)) throw orderNotFound(ref);
    if (order.status !== 'paid' && order.status !== 'pending') {
      throw new AppError('unprocessable', 'not_resendable', `Order ${ref} is ${order.status}: there is nothing to send`);
    }
    if (!order.email) throw new AppError('unprocessable', 'not_resendable', `Order ${ref} has no email address`);
    if (order.status === 'pending' && order.expires_at && new Date(order.expires_at) <= ctx.clock.now()) {
      throw new AppError('unprocessable', 'not_resendable', `The hold of order ${ref} has ended: its pay link no longer works`);
    }
    const kind = order.status === 'paid' ? 'mail.tickets' : 'mail.pay_link';
    await enqueue(trx, { accountId, kind, payload: { order_id: order.id, resend: true } });
    await logOrder(trx, { account_id: accountId, id: order.id }, 'resent', ctx.clock.now(), {
      by,
      sent: order.status === 'paid' ? 'tickets' : 'pay_link',
    });
    return { ref: order.ref, sent: order.status === 'paid' ? 'tickets' : 'pay_link' };
  });
}
