import type { AppContext } from '../../platform/context.ts';
import type { MailMessage } from '../../platform/mail/mailer.ts';
import { renderTicketMail } from '../orders/orders.mail.ts';
import { invoiceAttachments } from './invoices.service.ts';

/**
 * The ticket mail with the order's invoice attached (PDF, the CII XML inside). The orders module
 * renders the mail without knowing of invoices; the outbox's table (outbox-handlers.ts) sends
 * `mail.tickets` through here. The invoice is issued in the transaction that queued the mail, so
 * it is there when the mail is rendered.
 */
export async function renderTicketMailWithInvoice(
  ctx: AppContext,
  payload: Record<string, unknown>,
): Promise<MailMessage | null> {
  const msg = await renderTicketMail(ctx, payload);
  if (!msg) return null;
  const invoices = await invoiceAttachments(ctx.db, Number(payload.order_id));
  if (!invoices.length) return msg;
  return { ...msg, attachments: [...(msg.attachments ?? []), ...invoices] };
}
