import type { AppContext } from '../../platform/context.ts';
import { escapeHtml } from '../../platform/http/html.ts';
import type { OnceGuard } from '../../platform/jobs/outbox-dispatcher.ts';
import type { MailMessage } from '../../platform/mail/mailer.ts';
import { descriptionText, renderDescription } from '../events/description.ts';
import { loadOrderDocument } from '../orders/order-document.repo.ts';
import { buyerMailHtml, buyerSender, mailLocale } from '../orders/orders.mail.ts';
import type { EventRow } from '../events/events.repo.ts';
import { deliveryForMail, deliveryStatus, finishDelivery, orderRefAndEmail } from './messages.repo.ts';
import { checkMessage, previewRecipients, type MessageInput } from './messages.service.ts';

/**
 * A message from the organiser as one order's buyer gets it: the subject as the title, the
 * Markdown body through the buyer pages' sanitised renderer (and as plain text for the text
 * part), then which order it is about and the link to it, in the account's mail frame.
 */
export async function renderMessage(
  ctx: AppContext,
  msg: { subject: string; body: string; account_id: number },
  orderId: number,
): Promise<MailMessage | null> {
  const doc = await loadOrderDocument(ctx.db, { id: orderId });
  const to = doc?.order.email;
  if (!doc || !to) return null;
  const { order } = doc;
  const loc = mailLocale(doc);
  const { m } = loc;
  const url = `${ctx.config.baseUrl}/o/${order.access_secret}`;
  const about = m.messageAbout(order.ref, order.event_name, loc.dateTime(order.event_starts_at, order.timezone));
  const bodyHtml = renderDescription(msg.body)?.value ?? '';
  const extra =
    `<div>${bodyHtml}</div>` +
    `<p style="margin:20px 0 0;font-size:13px;line-height:19px;color:#5f5f66">${escapeHtml(about)} ` +
    `<a href="${escapeHtml(url)}">${escapeHtml(m.messageOrderLink)}</a></p>`;
  return {
    to,
    fromName: buyerSender(doc),
    subject: msg.subject,
    text: `${descriptionText(msg.body) ?? ''}\n\n-- \n${about}\n${m.messageOrderLink}: ${url}\n`,
    html: await buyerMailHtml(ctx, msg.account_id, loc, msg.subject, [], undefined, extra),
  };
}

const keyOf = (payload: Record<string, unknown>) => ({
  messageId: Number(payload.message_id),
  orderId: Number(payload.order_id),
});

/** The outbox's `mail.message`: one message to one order. */
export async function renderMessageMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const { messageId, orderId } = keyOf(payload);
  const msg = await deliveryForMail(ctx.db, messageId, orderId);
  return msg ? renderMessage(ctx, msg, orderId) : null;
}

/**
 * At most one mail per message and order, whatever the outbox repeats: a delivery that is no
 * longer queued (sent, failed, or gone with its order) sends nothing; a sent one is counted and
 * logged on the order once.
 */
export const messageMailOnce: OnceGuard = {
  async done(ctx, payload) {
    const { messageId, orderId } = keyOf(payload);
    return (await deliveryStatus(ctx.db, messageId, orderId)) !== 'queued';
  },
  async sent(ctx, payload) {
    await finishDelivery(ctx.db, keyOf(payload), { status: 'sent', at: ctx.clock.now() });
  },
  async failed(ctx, payload, error) {
    await finishDelivery(ctx.db, keyOf(payload), { status: 'failed', at: ctx.clock.now(), error: error.slice(0, 500) });
  },
};

/**
 * A draft as its first recipient would get it (the console's preview): checked like a message
 * to be sent (the same errors), the number of orders it would reach, and the mail rendered with
 * the first matching order's data; null when no order matches.
 */
export async function previewMessageMail(ctx: AppContext, event: EventRow, input: MessageInput) {
  const { subject, body, filter } = await checkMessage(ctx, event, input);
  const { recipients, firstOrderId } = await previewRecipients(ctx, event, filter);
  const order = firstOrderId === null ? null : await orderRefAndEmail(ctx.db, firstOrderId);
  const mail =
    firstOrderId === null ? null : await renderMessage(ctx, { subject, body, account_id: event.account_id }, firstOrderId);
  return { recipients, order, mail };
}
