import type { AppContext } from '../../platform/context.ts';
import { escapeHtml } from '../../platform/http/html.ts';
import QRCode from 'qrcode';
import type { MailAttachment, MailMessage } from '../../platform/mail/mailer.ts';
import { calendarFileName, calendarOf } from '../events/calendar.ts';
import { negotiate, type Locale } from '../i18n/i18n.ts';
import { ticketsPdf } from './ticket-pdf.view.ts';
import { loadMailTheme } from '../themes/page-theme.service.ts';
import { MAIL_FONT, mailFrame } from './mail-frame.view.ts';
import { loadOrderDocument, type OrderDocument } from './order-document.repo.ts';
import { seatText } from './seat-text.ts';

function orderPageUrl(ctx: AppContext, doc: OrderDocument): string {
  return `${ctx.config.baseUrl}/o/${doc.order.access_secret}`;
}

/** A buyer mail speaks the language the order was bought in, else the event's. */
export function mailLocale(doc: OrderDocument): Locale {
  return negotiate({ choice: doc.order.locale, fallback: doc.order.event_locale });
}

/** Sender name of every buyer mail: which event, from whom. */
export function buyerSender(doc: OrderDocument): string {
  return `${doc.order.event_name} (${doc.order.account_name})`;
}

/**
 * A buyer mail's HTML: the title, the paragraphs, the link as a button and any extra blocks, in
 * the shared mail frame (mail-frame.view.ts), inside the account's email layout when its theme
 * names one.
 */
export async function buyerMailHtml(
  ctx: AppContext,
  accountId: number,
  loc: Locale,
  title: string,
  paragraphs: string[],
  link?: { href: string; text: string },
  extra = '',
): Promise<string> {
  const theme = await loadMailTheme(ctx.db, accountId, ctx.config.baseUrl);
  return mailFrame({ theme, lang: loc.tag, title, paragraphs, ...(link ? { link } : {}), extra });
}

/** One inline QR code per valid ticket, with its type, name and reference beside it. */
export async function ticketBlocks(doc: OrderDocument, loc: Locale): Promise<{ html: string; attachments: MailAttachment[] }> {
  const valid = doc.tickets.filter((t) => t.status !== 'voided' && !t.transferred);
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
      `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border:1px solid #dcdcd6;border-radius:8px;margin:12px 0"><tr>` +
        `<td width="176" style="padding:12px;width:160px;vertical-align:top"><img src="cid:${escapeHtml(cid)}" width="160" height="160" alt="${escapeHtml(loc.m.qrFor(t.ref))}" style="display:block;border:0"></td>` +
        `<td style="padding:12px 12px 12px 0;vertical-align:top;font-family:${MAIL_FONT};font-size:15px;line-height:22px;color:#1b1b1f"><strong style="font-size:16px">${escapeHtml(t.type_name)}</strong><br>${t.seat ? `<strong>${escapeHtml(seatText(t.seat))}</strong><br>` : ''}${escapeHtml(t.attendee_name ?? doc.order.name ?? '')}<br><span style="color:#5f5f66;font-family:ui-monospace,Menlo,Consolas,monospace">${escapeHtml(t.ref)}</span></td>` +
        `</tr></table>`,
    );
  }
  return { html: blocks.join('\n'), attachments };
}

/** The ticket mail: the order page link (where the QR codes are) and the tickets. */
export async function renderTicketMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const doc = await loadOrderDocument(ctx.db, { id: Number(payload.order_id) });
  const email = doc?.order.email;
  if (!doc || !email || doc.order.status !== 'paid') return null;
  const { order } = doc;
  const loc = mailLocale(doc);
  const { m } = loc;
  const url = orderPageUrl(ctx, doc);
  const when = loc.dateTime(order.event_starts_at, order.timezone);
  const tickets = doc.tickets.map(
    (t) => `${t.ref}: ${t.type_name}${t.seat ? `, ${seatText(t.seat)}` : ''}${t.attendee_name ? ` (${t.attendee_name})` : ''}`,
  );
  const lines = [
    m.thankYou(order.ref, order.event_name, when),
    m.totalPaid(loc.money(order.total_cents, order.currency)),
    ...(tickets.length ? [m.yourTicketsList(tickets.join('; '))] : []),
    m.showCodes,
  ];
  // the tickets travel with the mail: QR codes inline, the PDF and the calendar entry attached
  const blocks = await ticketBlocks(doc, loc);
  const pdf = await ticketsPdf({ doc, loc });
  const ics = calendarOf({
    baseUrl: ctx.config.baseUrl,
    accountSlug: order.account_slug,
    event: {
      id: order.event_id,
      slug: order.event_slug,
      name: order.event_name,
      starts_at: order.event_starts_at,
      ends_at: order.event_ends_at,
      venue: order.venue ?? null,
      description: order.event_description,
    },
    now: ctx.clock.now(),
  });
  return {
    to: email,
    fromName: buyerSender(doc),
    subject: m.ticketsSubject(order.event_name, order.ref),
    text: `${lines.join('\n\n')}\n\n${m.orderPageLine(url)}\n`,
    html: await buyerMailHtml(
      ctx,
      order.account_id,
      loc,
      m.ticketsTitle(order.event_name),
      lines,
      { href: url, text: m.openTickets },
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
  const email = doc?.order.email;
  if (!doc || !email) return null;
  const { order } = doc;
  const loc = mailLocale(doc);
  const { m } = loc;
  const reinstated = payload.outcome === 'reinstated';
  const lines = [reinstated ? m.lateReinstated(order.ref) : m.lateRefunding(order.ref)];
  const url = orderPageUrl(ctx, doc);
  return {
    to: email,
    fromName: buyerSender(doc),
    subject: reinstated
      ? m.lateReinstatedSubject(order.ref, order.event_name)
      : m.lateRefundingSubject(order.ref, order.event_name),
    text: `${lines.join('\n\n')}\n\n${m.orderPageLine(url)}\n`,
    html: await buyerMailHtml(ctx, order.account_id, loc, reinstated ? m.orderConfirmed : m.paymentBeingRefunded, lines, {
      href: url,
      text: m.openOrder,
    }),
  };
}

/** The pay link of a pending order (sent again on request): where to pay, and until when. */
export async function renderPayLinkMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const doc = await loadOrderDocument(ctx.db, { id: Number(payload.order_id) });
  const email = doc?.order.email;
  if (!doc || !email || doc.order.status !== 'pending') return null;
  const { order } = doc;
  const loc = mailLocale(doc);
  const { m } = loc;
  const url = `${ctx.config.baseUrl}/pay/${order.access_secret}`;
  const lines = [
    m.payLinkReserved(order.ref, order.event_name, loc.dateTime(order.event_starts_at, order.timezone)),
    m.amountDue(loc.money(order.total_cents, order.currency)),
    ...(order.expires_at ? [m.holdsUntil(loc.dateTime(order.expires_at, order.timezone))] : []),
    m.keepPayLinkPrivate,
  ];
  return {
    to: email,
    fromName: buyerSender(doc),
    subject: m.payLinkSubject(order.event_name, order.ref),
    text: `${lines.join('\n\n')}\n\n${m.payHere(url)}\n`,
    html: await buyerMailHtml(ctx, order.account_id, loc, m.payLinkTitle(order.event_name), lines, {
      href: url,
      text: m.payNow,
    }),
  };
}
