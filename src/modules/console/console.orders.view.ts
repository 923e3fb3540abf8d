import { plainList } from './plain-words.ts';
import { money, when } from './formats.ts';
import { html, raw } from '../../platform/http/html.ts';
import { isFiltered, ORDER_STATUSES, type DeskEvent, type DeskList, type OrderFilter } from '../orders/order-desk.service.ts';
import { can, type Viewer } from './console.http.ts';
import {
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
import { eventBase, statusLabel, statusPill } from './console.order-desk.view.ts';
import { eventTabs } from './event-tabs.view.ts';
import { t } from './console-lang.ts';
import { count } from './formats.ts';

/**
 * The orders desk's list (search, filters, keyset pages, CSV links) and the form that issues a
 * complimentary order.
 */

/** The filter as query parameters (for paging and export links). */
function filterQuery(f: OrderFilter, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({
    q: f.q,
    status: f.status,
    ticket_type: f.ticket_type,
    code: f.code,
    from: f.from,
    to: f.to,
    ...extra,
  }))
    if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The list page; `query` is the request's query string as typed (shown back in the search form). */
export function ordersListPage(
  viewer: Viewer,
  list: DeskList,
  query: Record<string, string>,
  /** what the event lacks before its first order (asked for when it has none) */
  readiness?: SalesReadiness,
): string {
  const { event, ticketTypes, filter, errors } = list;
  const failed = Object.keys(errors).length > 0;
  const base = eventBase(viewer, event.slug);
  const raw_ = query;
  const tz = event.timezone;
  const m = t();
  // an event without any order: what it needs before the first, and no filters over nothing
  if (readiness)
    return consolePage({
      title: m.ordersOf(event.name),
      viewer,
      active: 'events',
      body: html`${eventTabs(viewer, event.slug, 'orders')} ${noOrdersYet(viewer, readiness)}`,
    });
  const body = html`${eventTabs(viewer, event.slug, 'orders')}
        <form method="get" action="${base}/orders" class="card filters" role="search" aria-label="${m.findOrders}">
          <div class="grid">
            ${field({
              name: 'q',
              label: m.search,
              value: raw_.q ?? '',
              errors,
              hint: m.searchHint,
              type: 'search',
            })}
            ${select({
              name: 'status',
              label: m.status,
              value: raw_.status ?? '',
              errors,
              options: [{ value: '', label: m.anyStatus }, ...ORDER_STATUSES.map((s) => ({ value: s, label: statusLabel(s) }))],
            })}
            ${select({
              name: 'ticket_type',
              label: m.ticketType,
              value: raw_.ticket_type ?? '',
              options: [{ value: '', label: m.anyTicketType }, ...ticketTypes.map((tt) => ({ value: tt.key, label: tt.name }))],
            })}
            ${field({ name: 'code', label: m.discountCode, value: raw_.code ?? '', hint: m.noCodeHint })}
            ${field({ name: 'from', label: m.placedFrom, type: 'date', value: raw_.from ?? '', errors })}
            ${field({ name: 'to', label: m.placedUntil, type: 'date', value: raw_.to ?? '', errors })}
          </div>
          <div class="actions">
            <button type="submit">${m.findOrders}</button>
            ${isFiltered(filter) || failed ? html`<a href="${base}/orders">${m.clear}</a>` : ''}
            <span class="spacer"></span>
            ${can(viewer, 'orders.write') ? html`<a class="button secondary" href="${base}/orders/new">${m.complimentaryOrder}</a>` : ''}
            <a class="button secondary" href="${base}/orders.csv${filterQuery(filter, { kind: 'orders' })}">${m.ordersCsv}</a>
            <a class="button secondary" href="${base}/orders.csv${filterQuery(filter, { kind: 'attendees' })}">${m.attendeesCsv}</a>
          </div>
        </form>
        ${
          list.orders.length
            ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.orders}">
              <table>
                <caption class="skip">${m.ordersCaption(isFiltered(filter))}</caption>
                <thead>
                  <tr>
                    <th scope="col">${m.colOrder}</th>
                    <th scope="col">${m.colBuyer}</th>
                    <th scope="col">${m.status}</th>
                    <th scope="col" class="num">${m.colTickets}</th>
                    <th scope="col" class="num">${m.colTotal}</th>
                    <th scope="col">${m.colPlaced}</th>
                  </tr>
                </thead>
                <tbody>
                  ${list.orders.map(
                    (o) => html`<tr>
                      <td><a href="${base}/orders/${encodeURIComponent(o.ref)}">${o.ref}</a></td>
                      <td>${o.name ?? ''}<div class="muted">${o.email ?? ''}</div></td>
                      <td>${statusPill(o.status)}</td>
                      <td class="num">${count(o.ticket_units)}</td>
                      <td class="num">${money(o.total_cents, o.currency)}${
                        o.refunded_cents
                          ? html`<div class="muted">${m.refundedAmount(money(o.refunded_cents, o.currency))}</div>`
                          : ''
                      }</td>
                      <td>${when(o.created_at, tz)}</td>
                    </tr>`,
                  )}
                </tbody>
              </table>
            </div>
            <nav class="actions pager" aria-label="${m.pages}">
              ${raw_.after ? html`<a class="button secondary" href="${base}/orders${filterQuery(filter)}">${m.newestOrders}</a>` : ''}
              ${
                list.next
                  ? html`<a class="button secondary" href="${base}/orders${filterQuery(filter, { after: list.next })}">${m.olderOrders}</a>`
                  : ''
              }
            </nav>`
            : failed
              ? html`<div class="card"><p>${m.checkSearch}</p></div>`
              : isFiltered(filter) || !readiness
                ? emptyState({
                    name: 'orders-match',
                    text: m.emptyNoMatch,
                    next: nextStep(`${base}/orders`, m.emptyClearFilters, 'secondary'),
                  })
                : noOrdersYet(viewer, readiness)
        }`;
  return consolePage({ title: m.ordersOf(event.name), viewer, active: 'events', body });
}

export interface CompOrderOptions {
  /** makes the form's submissions one order however often it is sent */
  nonce: string;
  form?: Record<string, string>;
  errors?: FieldErrors;
  flash?: Flash;
}

/** The complimentary order form: tickets at no charge, with a reason. */
export function compOrderPage(viewer: Viewer, desk: DeskEvent, opts: CompOrderOptions): string {
  const { event, ticketTypes } = desk;
  const base = eventBase(viewer, event.slug);
  const f = opts.form ?? {};
  const errs = opts.errors ?? {};
  const m = t();
  const body = html`${eventTabs(viewer, event.slug, 'orders')}
      <p><a href="${base}/orders">${m.allOrders}</a></p>
      <form method="post" action="${base}/orders/new" class="card">
        ${hiddenCsrf(viewer.csrf)}
        <input type="hidden" name="nonce" value="${opts.nonce}" />
        <fieldset class="plain-fieldset" ${errs.items ? raw('aria-describedby="items-err"') : ''}>
          <legend>${m.tickets}</legend>
          <div class="grid">
            ${ticketTypes
              .filter((tt) => !tt.archived)
              .map((tt) =>
                field({
                  name: `qty_${tt.id}`,
                  label: tt.name,
                  type: 'number',
                  value: f[`qty_${tt.id}`] ?? '0',
                  attrs: 'min="0" max="100" inputmode="numeric"',
                }),
              )}
          </div>
          ${errs.items ? html`<p class="error" id="items-err">${plainList(errs.items)}</p>` : ''}
        </fieldset>
        ${field({ name: 'name', label: m.compName, value: f.name ?? '', errors: errs, autocomplete: 'off' })}
        ${field({ name: 'email', label: m.compEmail, type: 'email', value: f.email ?? '', errors: errs, required: true })}
        <div class="field">
          <label for="f-reason">${m.reason}</label>
          <textarea id="f-reason" name="reason" rows="2" required ${errs.reason ? raw('aria-invalid="true" aria-describedby="f-reason-err"') : ''}>${f.reason ?? ''}</textarea>
          ${errs.reason ? html`<p class="error" id="f-reason-err">${plainList(errs.reason)}</p>` : html`<p class="hint">${m.compReasonHint}</p>`}
        </div>
        <button type="submit">${m.issueTickets}</button>
      </form>`;
  return consolePage({ title: m.complimentaryOrder, viewer, active: 'events', flash: opts.flash, body });
}
