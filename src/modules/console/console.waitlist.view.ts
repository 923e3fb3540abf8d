import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { EventRow } from '../events/events.repo.ts';
import type { EntryOut } from '../waitlist/waitlist.service.ts';
import { can, type Viewer } from './console.http.ts';
import { buttonForm, consolePage, type Flash } from './console-layout.view.ts';
import { eventBase } from './console.order-desk.view.ts';
import { when } from './formats.ts';
import { eventTabs } from './event-tabs.view.ts';

const STATUS: Record<EntryOut['status'], string> = {
  waiting: 'Waiting',
  offered: 'Offered',
  accepted: 'Accepted',
  expired: 'Expired',
  removed: 'Removed',
};
const PILL: Record<EntryOut['status'], string> = {
  waiting: 'pending',
  offered: 'pending',
  accepted: 'paid',
  expired: 'canceled',
  removed: 'canceled',
};

/**
 * An event's waiting list: who waits for which type in what place, the offers made and how they
 * ended; offer now and remove for those who may change orders; the list as CSV.
 */
export function waitingListPage(opts: {
  viewer: Viewer;
  event: EventRow;
  entries: EntryOut[];
  types: Map<number, string>;
  flash?: Flash | null;
}): string {
  const { viewer, event, entries } = opts;
  const base = eventBase(viewer, event.slug);
  const write = can(viewer, 'orders.write');
  const tz = event.timezone;
  const body: SafeHtml = html`${eventTabs(viewer, event.slug, 'waiting-list')}
    <p>
      ${
        event.waiting_list_enabled
          ? html`The waiting list is on: a sold-out ticket type offers to join it, and units that come free are offered
              to the first in line who fits, holding them ${String(event.waiting_list_offer_minutes)} minutes for payment.`
          : html`The waiting list is off for this event (its configuration's <code>waiting_list</code>). Entries below stay.`
      }
    </p>
    <p><a class="button secondary" href="${base}/waiting-list.csv">Export CSV</a></p>
    ${
      entries.length
        ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Waiting list">
            <table>
              <caption class="skip">Waiting list, in order of joining</caption>
              <thead>
                <tr>
                  <th scope="col" class="num">Place</th>
                  <th scope="col">Person</th>
                  <th scope="col">Ticket type</th>
                  <th scope="col" class="num">Qty</th>
                  <th scope="col">Status</th>
                  <th scope="col">Joined</th>
                  ${write ? html`<th scope="col">Actions</th>` : ''}
                </tr>
              </thead>
              <tbody>
                ${entries.map(
                  (e) => html`<tr>
                    <td class="num">${e.position === null ? '–' : String(e.position)}</td>
                    <td>${e.name}<div class="muted">${e.email}</div></td>
                    <td>${opts.types.get(e.ticket_type_id) ?? ''}</td>
                    <td class="num">${String(e.quantity)}</td>
                    <td>
                      <span class="pill status-${PILL[e.status]}">${STATUS[e.status]}</span>
                      ${e.order ? html`<div class="muted">order <a href="${base}/orders/${encodeURIComponent(e.order)}">${e.order}</a></div>` : ''}
                      ${e.status === 'offered' && e.expires_at ? html`<div class="muted">until ${when(e.expires_at, tz)}</div>` : ''}
                    </td>
                    <td>${when(e.created_at, tz)}</td>
                    ${
                      write
                        ? html`<td>
                            ${
                              e.status === 'waiting'
                                ? buttonForm({
                                    action: `${base}/waiting-list/${e.id}/offer`,
                                    csrf: viewer.csrf,
                                    label: 'Offer now',
                                    kind: 'secondary',
                                    ariaLabel: `Offer now to ${e.name}`,
                                  })
                                : ''
                            }
                            ${
                              e.status === 'waiting' || e.status === 'offered'
                                ? buttonForm({
                                    action: `${base}/waiting-list/${e.id}/remove`,
                                    csrf: viewer.csrf,
                                    label: 'Remove',
                                    kind: 'danger',
                                    ariaLabel: `Remove ${e.name}`,
                                  })
                                : ''
                            }
                          </td>`
                        : ''
                    }
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>`
        : html`<p class="muted">Nobody is on the waiting list.</p>`
    }`;
  return consolePage({ title: `${event.name}: waiting list`, viewer, active: 'events', flash: opts.flash ?? null, body });
}
