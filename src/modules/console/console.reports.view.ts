import { count, money } from './formats.ts';
import { formatTag, t } from './console-lang.ts';
import type { ConsoleMessages } from '../i18n/i18n.ts';
import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import { dateTimeFormat } from '../../platform/time.ts';
import type { IncomeReport } from '../reports/income.service.ts';
import type { InvoicedVat } from '../invoices/invoices.service.ts';
import { GROUPS, type OrdersReport } from '../reports/orders-report.service.ts';
import type { getSavedReports } from '../reports/reports.service.ts';
import { can, type Viewer } from './console.http.ts';
import {
  buttonForm,
  consolePage,
  emptyState,
  field,
  hiddenCsrf,
  nextStep,
  select,
  type FieldErrors,
  type Flash,
} from './console-layout.view.ts';
import type { SalesReadiness } from './console-events.service.ts';
import { noOrdersYet } from './empty-states.view.ts';
import { eventBase } from './console.order-desk.view.ts';
import { eventTabs } from './event-tabs.view.ts';

/**
 * The console's report pages: income with its month table, and the orders report with its
 * groupings, range and filters and the event's saved reports. The forms are GET forms, so a
 * report is a link that can be shared.
 */

const RANGES: Array<{ value: string; label: (m: ConsoleMessages) => string }> = [
  { value: '30d', label: (m) => m.rpLast30Days },
  { value: '7d', label: (m) => m.rpLast7Days },
  { value: '24h', label: (m) => m.rpLast24Hours },
  { value: 'month', label: (m) => m.rpThisMonth },
  { value: 'all', label: (m) => m.rpAllTime },
  { value: 'custom', label: (m) => m.rpCustom },
];
const GROUP_LABEL: Record<string, (m: ConsoleMessages) => string> = {
  day: (m) => m.rpDay,
  week: (m) => m.rpWeek,
  month: (m) => m.rpMonth,
  audience: (m) => m.rpAudience,
  status: (m) => m.status,
  code: (m) => m.discountCode,
};
/** An order's status as the report's filter and its status rows say it ("paid", "bezahlt"). */
const STATUS_WORD: Record<string, (m: ConsoleMessages) => string> = {
  paid: (m) => m.statusPaid,
  pending: (m) => m.statusPending,
  refunded: (m) => m.statusRefunded,
  canceled: (m) => m.statusCanceled,
};
const statusWord = (s: string) => STATUS_WORD[s]?.(t()).toLowerCase() ?? s;
const n = count;
const orders = (c: number) => t().rpOrderCount(c, n(c));

function monthLabel(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return dateTimeFormat(formatTag(), { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(Date.UTC(y, m - 1, 1));
}

function reportNav(base: string, active: 'income' | 'orders'): SafeHtml {
  const m = t();
  return html`<nav class="segmented report-nav" aria-label="${m.rpNav}">
    <a href="${base}/reports" ${active === 'income' ? raw('aria-current="page"') : ''}>${m.rpIncome}</a>
    <a href="${base}/reports/orders" ${active === 'orders' ? raw('aria-current="page"') : ''}>${m.rpOrdersReport}</a>
  </nav>`;
}

const rangeOf = (q: Record<string, string>) => q.range || '30d';
/** The same report over all time (its other choices kept). */
function allTime(q: Record<string, string>): string {
  const next = new URLSearchParams(Object.entries(q).filter(([k]) => !['range', 'from', 'to', 'done'].includes(k)));
  next.set('range', 'all');
  return next.toString();
}

/** A range without orders (the event has some): say so, and offer all time. */
function nothingInRange(href: string, q: Record<string, string>): SafeHtml {
  const m = t();
  return emptyState({
    name: 'range',
    text: m.emptyInRange,
    next: rangeOf(q) === 'all' ? undefined : nextStep(`${href}?${allTime(q)}`, m.emptyAllTime, 'secondary'),
  });
}

/** The range fields both reports share. */
function rangeFields(q: Record<string, string>): SafeHtml {
  const m = t();
  const ranges = RANGES.map((r) => ({ value: r.value, label: r.label(m) }));
  return html`${select({ name: 'range', label: m.rpRange, value: q.range || '30d', options: ranges })}
    ${field({ name: 'from', label: m.rpFrom, type: 'date', value: q.from ?? '' })}
    ${field({ name: 'to', label: m.rpTo, type: 'date', value: q.to ?? '' })}
    ${select({
      name: 'on',
      label: m.rpCountBy,
      value: q.on === 'started' ? 'started' : 'paid',
      options: [
        { value: 'paid', label: m.rpWhenPaid },
        { value: 'started', label: m.rpWhenPlaced },
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
  /** given when the event has no orders at all: what it lacks before its first */
  readiness?: SalesReadiness,
): string {
  const base = eventBase(viewer, event);
  const w = t();
  const m = (c: number) => money(c, r.currency);
  const cols: Array<[string, (x: IncomeReport) => string]> = [
    [w.rpOrders, (x) => n(x.orders)],
    [w.rpGross, (x) => m(x.gross_cents)],
    [w.rpDiscounts, (x) => m(x.discount_cents)],
    [w.rpRefunds, (x) => m(x.refund_cents)],
    [w.rpCollected, (x) => m(x.collected_cents)],
    [w.rpTax, (x) => m(x.tax_cents)],
    [w.rpFees, (x) => m(x.fees_cents)],
    [w.rpPlatformFees, (x) => m(x.platform_fee_cents)],
    [w.rpNet, (x) => m(x.net_cents)],
    [w.rpPending, (x) => m(x.pending_cents)],
  ];
  const body = html`${eventTabs(viewer, event, 'reports')} ${reportNav(base, 'income')}
      ${readiness ? noOrdersYet(viewer, readiness) : ''}
      <form method="get" action="${base}/reports" class="card filters" aria-label="${w.rpIncomeRange}">
        <div class="grid">${rangeFields(query)}</div>
        <button type="submit">${w.rpShow}</button>
      </form>
      <div class="stats-row">
        <div class="stat-card"><span>${w.rpNet}</span><strong>${m(r.net_cents)}</strong><small>${w.rpAfterFees}</small></div>
        <div class="stat-card"><span>${w.rpCollected}</span><strong>${m(r.collected_cents)}</strong><small>${orders(r.orders)}</small></div>
        <div class="stat-card"><span>${w.rpRefunded}</span><strong>${m(r.refund_cents)}</strong><small>${orders(r.refunded_orders)}</small></div>
        <div class="stat-card"><span>${w.rpPending}</span><strong>${m(r.pending_cents)}</strong><small>${w.rpOnHold(orders(r.pending_orders))}</small></div>
        ${vat.map(
          (v) =>
            html`<div class="stat-card" data-invoiced-vat="${v.currency}">
              <span>${w.rpVatOnInvoices}</span><strong>${money(v.vat_cents, v.currency)}</strong
              ><small>${w.rpInvoicesAndCredits(n(v.invoices), n(v.credit_notes))}</small>
            </div>`,
        )}
      </div>
      ${r.unpriced_payments ? html`<p class="flash bad" role="status">${w.rpUnpriced(n(r.unpriced_payments))}</p>` : ''}
      ${!readiness && !r.months.length ? nothingInRange(`${base}/reports`, query) : ''}
      <h2>${w.rpByMonth(r.timezone)}</h2>
      <div class="table-wrap" tabindex="0" role="region" aria-label="${w.rpIncomeByMonth}">
        <table>
          <thead>
            <tr>
              <th scope="col">${w.rpMonth}</th>
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
              <th scope="row">${w.rpTotal}</th>
              ${cols.map(([, f]) => html`<td class="num"><strong>${f(r)}</strong></td>`)}
            </tr>
          </tbody>
        </table>
      </div>
      <p class="hint">${w.rpIncomeHint(r.currency.toUpperCase())}</p>`;
  return consolePage({ title: w.rpIncome, viewer, active: 'events', body });
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
  /** given when the event has no orders at all: what it lacks before its first */
  readiness?: SalesReadiness;
}

/** The orders report, its saved reports, and (for those who may) the form that saves it. */
export function ordersReportPage(v: OrdersReportView): string {
  const { viewer, report: r, saved } = v;
  const base = eventBase(viewer, v.event);
  const w = t();
  const m = (c: number) => money(c, r.currency);
  const groupLabel = GROUP_LABEL[r.group]!(w);
  const rowKey = (key: string) => (r.group === 'status' ? statusWord(key) : key);
  const query = v.savedQuery;
  const write = can(viewer, 'events.write');
  const body = html`${eventTabs(viewer, v.event, 'reports')} ${reportNav(base, 'orders')}
      ${v.readiness ? noOrdersYet(viewer, v.readiness) : ''}
      <form method="get" action="${base}/reports/orders" class="card filters" aria-label="${w.rpOrdersReport}">
        <div class="grid">
          ${select({
            name: 'group',
            label: w.rpGroupBy,
            value: r.group,
            options: GROUPS.map((g) => ({ value: g, label: GROUP_LABEL[g]!(w) })),
          })}
          ${rangeFields(v.query)}
          ${select({
            name: 'status',
            label: w.status,
            value: r.status,
            options: [
              { value: '', label: w.rpAnyStatus },
              ...['paid', 'pending', 'refunded', 'canceled'].map((s) => ({ value: s, label: statusWord(s) })),
            ],
          })}
          ${field({ name: 'audience', label: w.rpAudienceFilter, value: r.audience })}
          ${field({ name: 'code', label: w.rpCodeFilter, value: r.code })}
          ${select({
            name: 'paid',
            label: w.rpOrders,
            value: r.paid ? '1' : '',
            options: [
              { value: '', label: w.rpAllOrders },
              { value: '1', label: w.rpOnlyPaid },
            ],
          })}
        </div>
        <button type="submit">${w.rpShow}</button>
      </form>
      <div class="table-wrap" tabindex="0" role="region" aria-label="${w.rpOrdersReport}">
        <table>
          <caption class="skip">${w.rpGroupedBy(groupLabel)}</caption>
          <thead>
            <tr>
              <th scope="col">${groupLabel}</th>
              <th scope="col" class="num">${w.rpOrders}</th>
              <th scope="col" class="num">${w.tickets}</th>
              <th scope="col" class="num">${w.rpGross}</th>
              <th scope="col" class="num">${w.rpDiscounts}</th>
              <th scope="col" class="num">${w.rpAmount}</th>
              <th scope="col" class="num">${w.rpRefunds}</th>
            </tr>
          </thead>
          <tbody>
            ${
              r.rows.length
                ? r.rows.map(
                    (x) => html`<tr>
                    <th scope="row">${rowKey(x.key)}</th>
                    <td class="num">${n(x.orders)}</td>
                    <td class="num">${n(x.units)}</td>
                    <td class="num">${m(x.gross_cents)}</td>
                    <td class="num">${m(x.discount_cents)}</td>
                    <td class="num">${m(x.amount_cents)}</td>
                    <td class="num">${m(x.refund_cents)}</td>
                  </tr>`,
                  )
                : html`<tr><td colspan="7">${w.rpNoOrders}${
                    !v.readiness && rangeOf(v.query) !== 'all'
                      ? html` <a href="${base}/reports/orders?${allTime(v.query)}">${w.emptyAllTime}</a>`
                      : ''
                  }</td></tr>`
            }
            <tr class="total">
              <th scope="row">${w.rpTotal}</th>
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
      <p class="hint">${w.rpCurrencyZone(r.currency.toUpperCase(), r.timezone)}</p>

      <h2>${w.rpSaved}</h2>
      ${
        saved.length
          ? html`<ul class="plain">
            ${saved.map(
              (s) => html`<li class="actions">
                <a href="${base}/reports/orders?${s.query.replace(/^\?/, '')}">${s.name}</a>
                <span class="muted">${s.query.replace(/^\?/, '') || w.rpTheDefaults}</span>
                ${
                  write
                    ? buttonForm({
                        action: `${base}/reports/saved/${s.id}/delete`,
                        csrf: viewer.csrf,
                        label: w.rpDelete,
                        kind: 'danger',
                        ariaLabel: w.rpDeleteNamed(s.name),
                      })
                    : ''
                }
              </li>`,
            )}
          </ul>`
          : html`<p class="muted" data-empty="saved-reports">${write ? w.emptySaved : w.emptySavedReadOnly}</p>`
      }
      ${
        write
          ? html`<form method="post" action="${base}/reports/saved" class="card">
            ${hiddenCsrf(viewer.csrf)}
            <input type="hidden" name="query" value="${query}" />
            ${field({ name: 'name', label: w.rpSaveAs, value: v.name ?? '', errors: v.errors, required: true })}
            <button type="submit">${w.rpSaveReport}</button>
          </form>`
          : ''
      }`;
  return consolePage({ title: w.rpOrdersReport, viewer, active: 'events', flash: v.flash, body });
}
