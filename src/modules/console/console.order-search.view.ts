import { money, when } from './formats.ts';
import { html } from '../../platform/http/html.ts';
import type { FoundOrder } from '../orders/order-desk.service.ts';
import type { Viewer } from './console.http.ts';
import { consolePage, field } from './console-layout.view.ts';
import { eventBase, statusPill } from './console.order-desk.view.ts';

/** The console header's order search: orders of every event of the account, by reference, email or name. */
export function orderSearchPage(viewer: Viewer, q: string, found: FoundOrder[]): string {
  const action = `/console/a/${encodeURIComponent(viewer.account!.slug)}/orders`;
  const body = html`<form method="get" action="${action}" class="card" role="search">
      ${field({
        name: 'q',
        label: 'Order or ticket reference, email or name',
        type: 'search',
        value: q,
        id: 'f-search-q',
        hint: 'Searches the orders of all your events.',
      })}
      <button type="submit">Find orders</button>
    </form>
    ${
      !q.trim()
        ? ''
        : found.length
          ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Orders found">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Order</th>
                    <th scope="col">Event</th>
                    <th scope="col">Buyer</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">Total</th>
                    <th scope="col">Placed</th>
                  </tr>
                </thead>
                <tbody>
                  ${found.map(
                    (o) =>
                      html`<tr>
                        <td><a href="${eventBase(viewer, o.event_slug)}/orders/${encodeURIComponent(o.ref)}">${o.ref}</a></td>
                        <td>${o.event_name}</td>
                        <td>${o.name ?? ''}<div class="muted">${o.email ?? ''}</div></td>
                        <td>${statusPill(o.status)}</td>
                        <td class="num">${money(o.total_cents, o.currency)}</td>
                        <td>${when(o.created_at, 'UTC')} UTC</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>
            ${found.length >= 50 ? html`<p class="muted">The newest 50 are shown: add to the search to narrow it.</p>` : ''}`
          : html`<div class="card"><p>No orders match “${q}”. Try an order reference such as GALA-001, the start of an email address, or part of a name.</p></div>`
    }`;
  return consolePage({ title: q.trim() ? `Orders matching “${q.trim()}”` : 'Find an order', viewer, active: 'orders', body });
}
