import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { html, raw } from '../../platform/http/html.ts';
import { formatMoney } from '../../platform/money.ts';
import { orderDeskDetail, type DeskActivity } from '../orders/order-desk.service.ts';
import {
  deskEvent,
  isFiltered,
  ORDER_STATUSES,
  parseOrderFilter,
  searchOrders,
  type OrderFilter,
} from '../orders/order-search.repo.ts';
import { csvKindOf, exportOrdersCsv } from '../orders/orders-csv.service.ts';
import { createCompOrder, patchBuyer } from '../orders/orders.service.ts';
import { cancelOrder } from '../payments/cancel-order.service.ts';
import { randomSecret } from '../../platform/secrets.ts';
import { resendOrderMail } from '../orders/resend.service.ts';
import { refundOrder } from '../refunds/refund-order.service.ts';
import { eventTabs } from './event-tabs.view.ts';
import {
  can,
  checkForm,
  principalOfViewer,
  requireRole,
  viewerOf,
  type Viewer,
  CONSOLE_FORM,
  CONSOLE_PAGE,
} from './console.http.ts';
import { send, see } from './console.http.ts';
import {
  buttonForm,
  checkbox,
  consolePage,
  field,
  hiddenCsrf,
  select,
  type FieldErrors,
  type Flash,
} from './console-layout.view.ts';
import { dateTimeFormat } from '../../platform/time.ts';

/**
 * The orders desk (issue 17): find an event's orders (search, filters, keyset pages, CSV), and one
 * order with everything that happened to it and what the person's role lets them do about it. The
 * actions call the same services as the API, acting as the signed-in person.
 */

type P = { account: string; event: string };
type PO = P & { ref: string };

const PER_PAGE = 50;

const when = (at: Date | string | null, tz: string) =>
  at ? dateTimeFormat('en-GB', { timeZone: tz, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at)) : '';

const STATUS_LABEL: Record<string, string> = { pending: 'Pending', paid: 'Paid', refunded: 'Refunded', canceled: 'Canceled' };
const statusPill = (status: string) => html`<span class="pill status-${status}">${STATUS_LABEL[status] ?? status}</span>`;

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

const EMPTY: OrderFilter = { q: '', status: '', ticket_type: '', code: '', from: '', to: '' };

/** What the log's actions mean to a person reading the order's history. */
function activityText(a: DeskActivity, currency: string): string {
  const d = a.detail;
  switch (a.action) {
    case 'created':
      return d.comp ? `Complimentary order issued: ${String(d.reason ?? '')}` : 'Order placed';
    case 'imported':
      return 'Imported from an account file';
    case 'paid':
      return 'Paid';
    case 'reinstated':
      return 'Paid late, order reinstated';
    case 'buyer_changed':
      return `Buyer changed (${[d.name ? 'name' : '', d.email ? 'email' : '', d.link_revoked ? 'order link revoked' : ''].filter(Boolean).join(', ') || 'no change'})`;
    case 'canceled':
      return 'Canceled';
    case 'expired':
      return 'Hold ended unpaid: canceled';
    case 'refunded':
      return `Refunded ${typeof d.amount_cents === 'number' ? formatMoney(d.amount_cents, currency) : ''}${d.simulated ? ' (sandbox)' : ''}`;
    case 'late_payment_refund_due':
      return 'A late payment came in: its refund is due';
    case 'late_payment_refunded':
      return 'The late payment was refunded';
    case 'resent':
      return d.sent === 'pay_link' ? 'Pay link sent again' : 'Tickets sent again';
    case 'checked_in':
      return `Checked in ${String(d.ticket ?? '')} at ${String(d.list ?? '')}`;
    case 'scan_refused':
      return `Scan of ${String(d.ticket ?? '')} at ${String(d.list ?? '')} did not admit (conflict)`;
    default:
      return a.action.replace(/_/g, ' ');
  }
}

export async function consoleOrdersRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const eventBase = (v: Viewer, slug: string) =>
    `/console/a/${encodeURIComponent(v.account!.slug)}/events/${encodeURIComponent(slug)}`;

  // ---- the list: search, filters, keyset pages
  app.get<{ Params: P; Querystring: Record<string, string> }>(
    '/console/a/:account/events/:event/orders',
    CONSOLE_PAGE,
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.read');
      const p = principalOfViewer(viewer);
      const { event, ticketTypes } = await deskEvent(ctx, p, request.params.event);
      let filter = EMPTY;
      let errors: FieldErrors = {};
      try {
        filter = parseOrderFilter(request.query);
      } catch (err) {
        if (!(err instanceof AppError) || !err.fields) throw err;
        errors = err.fields;
      }
      const failed = Object.keys(errors).length > 0;
      const found = failed
        ? { orders: [], next: null }
        : await searchOrders(ctx, p, event.slug, filter, request.query.after || undefined, PER_PAGE).catch((err: unknown) => {
            if (err instanceof AppError && err.fields) return { orders: [], next: null };
            throw err;
          });
      const base = eventBase(viewer, event.slug);
      const raw_ = request.query;
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
          found.orders.length
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
                  ${found.orders.map(
                    (o) => html`<tr>
                      <td><a href="${base}/orders/${encodeURIComponent(o.ref)}">${o.ref}</a></td>
                      <td>${o.name ?? ''}<div class="muted">${o.email ?? ''}</div></td>
                      <td>${statusPill(o.status)}</td>
                      <td class="num">${o.ticket_units}</td>
                      <td class="num">${formatMoney(o.total_cents, o.currency)}${
                        o.refunded_cents
                          ? html`<div class="muted">refunded ${formatMoney(o.refunded_cents, o.currency)}</div>`
                          : ''
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
                found.next
                  ? html`<a class="button secondary" href="${base}/orders${filterQuery(filter, { after: found.next })}">Older orders</a>`
                  : ''
              }
            </nav>`
            : html`<div class="card">
              <p>${failed ? 'Check the search above.' : isFiltered(filter) ? 'No orders match.' : 'No orders yet.'}</p>
            </div>`
        }`;
      return send(reply, consolePage({ title: `Orders · ${event.name}`, viewer, active: 'events', body }), failed ? 422 : 200);
    },
  );

  // ---- the same set as CSV, with the session
  app.get<{ Params: P; Querystring: Record<string, string> }>(
    '/console/a/:account/events/:event/orders.csv',
    { schema: { hide: true, querystring: CONSOLE_PAGE.schema.querystring } },
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.read');
      const filter = parseOrderFilter(request.query);
      const kind = csvKindOf(request.query.kind);
      const { filename, stream } = await exportOrdersCsv(ctx, principalOfViewer(viewer), request.params.event, kind, filter);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );

  // ---- a complimentary order: tickets at no charge, with a reason; one order however often the form is sent
  const compForm = async (
    request: FastifyRequest<{ Params: P }>,
    reply: FastifyReply,
    viewer: Viewer,
    opts: { form?: Record<string, string>; errors?: FieldErrors; flash?: Flash; status?: number } = {},
  ) => {
    const { event, ticketTypes } = await deskEvent(ctx, principalOfViewer(viewer), request.params.event);
    const base = eventBase(viewer, event.slug);
    const f = opts.form ?? {};
    const errs = opts.errors ?? {};
    const body = html`${eventTabs(viewer, event.slug, 'orders')}
      <p><a href="${base}/orders">← All orders</a></p>
      <form method="post" action="${base}/orders/new" class="card">
        ${hiddenCsrf(viewer.csrf)}
        <input type="hidden" name="nonce" value="${randomSecret(16)}" />
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
          ${errs.items ? html`<p class="error" id="items-err">${errs.items.join('; ')}</p>` : ''}
        </fieldset>
        ${field({ name: 'name', label: 'Name', value: f.name ?? '', errors: errs, autocomplete: 'off' })}
        ${field({ name: 'email', label: 'Email (the tickets go here)', type: 'email', value: f.email ?? '', errors: errs, required: true })}
        <div class="field">
          <label for="f-reason">Reason</label>
          <textarea id="f-reason" name="reason" rows="2" required ${errs.reason ? raw('aria-invalid="true" aria-describedby="f-reason-err"') : ''}>${f.reason ?? ''}</textarea>
          ${errs.reason ? html`<p class="error" id="f-reason-err">${errs.reason.join('; ')}</p>` : html`<p class="hint">Kept in the order's log, with your name.</p>`}
        </div>
        <button type="submit">Issue the tickets</button>
      </form>`;
    return send(
      reply,
      consolePage({ title: 'Complimentary order', viewer, active: 'events', flash: opts.flash, body }),
      opts.status ?? 200,
    );
  };

  app.get<{ Params: P }>('/console/a/:account/events/:event/orders/new', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.write');
    return compForm(request, reply, viewer);
  });

  app.post<{ Params: P }>('/console/a/:account/events/:event/orders/new', CONSOLE_FORM, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.write');
    const form = await checkForm(ctx, request, viewer);
    const items = Object.entries(form)
      .filter(([k]) => /^qty_\d{1,15}$/.test(k))
      .map(([k, v]) => ({ ticket_type_id: Number(k.slice(4)), quantity: /^\d{1,3}$/.test(v.trim()) ? Number(v.trim()) : -1 }));
    try {
      const { ref } = await createCompOrder(ctx, principalOfViewer(viewer), request.params.event, {
        items,
        name: form.name ?? '',
        email: form.email ?? '',
        reason: form.reason ?? '',
        nonce: `${viewer.account!.id}:${(form.nonce ?? '').slice(0, 64) || randomSecret(16)}`,
      });
      return see(reply, `${eventBase(viewer, request.params.event)}/orders/${encodeURIComponent(ref)}?done=comp`);
    } catch (err) {
      if (!(err instanceof AppError) || err.kind === 'internal' || err.kind === 'not_found') throw err;
      return compForm(request, reply, viewer, {
        form,
        errors: err.fields ?? {},
        flash: { kind: 'bad', text: err.fields ? 'Not issued: check the fields marked below.' : err.message },
        status: err.kind === 'conflict' ? 409 : 422,
      });
    }
  });

  // ---- one order
  const orderPage = async (
    request: FastifyRequest<{ Params: PO }>,
    reply: FastifyReply,
    viewer: Viewer,
    opts: { flash?: Flash | null; errors?: FieldErrors; buyer?: { name: string; email: string }; status?: number } = {},
  ) => {
    const d = await orderDeskDetail(ctx, principalOfViewer(viewer), request.params.event, request.params.ref);
    const { order, view } = d;
    const { event } = await deskEvent(ctx, principalOfViewer(viewer), request.params.event);
    const tz = event.timezone;
    const money = (c: number) => formatMoney(c, order.currency);
    const here = `${eventBase(viewer, event.slug)}/orders/${encodeURIComponent(order.ref)}`;
    const write = can(viewer, 'orders.write');
    const balance = order.total_cents - order.refunded_cents;
    const refundable =
      order.status === 'paid' && balance > 0 && d.payments.some((x) => x.status === 'succeeded' && x.amount_cents > 0);
    const body = html`${eventTabs(viewer, event.slug, 'orders')}
      <p><a href="${eventBase(viewer, event.slug)}/orders">← All orders</a></p>
      <div class="card summary">
        <p class="big-line">${statusPill(order.status)} <strong>${money(order.total_cents)}</strong>
          ${order.refunded_cents ? html`<span class="muted">· refunded ${money(order.refunded_cents)}</span>` : ''}</p>
        <dl class="facts">
          <div><dt>Buyer</dt><dd>${order.name ?? '—'}<br />${order.email ?? ''}</dd></div>
          <div><dt>Placed</dt><dd>${when(order.created_at, tz)}</dd></div>
          ${order.paid_at ? html`<div><dt>Paid</dt><dd>${when(order.paid_at, tz)}</dd></div>` : ''}
          ${order.status === 'pending' && order.expires_at ? html`<div><dt>Held until</dt><dd>${when(order.expires_at, tz)}</dd></div>` : ''}
          <div><dt>Channel</dt><dd>${order.channel}</dd></div>
        </dl>
      </div>

      <h2>Lines</h2>
      <div class="table-wrap" tabindex="0" role="region" aria-label="Lines">
        <table>
          <thead><tr><th scope="col">Item</th><th scope="col" class="num">Quantity</th><th scope="col" class="num">Unit price</th><th scope="col" class="num">Total</th></tr></thead>
          <tbody>
            ${view.lines.map(
              (l) =>
                html`<tr><td>${l.name}</td><td class="num">${l.quantity}</td><td class="num">${money(l.unit_price_cents)}</td><td class="num">${money(l.total_cents)}</td></tr>`,
            )}
            ${view.discounts.map(
              (x) =>
                html`<tr><td>Discount <code>${x.code}</code></td><td></td><td></td><td class="num">−${money(x.amount_cents)}</td></tr>`,
            )}
            <tr>
              <td><strong>Total</strong></td><td></td><td></td><td class="num"><strong>${money(order.total_cents)}</strong></td></tr>
          </tbody>
        </table>
      </div>

      <h2>Payments and refunds</h2>
      ${
        d.payments.length || d.refunds.length
          ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Payments and refunds"><table>
            <thead><tr><th scope="col">What</th><th scope="col">Status</th><th scope="col" class="num">Amount</th><th scope="col">When</th></tr></thead>
            <tbody>
              ${d.payments.map(
                (
                  x,
                ) => html`<tr><td>Payment · ${x.rail}${x.provider !== x.rail ? ` via ${x.provider}` : ''}${x.simulated && x.provider !== 'sandbox' ? ' (test)' : ''}</td><td>${x.status}</td>
                  <td class="num">${formatMoney(x.amount_cents, x.currency)}</td><td>${when(x.created_at, tz)}</td></tr>`,
              )}
              ${d.refunds.map(
                (
                  x,
                ) => html`<tr><td>Refund${x.simulated ? ' (sandbox)' : ''}${x.error ? html`<div class="error">${x.error}</div>` : ''}</td><td>${x.status}</td>
                  <td class="num">${formatMoney(x.amount_cents, x.currency)}</td><td>${when(x.completed_at ?? x.created_at, tz)}</td></tr>`,
              )}
            </tbody></table></div>`
          : html`<p class="muted">No payments: ${order.total_cents === 0 ? 'a free order.' : 'nothing has been paid yet.'}</p>`
      }

      <h2>Tickets</h2>
      ${
        d.tickets.length
          ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Tickets"><table>
            <thead><tr><th scope="col">Ticket</th><th scope="col">Type</th><th scope="col">Attendee</th><th scope="col">Status</th><th scope="col">Check-ins</th></tr></thead>
            <tbody>
              ${d.tickets.map(
                (t) => html`<tr><td>${t.ref}</td><td>${t.ticket_type}</td><td>${t.attendee_name ?? ''}</td><td>${t.status}</td>
                  <td>${
                    t.checkins.length
                      ? t.checkins.map(
                          (c) =>
                            html`<div>${c.conflict ? 'refused scan' : 'in'} · ${c.list} · ${when(c.at, tz)}${c.online ? '' : ' (offline)'}</div>`,
                        )
                      : html`<span class="muted">not yet</span>`
                  }</td></tr>`,
              )}
            </tbody></table></div>`
          : html`<p class="muted">${order.status === 'paid' ? 'This order has no tickets.' : 'Tickets are issued once the order is paid.'}</p>`
      }

      ${
        view.answers.length
          ? html`<h2>The buyer's answers</h2>
            <dl class="facts">
              ${(view.answers as Array<{ question?: string; key?: string; answer?: unknown; value?: unknown }>).map(
                (a) => html`<div><dt>${a.question ?? a.key ?? ''}</dt><dd>${String(a.answer ?? a.value ?? '')}</dd></div>`,
              )}
            </dl>`
          : ''
      }

      <h2>Activity</h2>
      <ol class="activity">
        ${d.activity.map(
          (a) =>
            html`<li><time datetime="${a.at.toISOString()}">${when(a.at, tz)}</time> ${activityText(a, order.currency)}${
              a.by ? html` <span class="muted">· ${a.by}</span>` : ''
            }</li>`,
        )}
      </ol>

      ${
        write
          ? html`<h2>Actions</h2>
            <div class="card">
              <h3>Buyer</h3>
              <form method="post" action="${here}/buyer">
                ${hiddenCsrf(viewer.csrf)}
                ${field({ name: 'name', label: 'Name', value: opts.buyer?.name ?? order.name ?? '', errors: opts.errors })}
                ${field({ name: 'email', label: 'Email', type: 'email', value: opts.buyer?.email ?? order.email ?? '', errors: opts.errors })}
                ${checkbox({ name: 'revoke_link', label: "Revoke the order's link (the buyer gets a new one when tickets are sent again)", checked: false })}
                <button type="submit">Save buyer</button>
              </form>
            </div>
            <div class="card actions">
              ${
                order.status === 'paid' || order.status === 'pending'
                  ? buttonForm({
                      action: `${here}/resend`,
                      csrf: viewer.csrf,
                      label: order.status === 'paid' ? 'Send tickets again' : 'Send pay link again',
                      kind: 'secondary',
                    })
                  : ''
              }
              ${order.status === 'pending' ? buttonForm({ action: `${here}/cancel`, csrf: viewer.csrf, label: 'Cancel order', kind: 'danger' }) : ''}
              ${refundable ? html`<a class="button danger-link" href="${here}/refund">Refund ${money(balance)}…</a>` : ''}
            </div>`
          : ''
      }`;
    return send(
      reply,
      consolePage({ title: `Order ${order.ref}`, viewer, active: 'events', flash: opts.flash, body }),
      opts.status ?? 200,
    );
  };

  app.get<{ Params: PO }>('/console/a/:account/events/:event/orders/:ref', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.read');
    const done = (request.query as Record<string, string>).done;
    const flash: Flash | null = done && ORDER_DONE[done] ? { kind: 'ok', text: ORDER_DONE[done]! } : null;
    return orderPage(request, reply, viewer, { flash });
  });

  /** An action's form: the person may write orders, the CSRF token holds; a refusal shows on the order page. */
  const action = (
    path: string,
    run: (request: FastifyRequest<{ Params: PO }>, viewer: Viewer, form: Record<string, string>) => Promise<string>,
  ) =>
    app.post<{ Params: PO }>(`/console/a/:account/events/:event/orders/:ref/${path}`, CONSOLE_FORM, async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.write');
      const form = await checkForm(ctx, request, viewer);
      // the order must be this event's (404 otherwise), whatever the action
      await orderDeskDetail(ctx, principalOfViewer(viewer), request.params.event, request.params.ref);
      try {
        const done = await run(request, viewer, form);
        return see(
          reply,
          `${eventBase(viewer, request.params.event)}/orders/${encodeURIComponent(request.params.ref)}?done=${done}`,
        );
      } catch (err) {
        if (!(err instanceof AppError) || err.kind === 'internal' || err.kind === 'not_found') throw err;
        return orderPage(request, reply, viewer, {
          flash: { kind: 'bad', text: err.message },
          errors: err.fields,
          buyer: path === 'buyer' ? { name: form.name ?? '', email: form.email ?? '' } : undefined,
          status: err.kind === 'upstream' ? 502 : err.kind === 'conflict' ? 409 : 422,
        });
      }
    });

  action('buyer', async (request, viewer, form) => {
    await patchBuyer(ctx, principalOfViewer(viewer), request.params.ref, {
      name: form.name ?? '',
      email: form.email ?? '',
      revoke_link: form.revoke_link === '1',
    });
    return 'buyer';
  });
  action('resend', async (request, viewer) => {
    const r = await resendOrderMail(ctx, viewer.account!.id, request.params.ref, () => true, viewer.session.email);
    return r.sent === 'tickets' ? 'resent-tickets' : 'resent-link';
  });
  action('cancel', async (request, viewer) => {
    await cancelOrder(ctx, principalOfViewer(viewer), request.params.ref);
    return 'canceled';
  });

  // ---- refund: a confirmation page first (money moves), then the refund, idempotent against double clicks
  app.get<{ Params: PO }>('/console/a/:account/events/:event/orders/:ref/refund', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.write');
    const { order, payments } = await orderDeskDetail(ctx, principalOfViewer(viewer), request.params.event, request.params.ref);
    const here = `${eventBase(viewer, request.params.event)}/orders/${encodeURIComponent(order.ref)}`;
    const balance = order.total_cents - order.refunded_cents;
    const payment = payments.find((x) => x.status === 'succeeded' && x.amount_cents > 0);
    return send(
      reply,
      consolePage({
        title: `Refund order ${order.ref}?`,
        viewer,
        active: 'events',
        body: html`<div class="card">
          <p>
            This refunds <strong>${formatMoney(balance, order.currency)}</strong> to ${order.name ?? order.email ?? 'the buyer'}
            through the order's own payment${payment ? html` (${payment.rail}${payment.simulated ? ', sandbox' : ''})` : ''}. The
            order's tickets become void and their places go back on sale. The buyer is told by mail.
          </p>
          <form method="post" action="${here}/refund" class="actions">
            ${hiddenCsrf(viewer.csrf)}
            <button type="submit" class="danger-solid">Refund ${formatMoney(balance, order.currency)}</button>
            <a href="${here}">Keep the order</a>
          </form>
        </div>`,
      }),
    );
  });
  action('refund', async (request, viewer) => {
    const p = principalOfViewer(viewer);
    const d = await orderDeskDetail(ctx, p, request.params.event, request.params.ref);
    const result = await refundOrder(ctx, {
      id: d.order.id,
      account_id: d.order.account_id,
      ref: d.order.ref,
      by: viewer.session.email,
    });
    return 'already' in result ? 'already-refunded' : 'refunded';
  });
}

const ORDER_DONE: Record<string, string> = {
  buyer: 'The buyer was saved.',
  'resent-tickets': 'The tickets are on their way again.',
  'resent-link': 'The pay link is on its way again.',
  canceled: 'The order was canceled; its places are back on sale.',
  refunded: 'Refunded. The buyer is told by mail.',
  'already-refunded': 'This order had already been refunded: nothing more was done.',
  comp: 'The complimentary order was issued; the tickets are on their way.',
};
