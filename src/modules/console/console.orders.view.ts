import { plainList } from './plain-words.ts';
import { money, when } from './formats.ts';
import { html, raw } from '../../platform/http/html.ts';
import { isFiltered, ORDER_STATUSES, type DeskEvent, type DeskList, type OrderFilter } from '../orders/order-desk.service.ts';
import { can, type Viewer } from './console.http.ts';
import { consolePage, field, hiddenCsrf, select, type FieldErrors, type Flash } from './console-layout.view.ts';
import { eventBase, STATUS_LABEL, statusPill } from './console.order-desk.view.ts';
import { eventTabs } from './event-tabs.view.ts';

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
export function ordersListPage(viewer: Viewer, list: DeskList, query: Record<string, string>): string {
  const { event, ticketTypes, filter, errors } = list;
  const failed = Object.keys(errors).length > 0;
  const base = eventBase(viewer, event.slug);
  const raw_ = query;
  const tz = event.timezone;
  const body = html`${eventTabs(viewer, event.slug, 'orders')}
        <form method="get" action="${base}/orders" class="card filters" role="search" aria-label="Find orders">
          <div class="grid">
            ${field({
              name: 'q',
              label: 'Search',
              value: raw_.q ?? '',
              errors,
              hint: 'Order or ticket reference, buyer name, or email',
              type: 'search',
            })}
            ${select({
              name: 'status',
              label: 'Status',
              value: raw_.status ?? '',
              errors,
              options: [
                { value: '', label: 'Any status' },
                ...ORDER_STATUSES.map((s) => ({ value: s, label: STATUS_LABEL[s]! })),
              ],
            })}
            ${select({
              name: 'ticket_type',
              label: 'Ticket type',
              value: raw_.ticket_type ?? '',
              options: [{ value: '', label: 'Any ticket type' }, ...ticketTypes.map((t) => ({ value: t.key, label: t.name }))],
            })}
            ${field({ name: 'code', label: 'Discount code', value: raw_.code ?? '', hint: '"-" for orders without a code' })}
            ${field({ name: 'from', label: 'Placed from', type: 'date', value: raw_.from ?? '', errors })}
            ${field({ name: 'to', label: 'Placed until', type: 'date', value: raw_.to ?? '', errors })}
          </div>
          <div class="actions">
            <button type="submit">Find orders</button>
            ${isFiltered(filter) || failed ? html`<a href="${base}/orders">Clear</a>` : ''}
            <span class="spacer"></span>
            ${can(viewer, 'orders.write') ? html`<a class="button secondary" href="${base}/orders/new">Complimentary order</a>` : ''}
            <a class="button secondary" href="${base}/orders.csv${filterQuery(filter, { kind: 'orders' })}">Orders CSV</a>
            <a class="button secondary" href="${base}/orders.csv${filterQuery(filter, { kind: 'attendees' })}">Attendees CSV</a>
          </div>
        </form>
        ${
          list.orders.length
            ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Orders">
              <table>
                <caption class="skip">Orders${isFiltered(filter) ? ' matching the search' : ''}, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Order</th>
                    <th scope="col">Buyer</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">Tickets</th>
                    <th scope="col" class="num">Total</th>
                    <th scope="col">Placed</th>
                  </tr>
                </thead>
                <tbody>
                  ${list.orders.map(
                    (o) => html`<tr>
                      <td><a href="${base}/orders/${encodeURIComponent(o.ref)}">${o.ref}</a></td>
                      <td>${o.name ?? ''}<div class="muted">${o.email ?? ''}</div></td>
                      <td>${statusPill(o.status)}</td>
                      <td class="num">${o.ticket_units}</td>
                      <td class="num">${money(o.total_cents, o.currency)}${
                        o.refunded_cents ? html`<div class="muted">refunded ${money(o.refunded_cents, o.currency)}</div>` : ''
                      }</td>
                      <td>${when(o.created_at, tz)}</td>
                    </tr>`,
                  )}
                </tbody>
              </table>
            </div>
            <nav class="actions pager" aria-label="Pages">
              ${raw_.after ? html`<a class="button secondary" href="${base}/orders${filterQuery(filter)}">Newest orders</a>` : ''}
              ${
                list.next
                  ? html`<a class="button secondary" href="${base}/orders${filterQuery(filter, { after: list.next })}">Older orders</a>`
                  : ''
              }
            </nav>`
            : html`<div class="card">
              <p>${failed ? 'Check the search above.' : isFiltered(filter) ? 'No orders match.' : 'No orders yet.'}</p>
            </div>`
        }`;
  return consolePage({ title: `Orders · ${event.name}`, viewer, active: 'events', body });
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
  const body = html`${eventTabs(viewer, event.slug, 'orders')}
      <p><a href="${base}/orders">← All orders</a></p>
      <form method="post" action="${base}/orders/new" class="card">
        ${hiddenCsrf(viewer.csrf)}
        <input type="hidden" name="nonce" value="${opts.nonce}" />
        <fieldset class="plain-fieldset" ${errs.items ? raw('aria-describedby="items-err"') : ''}>
          <legend>Tickets</legend>
          <div class="grid">
            ${ticketTypes
              .filter((t) => !t.archived)
              .map((t) =>
                field({
                  name: `qty_${t.id}`,
                  label: t.name,
                  type: 'number',
                  value: f[`qty_${t.id}`] ?? '0',
                  attrs: 'min="0" max="100" inputmode="numeric"',
                }),
              )}
          </div>
          ${errs.items ? html`<p class="error" id="items-err">${plainList(errs.items)}</p>` : ''}
        </fieldset>
        ${field({ name: 'name', label: 'Name', value: f.name ?? '', errors: errs, autocomplete: 'off' })}
        ${field({ name: 'email', label: 'Email (the tickets go here)', type: 'email', value: f.email ?? '', errors: errs, required: true })}
        <div class="field">
          <label for="f-reason">Reason</label>
          <textarea id="f-reason" name="reason" rows="2" required ${errs.reason ? raw('aria-invalid="true" aria-describedby="f-reason-err"') : ''}>${f.reason ?? ''}</textarea>
          ${errs.reason ? html`<p class="error" id="f-reason-err">${plainList(errs.reason)}</p>` : html`<p class="hint">Kept in the order's log, with your name.</p>`}
        </div>
        <button type="submit">Issue the tickets</button>
      </form>`;
  return consolePage({ title: 'Complimentary order', viewer, active: 'events', flash: opts.flash, body });
}
