import type { AppContext } from '../../platform/context.ts';
import type { MailMessage } from '../../platform/mail/mailer.ts';
import { buyerMailHtml, buyerSender, mailLocale, ticketBlocks } from './orders.mail.ts';
import { loadHolderDocument } from './order-document.repo.ts';
import { ticketsPdf } from './ticket-pdf.view.ts';

/**
 * The mail to whoever a ticket was passed on to: their own page (a capability URL), the QR code
 * and the PDF. Rendered when sent, so a ticket passed on again before this mail left sends the
 * latest holder's link, and a ticket voided since sends nothing.
 */
export async function renderTransferMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const t = await ctx.db
    .selectFrom('tickets')
    .select(['holder_secret', 'attendee_email', 'status'])
    .where('id', '=', Number(payload.ticket_id))
    .executeTakeFirst();
  if (!t?.holder_secret || !t.attendee_email || t.status !== 'valid') return null;
  const doc = await loadHolderDocument(ctx.db, t.holder_secret);
  if (!doc || doc.order.status !== 'paid') return null;
  const { order } = doc;
  const loc = mailLocale(doc);
  const { m } = loc;
  const url = `${ctx.config.baseUrl}/ticket/${t.holder_secret}`;
  const ticket = doc.tickets[0]!;
  const lines = [
    m.passedToYou(order.name ?? order.email ?? '', order.event_name, loc.dateTime(order.event_starts_at, order.timezone)),
    m.showCodes,
    m.keepTicketLinkPrivate,
  ];
  const blocks = await ticketBlocks(doc, loc);
  const pdf = await ticketsPdf({ doc, loc });
  return {
    to: t.attendee_email,
    fromName: buyerSender(doc),
    subject: m.passedToYouSubject(order.event_name),
    text: `${lines.join('\n\n')}\n\n${m.holderPageLine(url)}\n`,
    html: await buyerMailHtml(
      ctx,
      order.account_id,
      loc,
      m.passedToYouTitle(order.event_name),
      lines,
      { href: url, text: m.openTicket },
      blocks.html,
    ),
    attachments: [
      ...blocks.attachments,
      ...(pdf ? [{ filename: `ticket-${ticket.ref}.pdf`, content: pdf, contentType: 'application/pdf' }] : []),
    ],
  };
}
