import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { Locale } from '../i18n/i18n.ts';
import type { OrderDocument } from '../orders/order-document.repo.ts';
import { calendarPath, ledger, receipt, ticketCards } from './order.view.ts';

/**
 * The order page of a paid order is the buyer's confirmation: that they are going, to what,
 * when and where, with which tickets, and what to do next; then the tickets, the receipt and the
 * payments. Order pages of other states keep their status line (pay.view.ts).
 */
/** What the order page adds to a paid order: forms under each ticket, a section after them. */
export interface OrderPageExtras {
  card?: (t: OrderDocument['tickets'][number]) => SafeHtml;
  afterTickets?: SafeHtml;
}

export async function confirmationBody(
  doc: OrderDocument,
  loc: Locale,
  secret: string,
  extras: OrderPageExtras = {},
): Promise<SafeHtml> {
  const { order, lines } = doc;
  const { m } = loc;
  // the buyer's own codes: valid and not passed on to someone else
  const valid = doc.tickets.filter((t) => t.status !== 'voided' && !t.transferred);
  const venue = order.venue;
  const calendar = calendarPath(order.account_slug, order.event_slug);
  return html`<section class="admit-confirm" aria-labelledby="admit-confirm-title">
      <p class="admit-confirm-mark" aria-hidden="true">✓</p>
      <h1 id="admit-confirm-title">${m.youreGoing}</h1>
      <p class="admit-lead" role="status">${m.confirmationLead(order.ref, order.email)}</p>
      <h2 class="admit-confirm-event">${order.event_name}</h2>
      <dl class="admit-facts">
        <div>
          <dt>${m.when}</dt>
          <dd>
            <time datetime="${new Date(order.event_starts_at).toISOString()}">${loc.dateTime(order.event_starts_at, order.timezone)}</time
            ><br /><a href="${calendar}">${m.addToCalendar}</a>
          </dd>
        </div>
        ${
          venue
            ? html`<div>
                <dt>${m.where}</dt>
                <dd>
                  ${venue.name}${venue.address ? html`<br />${venue.address}` : ''}${
                    venue.map_url && /^https?:\/\//i.test(venue.map_url)
                      ? html`<br /><a href="${venue.map_url}">${m.mapAndDirections}</a>`
                      : ''
                  }
                </dd>
              </div>`
            : ''
        }
        <div>
          <dt>${valid.length ? m.ticketCount(valid.length) : m.tickets}</dt>
          <dd>${lines.map((l, i) => html`${i ? html`<br />` : ''}${l.quantity} × ${l.name}`)}</dd>
        </div>
        ${
          order.total_cents === 0
            ? html`<div>
                <dt>${m.total}</dt>
                <dd>${m.free}</dd>
              </div>`
            : html`<div>
                <dt>${m.paid}</dt>
                <dd>${loc.money(order.total_cents, order.currency)}</dd>
              </div>`
        }
      </dl>
      ${valid.length ? html`<p><a class="button" href="/o/${secret}/tickets.pdf">${m.downloadTickets}</a></p>` : ''}
    </section>
    ${
      valid.length
        ? html`<h2>${m.whatNext}</h2>
            <ol class="admit-next">
              <li>${m.nextBring}</li>
              <li>${m.nextOnePerson}</li>
              <li><a href="${calendar}">${m.nextCalendar}</a></li>
            </ol>`
        : ''
    }
    ${await ticketCards(doc, loc, (ref) => `/o/${secret}/tickets/${encodeURIComponent(ref)}.pdf`, extras.card ?? null)}
    ${extras.afterTickets ?? ''}
    <h2>${m.receipt}</h2>
    ${receipt(doc, loc)}${ledger(doc, loc)}
    <p class="muted">${m.keepPagePrivate}</p>`;
}
