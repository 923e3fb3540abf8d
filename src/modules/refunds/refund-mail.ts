import type { AppContext } from '../../platform/context.ts';
import type { MailMessage } from '../../platform/mail/mailer.ts';
import { formatMoney } from '../../platform/money.ts';
import { loadOrderDocument } from '../orders/order-document.ts';
import { buyerMailHtml } from '../orders/order-mails.ts';

/** The refund mail: how much went back, and that the tickets are no longer valid. */
export async function renderRefundMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const doc = await loadOrderDocument(ctx.db, { id: Number(payload.order_id) });
  const email = doc?.order.email;
  if (!doc || !email) return null;
  const refund = await ctx.db
    .selectFrom('refunds')
    .select(['amount_cents', 'currency', 'simulated'])
    .where('id', '=', Number(payload.refund_id))
    .executeTakeFirst();
  if (!refund) return null;
  const { order } = doc;
  const lines = [
    `We have refunded ${formatMoney(refund.amount_cents, refund.currency)} for order ${order.ref} (${order.event_name}).`,
    refund.simulated
      ? 'This was a test (sandbox) order: no real money moved.'
      : 'It reaches your account in the time your bank takes, usually 5 to 10 days.',
    'The tickets of this order are no longer valid.',
  ];
  return {
    to: email,
    fromName: `${order.event_name} (${order.account_name})`,
    subject: `Refund for order ${order.ref} (${order.event_name})`,
    text: lines.join('\n\n') + '\n',
    html: await buyerMailHtml(ctx, order.account_id, 'Your refund', lines),
  };
}
