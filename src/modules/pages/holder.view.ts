import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { Locale } from '../i18n/i18n.ts';
import type { OrderDocument } from '../orders/order-document.repo.ts';
import { eventHeader, ticketCards } from './order.view.ts';

/**
 * The page of a ticket passed on to someone: the event, who passed it on, the ticket with its QR
 * code and PDF. Nothing of the order (what was paid, the other tickets) is shown to its holder.
 */
export async function holderPageBody(doc: OrderDocument, loc: Locale, pdfHref: string): Promise<SafeHtml> {
  const { m } = loc;
  const from = doc.order.name ?? '';
  return html`${eventHeader(doc, loc)}
    ${from ? html`<p class="admit-lead">${m.passedOnBy(from)}</p>` : ''}
    ${await ticketCards(doc, loc, () => pdfHref)}
    <p class="muted">${m.keepTicketLinkPrivate}</p>`;
}
