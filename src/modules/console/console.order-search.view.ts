import { money, when } from './formats.ts';
import { html } from '../../platform/http/html.ts';
import type { FoundOrder } from '../orders/order-desk.service.ts';
import type { Viewer } from './console.http.ts';
import { consolePage, field } from './console-layout.view.ts';
import { eventBase, statusPill } from './console.order-desk.view.ts';
import { t } from './console-lang.ts';

/** The console header's order search: orders of every event of the account, by reference, email or name. */
export function orderSearchPage(viewer: Viewer, q: string, found: FoundOrder[]): string {
  const action = `/console/a/${encodeURIComponent(viewer.account!.slug)}/orders`;
  const m = t();
  const body = html`<form method="get" action="${action}" class="card" role="search">
      ${field({
        name: 'q',
        label: m.searchLabel,
        type: 'search',
        value: q,
        id: 'f-search-q',
        hint: m.searchAllHint,
      })}
      <button type="submit">${m.findOrders}</button>
    </form>
    ${
      !q.trim()
        ? ''
        : found.length
          ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.ordersFound}">
              <table>
                <thead>
                  <tr>
                    <th scope="col">${m.colOrder}</th>
                    <th scope="col">${m.colEvent}</th>
                    <th scope="col">${m.colBuyer}</th>
                    <th scope="col">${m.status}</th>
                    <th scope="col" class="num">${m.colTotal}</th>
                    <th scope="col">${m.colPlaced}</th>
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
            ${found.length >= 50 ? html`<p class="muted">${m.newest50}</p>` : ''}`
          : html`<div class="card"><p>${m.noMatchFor(q)}</p></div>`
    }`;
  return consolePage({ title: q.trim() ? m.ordersMatching(q.trim()) : m.findAnOrder, viewer, active: 'orders', body });
}
