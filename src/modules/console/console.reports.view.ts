import { money } from './formats.ts';
import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import { dateTimeFormat } from '../../platform/time.ts';
import type { IncomeReport } from '../reports/income.service.ts';
import type { InvoicedVat } from '../invoices/invoices.service.ts';
import { GROUPS, type OrdersReport } from '../reports/orders-report.service.ts';
import type { getSavedReports } from '../reports/reports.service.ts';
import { can, type Viewer } from './console.http.ts';
import { buttonForm, consolePage, field, hiddenCsrf, select, type FieldErrors, type Flash } from './console-layout.view.ts';
import { eventBase } from './console.order-desk.view.ts';
import { eventTabs } from './event-tabs.view.ts';

/**
 * The console's report pages: income with its month table, and the orders report with its
 * groupings, range and filters and the event's saved reports. The forms are GET forms, so a
 * report is a link that can be shared.
 */

const RANGES = [
  { value: '30d', label: 'Last 30 days' },
  { value: '7d', label: 'Last 7 days' },
  { value: '24h', label: 'Last 24 hours' },
  { value: 'month', label: 'This month' },
  { value: 'all', label: 'All time' },
  { value: 'custom', label: 'From – to (below)' },
];
const GROUP_LABEL: Record<string, string> = {
  day: 'Day',
  week: 'Week',
  month: 'Month',
  audience: 'Audience',
  status: 'Status',
  code: 'Discount code',
};
const n = (v: number) => v.toLocaleString('en-GB');
const orders = (count: number, what = 'orders') => `${n(count)} ${count === 1 ? what.replace(/s$/, '') : what}`;

function monthLabel(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return dateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(Date.UTC(y, m - 1, 1));
}

function reportNav(base: string, active: 'income' | 'orders'): SafeHtml {
  return html`<nav class="segmented report-nav" aria-label="Reports">
    <a href="${base}/reports" ${active === 'income' ? raw('aria-current="page"') : ''}>Income</a>
    <a href="${base}/reports/orders" ${active === 'orders' ? raw('aria-current="page"') : ''}>Orders report</a>
  </nav>`;
}

/** The range fields both reports share. */
function rangeFields(q: Record<string, string>): SafeHtml {
  return html`${select({ name: 'range', label: 'Range', value: q.range || '30d', options: RANGES })}
    ${field({ name: 'from', label: 'From', type: 'date', value: q.from ?? '' })}
    ${field({ name: 'to', label: 'To', type: 'date', value: q.to ?? '' })}
    ${select({
      name: 'on',
      label: 'Count orders by',
      value: q.on === 'started' ? 'started' : 'paid',
      options: [
        { value: 'paid', label: 'when they were paid' },
        { value: 'started', label: 'when they were placed' },
      ],
    })}`;
}

/** The income page; `query` is the request's query string as typed (shown back in the range form). */
export function incomePage(
  viewer: Viewer,
  event: string,
  query: Record<string, string>,
  r: IncomeReport,
  vat: InvoicedVat[] = [],
): string {
  const base = eventBase(viewer, event);
  const m = (c: number) => money(c, r.currency);
  const cols: Array<[string, (x: IncomeReport) => string]> = [
    ['Orders', (x) => n(x.orders)],
    ['Gross', (x) => m(x.gross_cents)],
    ['Discounts', (x) => m(x.discount_cents)],
    ['Refunds', (x) => m(x.refund_cents)],
    ['Collected', (x) => m(x.collected_cents)],
    ['Tax', (x) => m(x.tax_cents)],
    ['Fees', (x) => m(x.fees_cents)],
    ['Platform fees', (x) => m(x.platform_fee_cents)],
    ['Net', (x) => m(x.net_cents)],
    ['Pending', (x) => m(x.pending_cents)],
  ];
  const body = html`${eventTabs(viewer, event, 'reports')} ${reportNav(base, 'income')}
      <form method="get" action="${base}/reports" class="card filters" aria-label="Income report range">
        <div class="grid">${rangeFields(query)}</div>
        <button type="submit">Show</button>
      </form>
      <div class="stats-row">
        <div class="stat-card"><span>Net</span><strong>${m(r.net_cents)}</strong><small>after fees and refunds</small></div>
        <div class="stat-card"><span>Collected</span><strong>${m(r.collected_cents)}</strong><small>${orders(r.orders)}</small></div>
        <div class="stat-card"><span>Refunded</span><strong>${m(r.refund_cents)}</strong><small>${orders(r.refunded_orders)}</small></div>
        <div class="stat-card"><span>Pending</span><strong>${m(r.pending_cents)}</strong><small>${orders(r.pending_orders)} on hold</small></div>
        ${vat.map(
          (v) =>
            html`<div class="stat-card" data-invoiced-vat="${v.currency}">
              <span>VAT on invoices</span><strong>${money(v.vat_cents, v.currency)}</strong
              ><small>${n(v.invoices)} invoices, ${n(v.credit_notes)} credit notes; all dates</small>
            </div>`,
        )}
      </div>
      ${
        r.unpriced_payments
          ? html`<p class="flash bad" role="status">
            ${n(r.unpriced_payments)} payments have no known fee yet: fees and net are lower bounds until they do.
          </p>`
          : ''
      }
      <h2>By month (${r.timezone})</h2>
      <div class="table-wrap" tabindex="0" role="region" aria-label="Income by month">
        <table>
          <thead>
            <tr>
              <th scope="col">Month</th>
              ${cols.map(([h]) => html`<th scope="col" class="num">${h}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${r.months.map(
              (x) => html`<tr>
                <th scope="row">${monthLabel(x.month)}</th>
                ${cols.map(([, f]) => html`<td class="num">${f({ ...r, ...x })}</td>`)}
              </tr>`,
            )}
            <tr class="total">
              <th scope="row">Total</th>
              ${cols.map(([, f]) => html`<td class="num"><strong>${f(r)}</strong></td>`)}
            </tr>
          </tbody>
        </table>
      </div>
      <p class="hint">
        In ${r.currency.toUpperCase()}. Collected: what buyers paid less refunds. Net: collected less tax, processor and
        platform fees.
      </p>`;
  return consolePage({ title: 'Income', viewer, active: 'events', body });
}

export interface OrdersReportView {
  viewer: Viewer;
  /** the event's slug */
  event: string;
  /** the request's query string as typed (shown back in the form) */
  query: Record<string, string>;
  report: OrdersReport;
  saved: Awaited<ReturnType<typeof getSavedReports>>;
  /** the report's own parameters, which "Save report" keeps */
  savedQuery: string;
  flash: Flash | null;
  /** a refused save: the field's errors and the name as typed */
  errors?: FieldErrors;
  name?: string;
}

/** The orders report, its saved reports, and (for those who may) the form that saves it. */
export function ordersReportPage(v: OrdersReportView): string {
  const { viewer, report: r, saved } = v;
  const base = eventBase(viewer, v.event);
  const m = (c: number) => money(c, r.currency);
  const query = v.savedQuery;
  const write = can(viewer, 'events.write');
  const body = html`${eventTabs(viewer, v.event, 'reports')} ${reportNav(base, 'orders')}
      <form method="get" action="${base}/reports/orders" class="card filters" aria-label="Orders report">
        <div class="grid">
          ${select({
            name: 'group',
            label: 'Group by',
            value: r.group,
            options: GROUPS.map((g) => ({ value: g, label: GROUP_LABEL[g]! })),
          })}
          ${rangeFields(v.query)}
          ${select({
            name: 'status',
            label: 'Status',
            value: r.status,
            options: [
              { value: '', label: 'Any status' },
              ...['paid', 'pending', 'refunded', 'canceled'].map((s) => ({ value: s, label: s })),
            ],
          })}
          ${field({ name: 'audience', label: 'Audience (key, or -)', value: r.audience })}
          ${field({ name: 'code', label: 'Discount code (or -)', value: r.code })}
          ${select({
            name: 'paid',
            label: 'Orders',
            value: r.paid ? '1' : '',
            options: [
              { value: '', label: 'all' },
              { value: '1', label: 'only those that took money' },
            ],
          })}
        </div>
        <button type="submit">Show</button>
      </form>
      <div class="table-wrap" tabindex="0" role="region" aria-label="Orders report">
        <table>
          <caption class="skip">Orders grouped by ${GROUP_LABEL[r.group]}</caption>
          <thead>
            <tr>
              <th scope="col">${GROUP_LABEL[r.group]}</th>
              <th scope="col" class="num">Orders</th>
              <th scope="col" class="num">Tickets</th>
              <th scope="col" class="num">Gross</th>
              <th scope="col" class="num">Discounts</th>
              <th scope="col" class="num">Amount</th>
              <th scope="col" class="num">Refunds</th>
            </tr>
          </thead>
          <tbody>
            ${
              r.rows.length
                ? r.rows.map(
                    (x) => html`<tr>
                    <th scope="row">${x.key}</th>
                    <td class="num">${n(x.orders)}</td>
                    <td class="num">${n(x.units)}</td>
                    <td class="num">${m(x.gross_cents)}</td>
                    <td class="num">${m(x.discount_cents)}</td>
                    <td class="num">${m(x.amount_cents)}</td>
                    <td class="num">${m(x.refund_cents)}</td>
                  </tr>`,
                  )
                : html`<tr><td colspan="7">No orders in this range.</td></tr>`
            }
            <tr class="total">
              <th scope="row">Total</th>
              <td class="num"><strong>${n(r.totals.orders)}</strong></td>
              <td class="num"><strong>${n(r.totals.units)}</strong></td>
              <td class="num"><strong>${m(r.totals.gross_cents)}</strong></td>
              <td class="num"><strong>${m(r.totals.discount_cents)}</strong></td>
              <td class="num"><strong>${m(r.totals.amount_cents)}</strong></td>
              <td class="num"><strong>${m(r.totals.refund_cents)}</strong></td>
            </tr>
          </tbody>
        </table>
      </div>
      <p class="hint">In ${r.currency.toUpperCase()}, ${r.timezone}.</p>

      <h2>Saved reports</h2>
      ${
        saved.length
          ? html`<ul class="plain">
            ${saved.map(
              (s) => html`<li class="actions">
                <a href="${base}/reports/orders?${s.query.replace(/^\?/, '')}">${s.name}</a>
                <span class="muted">${s.query.replace(/^\?/, '') || 'the defaults'}</span>
                ${
                  write
                    ? buttonForm({
                        action: `${base}/reports/saved/${s.id}/delete`,
                        csrf: viewer.csrf,
                        label: 'Delete',
                        kind: 'danger',
                        ariaLabel: `Delete ${s.name}`,
                      })
                    : ''
                }
              </li>`,
            )}
          </ul>`
          : html`<p class="muted">None yet.</p>`
      }
      ${
        write
          ? html`<form method="post" action="${base}/reports/saved" class="card">
            ${hiddenCsrf(viewer.csrf)}
            <input type="hidden" name="query" value="${query}" />
            ${field({ name: 'name', label: 'Save this report as', value: v.name ?? '', errors: v.errors, required: true })}
            <button type="submit">Save report</button>
          </form>`
          : ''
      }`;
  return consolePage({ title: 'Orders report', viewer, active: 'events', flash: v.flash, body });
}
