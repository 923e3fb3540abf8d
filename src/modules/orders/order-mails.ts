import type { AppContext } from '../../platform/context.ts';
import { escapeHtml } from '../../platform/http/html.ts';
import type { MailMessage } from '../../platform/mail/mailer.ts';
import { formatMoney } from '../../platform/money.ts';
import { formatInZone, loadOrderDocument, type OrderDocument } from './order-document.ts';

function orderPageUrl(ctx: AppContext, doc: OrderDocument): string {
  return `${ctx.config.baseUrl}/o/${doc.order.access_secret}`;
}

function mailHtml(title: string, paragraphs: string[], link?: { href: string; text: string }): string {
  return `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#1b1b1f;max-width:36rem;margin:auto">
<h1 style="font-size:1.3rem">${escapeHtml(title)}</h1>
${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${link ? `<p><a href="${escapeHtml(link.href)}" style="color:#2d4fd6">${escapeHtml(link.text)}</a></p>` : ''}
</body></html>`;
}

/** The ticket mail: the order page link (where the QR codes are) and the tickets. */
export async function renderTicketMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const doc = await loadOrderDocument(ctx.db, { id: Number(payload.order_id) });
  if (!doc?.order.email || doc.order.status !== 'paid') return null;
  const { order } = doc;
  const email = doc.order.email;
  const url = orderPageUrl(ctx, doc);
  const when = formatInZone(order.event_starts_at, order.timezone);
  const tickets = doc.tickets.map((t) => `${t.ref}: ${t.type_name}${t.attendee_name ? ` (${t.attendee_name})` : ''}`);
  const lines = [
    `Thank you for your order ${order.ref} for ${order.event_name}, ${when}.`,
    `Total paid: ${formatMoney(order.total_cents, order.currency)}.`,
    ...(tickets.length ? [`Your tickets: ${tickets.join('; ')}.`] : []),
    'Show the QR codes on your order page at the door. Keep this link private: whoever has it holds the order.',
  ];
  return {
    to: email,
    subject: `Your tickets for ${order.event_name} (${order.ref})`,
    text: `${lines.join('\n\n')}\n\nYour order page: ${url}\n`,
    html: mailHtml(`Your tickets for ${order.event_name}`, lines, { href: url, text: 'Open your tickets' }),
  };
}

/** A payment that landed after the hold ended: reinstated, or being refunded. */
export async function renderLatePaymentMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const doc = await loadOrderDocument(ctx.db, { id: Number(payload.order_id) });
  if (!doc?.order.email) return null;
  const { order } = doc;
  const email = doc.order.email;
  const reinstated = payload.outcome === 'reinstated';
  const lines = reinstated
    ? [
        `Your payment for order ${order.ref} arrived after the reservation had ended, but the tickets were still available: your order is confirmed.`,
      ]
    : [
        `Your payment for order ${order.ref} arrived after the reservation had ended and the tickets are no longer available. The full amount is being refunded to you.`,
      ];
  return {
    to: email,
    subject: reinstated ? `Order ${order.ref} confirmed` : `Order ${order.ref}: your payment is being refunded`,
    text: `${lines.join('\n\n')}\n\nYour order page: ${orderPageUrl(ctx, doc)}\n`,
    html: mailHtml(reinstated ? 'Your order is confirmed' : 'Your payment is being refunded', lines, {
      href: orderPageUrl(ctx, doc),
      text: 'Open your order',
    }),
  };
}

/** The pay link of a pending order (sent again on request): where to pay, and until when. */
export async function renderPayLinkMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const doc = await loadOrderDocument(ctx.db, { id: Number(payload.order_id) });
  if (!doc?.order.email || doc.order.status !== 'pending') return null;
  const { order } = doc;
  const url = `${ctx.config.baseUrl}/pay/${order.access_secret}`;
  const lines = [
    `Your order ${order.ref} for ${order.event_name}, ${formatInZone(order.event_starts_at, order.timezone)}, is reserved and waits for payment.`,
    `Amount due: ${formatMoney(order.total_cents, order.currency)}.`,
    ...(order.expires_at ? [`The reservation holds until ${formatInZone(order.expires_at, order.timezone)}.`] : []),
    'Keep this link private: whoever has it can pay for and hold the order.',
  ];
  return {
    to: doc.order.email,
    subject: `Complete your order for ${order.event_name} (${order.ref})`,
    text: `${lines.join('\n\n')}\n\nPay here: ${url}\n`,
    html: mailHtml(`Complete your order for ${order.event_name}`, lines, { href: url, text: 'Pay now' }),
  };
}
