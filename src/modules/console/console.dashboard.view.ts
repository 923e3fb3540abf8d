import { money } from './formats.ts';
import { html, raw } from '../../platform/http/html.ts';
import { minorDigits } from '../../platform/money.ts';
import { dateTimeFormat } from '../../platform/time.ts';
import { DASHBOARD_GROUPS, type Dashboard, type DashboardGroup } from '../reports/dashboard.service.ts';
import { barChart } from './charts.view.ts';
import type { Viewer } from './console.http.ts';
import { consolePage } from './console-layout.view.ts';
import { eventTabs } from './event-tabs.view.ts';

/**
 * An event's dashboard: the headline figures, sales over time as charts with their numbers,
 * availability, check-in progress and the latest orders.
 */

const GROUP_LABEL: Record<DashboardGroup, string> = { day: 'By day', week: 'By week', month: 'By month' };
const n = (v: number) => v.toLocaleString('en-GB');
/** "1 order", "2 orders": a count with its noun in the right number. */
const count = (v: number, one: string, other: string) => `${n(v)} ${v === 1 ? one : other}`;
const onHold = (v: number) => `${count(v, 'order', 'orders')} on hold`;

/** "2026-11-02" → "2 Nov"; a week by its Monday; "2026-11" → "Nov 2026". */
function bucketLabel(key: string, group: DashboardGroup): string {
  if (group === 'month') {
    const [y, m] = key.split('-').map(Number) as [number, number];
    return dateTimeFormat('en-GB', { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(Date.UTC(y, m - 1, 1));
  }
  return dateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${key}T00:00:00Z`));
}

/** The dashboard, its sales grouped `by` day, week or month. */
export function dashboardPage(viewer: Viewer, d: Dashboard, by: DashboardGroup): string {
  const cur = d.event.currency;
  const amount = (c: number) => money(c, cur);
  const unit = 10 ** minorDigits(cur);
  const axis = (c: number) => `${Math.round(c / unit).toLocaleString('en-GB')} ${cur.toUpperCase()}`;
  const base = `/console/a/${encodeURIComponent(viewer.account!.slug)}/events/${encodeURIComponent(d.event.slug)}`;
  const tickets = d.availability.rows.filter((r) => r.kind === 'tickets');
  const sold = tickets.reduce((s, r) => s + r.sold, 0);
  const best = d.sales.reduce((m, b) => (b.net_cents > (m?.net_cents ?? -Infinity) ? b : m), d.sales[0]);
  const summary = d.sales.length
    ? `${GROUP_LABEL[by]}, ${bucketLabel(d.sales[0]!.key, by)} to ${bucketLabel(d.sales.at(-1)!.key, by)}: ${amount(d.totals.net_cents)} from ${count(d.totals.orders, 'order', 'orders')} with payment` +
      (best && best.net_cents > 0 ? `; the best ${by} was ${bucketLabel(best.key, by)} with ${amount(best.net_cents)}.` : '.')
    : 'No paid orders yet.';
  const body = html`${eventTabs(viewer, d.event.slug, 'dashboard')}
        <div class="stats-row">
          <div class="stat-card"><span>Net sales</span><strong>${amount(d.totals.net_cents)}</strong>
            ${d.totals.refund_cents ? html`<small>after ${amount(d.totals.refund_cents)} refunded</small>` : ''}</div>
          <div class="stat-card"><span>Orders with payment</span><strong>${n(d.totals.orders)}</strong></div>
          <div class="stat-card"><span>Tickets sold</span><strong>${n(sold)}</strong></div>
          <div class="stat-card"><span>Pending payment</span><strong>${
            d.pending.length ? d.pending.map((p, i) => html`${i ? ' + ' : ''}${money(p.total_cents, p.currency)}`) : amount(0)
          }</strong><small>${onHold(d.pending.reduce((s, p) => s + p.orders, 0))}</small></div>
        </div>

        <section class="card" aria-labelledby="sales-h">
          <div class="section-head">
            <h2 id="sales-h">Sales over time</h2>
            <nav class="segmented" aria-label="Group sales">
              ${DASHBOARD_GROUPS.map(
                (g) =>
                  html`<a href="${base}/dashboard?by=${g}" ${g === by ? raw('aria-current="page"') : ''}>${GROUP_LABEL[g]}</a>`,
              )}
            </nav>
          </div>
          ${
            d.sales.length
              ? html`<h3>Net sales</h3>${barChart({
                  id: 'sales',
                  title: `Net sales ${GROUP_LABEL[by].toLowerCase()} (${d.event.timezone})`,
                  summary,
                  bars: d.sales.map((b) => ({ label: bucketLabel(b.key, by), value: b.net_cents })),
                  format: axis,
                  table: {
                    head: [
                      by === 'week' ? 'Week of' : by === 'month' ? 'Month' : 'Day',
                      'Orders with payment',
                      'Net sales',
                      'Refunded',
                    ],
                    rows: d.sales.map((b) => [bucketLabel(b.key, by), n(b.orders), amount(b.net_cents), amount(b.refund_cents)]),
                  },
                })}`
              : html`<p>No paid orders yet: the chart starts with the first sale.</p>`
          }
          ${
            d.sales.length
              ? html`<h3>Tickets sold</h3>${barChart({
                  id: 'tickets',
                  title: `Tickets sold ${GROUP_LABEL[by].toLowerCase()} (${d.event.timezone})`,
                  summary: `${count(d.totals.tickets, 'ticket', 'tickets')} on paid orders, ${GROUP_LABEL[by].toLowerCase()}; refunded and canceled orders' tickets are not counted.`,
                  bars: d.sales.map((b) => ({ label: bucketLabel(b.key, by), value: b.tickets })),
                  format: (v) => n(v),
                  minStep: 1,
                  table: {
                    head: [by === 'week' ? 'Week of' : by === 'month' ? 'Month' : 'Day', 'Tickets'],
                    rows: d.sales.map((b) => [bucketLabel(b.key, by), n(b.tickets)]),
                  },
                })}`
              : ''
          }
          <p class="hint">
            In ${cur.toUpperCase()}, by the day of payment in ${d.event.timezone}; orders in other currencies at their rate.
            Net sales: what buyers paid, less discounts and refunds.
          </p>
        </section>

        <section class="card" aria-labelledby="avail-h">
          <h2 id="avail-h">Availability</h2>
          ${
            d.availability.rows.length
              ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Availability">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Item</th>
                      <th scope="col" class="num">Sold</th>
                      <th scope="col" class="num">On hold</th>
                      <th scope="col" class="num">Left</th>
                      <th scope="col">Taken</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${d.availability.rows.map((r) => {
                      const share = r.capacity ? Math.min(100, Math.round((r.taken / r.capacity) * 100)) : null;
                      return html`<tr>
                        <td>${r.name} <span class="muted">${r.kind === 'tickets' ? '' : r.kind}</span>${
                          r.status ? html` <span class="pill">${r.status}</span>` : ''
                        }</td>
                        <td class="num">${n(r.sold)}</td>
                        <td class="num">${n(r.pending)}</td>
                        <td class="num">${r.remaining === null ? '∞' : n(r.remaining)}</td>
                        <td class="bar-cell">${
                          share === null
                            ? html`<span class="muted">no limit</span>`
                            : html`<span class="hbar" aria-hidden="true"><span style="width:${share}%"></span></span> ${share}%`
                        }</td>
                      </tr>`;
                    })}
                  </tbody>
                </table>
              </div>`
              : html`<p>Nothing on sale yet.</p>`
          }
        </section>

        <div class="two-col">
          <section class="card" aria-labelledby="checkin-h">
            <h2 id="checkin-h">Check-in</h2>
            ${
              d.checkins.length
                ? d.checkins.map(
                    (l) => html`<div class="field">
                    <label for="cl-${l.id}">${l.name}: ${n(l.checked_in)} of ${n(l.tickets)}</label>
                    <progress id="cl-${l.id}" max="${Math.max(l.tickets, l.checked_in, 1)}" value="${l.checked_in}"></progress>
                  </div>`,
                  )
                : html`<p>No check-in lists.</p>`
            }
          </section>
          <section class="card" aria-labelledby="recent-h">
            <h2 id="recent-h">Latest orders</h2>
            ${
              d.recent.length
                ? html`<ul class="plain">
                  ${d.recent.map(
                    (o) => html`<li>
                      <a href="${base}/orders/${encodeURIComponent(o.ref)}">${o.ref}</a> ${o.name ?? o.email ?? ''}
                      <span class="muted">· ${o.status} · ${money(o.total_cents, o.currency)}</span>
                    </li>`,
                  )}
                </ul>
                <p><a href="${base}/orders">All orders</a></p>`
                : html`<p>No orders yet.</p>`
            }
          </section>
        </div>`;
  return consolePage({ title: `Dashboard · ${d.event.name}`, viewer, active: 'events', body });
}
