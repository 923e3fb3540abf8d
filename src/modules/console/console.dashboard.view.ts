import { money } from './formats.ts';
import { html, raw } from '../../platform/http/html.ts';
import { minorDigits } from '../../platform/money.ts';
import { dateTimeFormat } from '../../platform/time.ts';
import { DASHBOARD_GROUPS, type Dashboard, type DashboardGroup } from '../reports/dashboard.service.ts';
import { barChart } from './charts.view.ts';
import { can, type Viewer } from './console.http.ts';
import { consolePage, emptyState, nextStep } from './console-layout.view.ts';
import type { SalesReadiness } from './console-events.service.ts';
import { noOrdersYet } from './empty-states.view.ts';
import { statusLabel } from './console.order-desk.view.ts';
import { eventTabs } from './event-tabs.view.ts';
import { formatTag, t } from './console-lang.ts';
import type { ConsoleMessages } from '../i18n/i18n.ts';

/**
 * An event's dashboard: the headline figures, sales over time as charts with their numbers,
 * availability, check-in progress and the latest orders.
 */

const GROUP_LABEL: Record<DashboardGroup, (m: ConsoleMessages) => string> = {
  day: (m) => m.byDay,
  week: (m) => m.byWeek,
  month: (m) => m.byMonth,
};
const n = (v: number) => v.toLocaleString(formatTag());
/** "1 order", "2 orders": a count with its noun in the right number. */
const orders = (v: number) => t().orderCount(n(v), v);
const onHold = (v: number) => t().onHold(orders(v));

/** "2026-11-02" → "2 Nov"; a week by its Monday; "2026-11" → "Nov 2026". */
function bucketLabel(key: string, group: DashboardGroup): string {
  if (group === 'month') {
    const [y, m] = key.split('-').map(Number) as [number, number];
    return dateTimeFormat(formatTag(), { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(Date.UTC(y, m - 1, 1));
  }
  return dateTimeFormat(formatTag(), { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${key}T00:00:00Z`));
}

/** The dashboard, its sales grouped `by` day, week or month. */
export function dashboardPage(
  viewer: Viewer,
  d: Dashboard,
  by: DashboardGroup,
  /** what the event lacks before its first order (asked for when it has none) */
  readiness?: SalesReadiness,
): string {
  const cur = d.event.currency;
  const amount = (c: number) => money(c, cur);
  const unit = 10 ** minorDigits(cur);
  const axis = (c: number) => `${Math.round(c / unit).toLocaleString(formatTag())} ${cur.toUpperCase()}`;
  const m = t();
  const group = GROUP_LABEL[by](m);
  const base = `/console/a/${encodeURIComponent(viewer.account!.slug)}/events/${encodeURIComponent(d.event.slug)}`;
  const write = can(viewer, 'events.write');
  const tickets = d.availability.rows.filter((r) => r.kind === 'tickets');
  const sold = tickets.reduce((s, r) => s + r.sold, 0);
  const best = d.sales.reduce((m, b) => (b.net_cents > (m?.net_cents ?? -Infinity) ? b : m), d.sales[0]);
  const summary = d.sales.length
    ? m.salesSummary(
        group,
        bucketLabel(d.sales[0]!.key, by),
        bucketLabel(d.sales.at(-1)!.key, by),
        amount(d.totals.net_cents),
        orders(d.totals.orders),
      ) + (best && best.net_cents > 0 ? m.bestDay(by, bucketLabel(best.key, by), amount(best.net_cents)) : '.')
    : m.noPaidOrders;
  const body = html`${eventTabs(viewer, d.event.slug, 'dashboard')}
        <div class="stats-row">
          <div class="stat-card"><span>${m.netSales}</span><strong>${amount(d.totals.net_cents)}</strong>
            ${d.totals.refund_cents ? html`<small>${m.afterRefunded(amount(d.totals.refund_cents))}</small>` : ''}</div>
          <div class="stat-card"><span>${m.ordersWithPayment}</span><strong>${n(d.totals.orders)}</strong></div>
          <div class="stat-card"><span>${m.ticketsSold}</span><strong>${n(sold)}</strong></div>
          <div class="stat-card"><span>${m.pendingPayment}</span><strong>${
            d.pending.length ? d.pending.map((p, i) => html`${i ? ' + ' : ''}${money(p.total_cents, p.currency)}`) : amount(0)
          }</strong><small>${onHold(d.pending.reduce((s, p) => s + p.orders, 0))}</small></div>
        </div>

        <section class="card" aria-labelledby="sales-h">
          <div class="section-head">
            <h2 id="sales-h">${m.salesOverTime}</h2>
            <nav class="segmented" aria-label="${m.groupSales}">
              ${DASHBOARD_GROUPS.map(
                (g) =>
                  html`<a href="${base}/dashboard?by=${g}" ${g === by ? raw('aria-current="page"') : ''}>${GROUP_LABEL[g](m)}</a>`,
              )}
            </nav>
          </div>
          ${
            d.sales.length
              ? html`<h3>${m.netSales}</h3>${barChart({
                  id: 'sales',
                  title: m.chartTitle(m.netSales, group, d.event.timezone),
                  summary,
                  bars: d.sales.map((b) => ({ label: bucketLabel(b.key, by), value: b.net_cents })),
                  format: axis,
                  table: {
                    head: [
                      by === 'week' ? m.weekOf : by === 'month' ? m.month : m.day,
                      m.ordersWithPayment,
                      m.netSales,
                      m.refunded,
                    ],
                    rows: d.sales.map((b) => [bucketLabel(b.key, by), n(b.orders), amount(b.net_cents), amount(b.refund_cents)]),
                  },
                })}`
              : html`<p>${m.chartStartsWithSale}</p>`
          }
          ${
            d.sales.length
              ? html`<h3>${m.ticketsSold}</h3>${barChart({
                  id: 'tickets',
                  title: m.chartTitle(m.ticketsSold, group, d.event.timezone),
                  summary: m.ticketsSummary(m.ticketCount(n(d.totals.tickets), d.totals.tickets), group),
                  bars: d.sales.map((b) => ({ label: bucketLabel(b.key, by), value: b.tickets })),
                  format: (v) => n(v),
                  minStep: 1,
                  table: {
                    head: [by === 'week' ? m.weekOf : by === 'month' ? m.month : m.day, m.tickets],
                    rows: d.sales.map((b) => [bucketLabel(b.key, by), n(b.tickets)]),
                  },
                })}`
              : ''
          }
          <p class="hint">${m.salesNote(cur.toUpperCase(), d.event.timezone)}</p>
        </section>

        <section class="card" aria-labelledby="avail-h">
          <h2 id="avail-h">${m.availability}</h2>
          ${
            d.availability.rows.length
              ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.availability}">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">${m.item}</th>
                      <th scope="col" class="num">${m.sold}</th>
                      <th scope="col" class="num">${m.onHoldCol}</th>
                      <th scope="col" class="num">${m.left}</th>
                      <th scope="col">${m.taken}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${d.availability.rows.map((r) => {
                      const share = r.capacity ? Math.min(100, Math.round((r.taken / r.capacity) * 100)) : null;
                      return html`<tr>
                        <td>${r.name} <span class="muted">${r.kind === 'tickets' ? '' : r.kind === 'goods' ? m.kindGoods : r.kind === 'donations' ? m.kindDonations : m.kindSessions}</span>${
                          r.status
                            ? html` <span class="pill">${r.status === 'sold out' ? m.pillSoldOut : m.pillOffSale}</span>`
                            : ''
                        }</td>
                        <td class="num">${n(r.sold)}</td>
                        <td class="num">${n(r.pending)}</td>
                        <td class="num">${r.remaining === null ? '∞' : n(r.remaining)}</td>
                        <td class="bar-cell">${
                          share === null
                            ? html`<span class="muted">${m.noLimit}</span>`
                            : html`<span class="hbar" aria-hidden="true"><span style="width:${share}%"></span></span> ${share}%`
                        }</td>
                      </tr>`;
                    })}
                  </tbody>
                </table>
              </div>`
              : emptyState({
                  name: 'availability',
                  text: m.emptyNothingOnSale,
                  next: write ? nextStep(`${base}/ticket-types#add`, m.emptyAddTicketType, 'secondary') : undefined,
                })
          }
        </section>

        <div class="two-col">
          <section class="card" aria-labelledby="checkin-h">
            <h2 id="checkin-h">${m.checkIn}</h2>
            ${
              d.checkins.length
                ? d.checkins.map(
                    (l) => html`<div class="field">
                    <label for="cl-${l.id}">${m.checkedInOf(l.name, n(l.checked_in), n(l.tickets))}</label>
                    <progress id="cl-${l.id}" max="${Math.max(l.tickets, l.checked_in, 1)}" value="${l.checked_in}"></progress>
                  </div>`,
                  )
                : emptyState({
                    name: 'checkin-lists',
                    text: m.emptyNoLists,
                    next: write ? nextStep(`${base}/checkin-lists#add`, m.emptyAddList, 'secondary') : undefined,
                  })
            }
          </section>
          <section class="card" aria-labelledby="recent-h">
            <h2 id="recent-h">${m.latestOrders}</h2>
            ${
              d.recent.length
                ? html`<ul class="plain">
                  ${d.recent.map(
                    (o) => html`<li>
                      <a href="${base}/orders/${encodeURIComponent(o.ref)}">${o.ref}</a> ${o.name ?? o.email ?? ''}
                      <span class="muted">· ${statusLabel(o.status)} · ${money(o.total_cents, o.currency)}</span>
                    </li>`,
                  )}
                </ul>
                <p><a href="${base}/orders">${m.allOrdersLink}</a></p>`
                : readiness
                  ? noOrdersYet(viewer, readiness)
                  : html`<p>${m.noOrdersYet}</p>`
            }
          </section>
        </div>`;
  return consolePage({ title: m.dashboardOf(d.event.name), viewer, active: 'events', body });
}
