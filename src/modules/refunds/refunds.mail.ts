import type { AppContext } from '../../platform/context.ts';
import type { MailMessage } from '../../platform/mail/mailer.ts';
import { loadOrderDocument } from '../orders/order-document.repo.ts';
import { buyerMailHtml, buyerSender, mailLocale } from '../orders/orders.mail.ts';

/** The refund mail: how much went back, and that the tickets are no longer valid. */
export async function renderRefundMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const doc = await loadOrderDocument(ctx.db, { id: Number(payload.order_id) });
  const email = doc?.order.email;
  if (!doc || !email) return null;
  const refund = await ctx.db
    .selectFrom('refunds')
    .select(['amount_cents', 'currency', 'simulated', 'ticket_ids'])
    .where('id', '=', Number(payload.refund_id))
    .executeTakeFirst();
  if (!refund) return null;
  // a partial refund voids the tickets it named, or none; a refund of the whole balance all of them
  const voided = refund.ticket_ids?.length
    ? await ctx.db
        .selectFrom('tickets')
        .select('ref')
        .where('id', 'in', refund.ticket_ids.map(Number))
        .orderBy('position')
        .execute()
    : [];
  const { order } = doc;
  const loc = mailLocale(doc);
  const { m } = loc;
  const lines = [
    m.refundedAmount(loc.money(refund.amount_cents, refund.currency), order.ref, order.event_name),
    refund.simulated ? m.refundTest : m.refundTiming,
    doc.order.status === 'refunded'
      ? m.refundTicketsVoid
      : voided.length
        ? m.refundSomeTicketsVoid(voided.map((t) => t.ref).join(', '))
        : m.refundTicketsStayValid,
  ];
  return {
    to: email,
    fromName: buyerSender(doc),
    subject: m.refundSubject(order.ref, order.event_name),
    text: lines.join('\n\n') + '\n',
    html: await buyerMailHtml(ctx, order.account_id, loc, m.refundTitle, lines),
  };
}
