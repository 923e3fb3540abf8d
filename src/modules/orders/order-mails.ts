import type { AppContext } from '../../platform/context.ts';
import { escapeHtml } from '../../platform/http/html.ts';
import QRCode from 'qrcode';
import type { MailAttachment, MailMessage } from '../../platform/mail/mailer.ts';
import { calendarFileName, eventCalendar } from '../events/calendar.ts';
import { ticketsPdf } from './ticket-pdf.ts';
import { loadMailLayout } from '../themes/page-theme.ts';
import { formatMoney } from '../../platform/money.ts';
import { formatInZone, loadOrderDocument, type OrderDocument } from './order-document.ts';

function orderPageUrl(ctx: AppContext, doc: OrderDocument): string {
  return `${ctx.config.baseUrl}/o/${doc.order.access_secret}`;
}

/**
 * A buyer mail's HTML: the title, the paragraphs, the link and any extra blocks, inside the
 * account's email layout when its theme names one, else in the built-in plain layout.
 */
export async function buyerMailHtml(
  ctx: AppContext,
  accountId: number,
  title: string,
  paragraphs: string[],
  link?: { href: string; text: string },
  extra = '',
): Promise<string> {
  const inner = `<h1 style="font-size:1.3rem">${escapeHtml(title)}</h1>
${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${link ? `<p><a href="${escapeHtml(link.href)}" style="color:#2d4fd6">${escapeHtml(link.text)}</a></p>` : ''}
${extra}`;
  const layout = await loadMailLayout(ctx.db, accountId, ctx.config.baseUrl);
  if (layout) return layout(inner, title);
  return `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#1b1b1f;max-width:36rem;margin:auto">
${inner}
</body></html>`;
}

/** One inline QR code per valid ticket, with its type, name and reference beside it. */
async function ticketBlocks(doc: OrderDocument): Promise<{ html: string; attachments: MailAttachment[] }> {
  const valid = doc.tickets.filter((t) => t.status !== 'voided');
  const attachments: MailAttachment[] = [];
  const blocks: string[] = [];
  for (const t of valid) {
    const cid = `qr-${t.ref}@admit`;
    attachments.push({
      filename: `qr-${t.ref}.png`,
      content: await QRCode.toBuffer(t.qr_token, { type: 'png', errorCorrectionLevel: 'M', margin: 1, width: 360 }),
      contentType: 'image/png',
      cid,
    });
    blocks.push(
      `<table role="presentation" style="border:1px solid #c8c8cc;border-radius:8px;margin:12px 0;width:100%"><tr>` +
        `<td style="padding:12px;width:180px"><img src="cid:${escapeHtml(cid)}" width="160" height="160" alt="QR code for ticket ${escapeHtml(t.ref)}"></td>` +
        `<td style="padding:12px;vertical-align:top"><strong>${escapeHtml(t.type_name)}</strong><br>${escapeHtml(t.attendee_name ?? doc.order.name ?? '')}<br><span style="color:#555">${escapeHtml(t.ref)}</span></td>` +
        `</tr></table>`,
    );
  }
  return { html: blocks.join('\n'), attachments };
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
  // the tickets travel with the mail: QR codes inline, the PDF and the calendar entry attached
  const blocks = await ticketBlocks(doc);
  const pdf = await ticketsPdf({ doc });
  const ics = eventCalendar({
    uid: `event-${order.event_id}@${new URL(ctx.config.baseUrl).host}`,
    name: order.event_name,
    startsAt: new Date(order.event_starts_at),
    endsAt: order.event_ends_at ? new Date(order.event_ends_at) : null,
    venue: order.venue ?? null,
    description: null,
    url: `${ctx.config.baseUrl}/e/${encodeURIComponent(order.account_slug)}/${encodeURIComponent(order.event_slug)}`,
    now: ctx.clock.now(),
  });
  return {
    to: email,
    fromName: `${order.event_name} (${order.account_name})`,
    subject: `Your tickets for ${order.event_name} (${order.ref})`,
    text: `${lines.join('\n\n')}\n\nYour order page: ${url}\n`,
    html: await buyerMailHtml(
      ctx,
      order.account_id,
      `Your tickets for ${order.event_name}`,
      lines,
      { href: url, text: 'Open your tickets' },
      blocks.html,
    ),
    attachments: [
      ...blocks.attachments,
      ...(pdf ? [{ filename: `tickets-${order.ref}.pdf`, content: pdf, contentType: 'application/pdf' }] : []),
      { filename: calendarFileName(order.event_slug), content: ics, contentType: 'text/calendar; charset=utf-8' },
    ],
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
    fromName: `${order.event_name} (${order.account_name})`,
    subject: reinstated
      ? `Order ${order.ref} for ${order.event_name} confirmed`
      : `Order ${order.ref} for ${order.event_name}: your payment is being refunded`,
    text: `${lines.join('\n\n')}\n\nYour order page: ${orderPageUrl(ctx, doc)}\n`,
    html: await buyerMailHtml(
      ctx,
      order.account_id,
      reinstated ? 'Your order is confirmed' : 'Your payment is being refunded',
      lines,
      {
        href: orderPageUrl(ctx, doc),
        text: 'Open your order',
      },
    ),
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
    fromName: `${order.event_name} (${order.account_name})`,
    subject: `Complete your order for ${order.event_name} (${order.ref})`,
    text: `${lines.join('\n\n')}\n\nPay here: ${url}\n`,
    html: await buyerMailHtml(ctx, order.account_id, `Complete your order for ${order.event_name}`, lines, {
      href: url,
      text: 'Pay now',
    }),
  };
}
