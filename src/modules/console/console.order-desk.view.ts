import { money, when } from './formats.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { DeskActivity, DeskOrderDetail } from '../orders/order-desk.service.ts';
import { can, type Viewer } from './console.http.ts';
import { buttonForm, checkbox, consolePage, field, hiddenCsrf, type FieldErrors, type Flash } from './console-layout.view.ts';
import { eventTabs } from './event-tabs.view.ts';
import { seatText } from '../orders/seat-text.ts';

/**
 * One order on the console's orders desk: everything that happened to it and the actions the
 * person's role allows; and the confirmation a refund asks for first (money moves).
 */

/** Where an event's console pages live (the orders desk hangs below it). */
export const eventBase = (v: Viewer, slug: string) =>
  `/console/a/${encodeURIComponent(v.account!.slug)}/events/${encodeURIComponent(slug)}`;

/** A moment in the event's timezone, as the desk shows times. */

export const STATUS_LABEL: Record<string, string> = {
  pending: 'Pending',
  paid: 'Paid',
  refunded: 'Refunded',
  canceled: 'Canceled',
};
export const statusPill = (status: string): SafeHtml =>
  html`<span class="pill status-${status}">${STATUS_LABEL[status] ?? status}</span>`;

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
    case 'refunded': {
      const amount = typeof d.amount_cents === 'number' ? money(d.amount_cents, currency) : '';
      const tickets = Array.isArray(d.tickets) ? d.tickets.map(String) : [];
      const what = d.partial
        ? `Partly refunded ${amount}${tickets.length ? `; tickets void: ${tickets.join(', ')}` : '; the tickets stay valid'}`
        : `Refunded ${amount}`;
      return `${what}${d.simulated ? ' (sandbox)' : ''}${typeof d.reason === 'string' ? `. Reason: ${d.reason}` : ''}`;
    }
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

/** What the page says after an action redirected back to it (`?done=`). */
const ORDER_DONE: Record<string, string> = {
  buyer: 'The buyer was saved.',
  'resent-tickets': 'The tickets are on their way again.',
  'resent-link': 'The pay link is on its way again.',
  canceled: 'The order was canceled; its places are back on sale.',
  refunded: 'Refunded. The buyer is told by mail.',
  'partly-refunded': 'Part of the order was refunded. The buyer is told by mail.',
  'already-refunded': 'This refund had already been made: nothing more was done.',
  comp: 'The complimentary order was issued; the tickets are on their way.',
};

export function orderDoneFlash(done: string | undefined): Flash | null {
  return done && ORDER_DONE[done] ? { kind: 'ok', text: ORDER_DONE[done]! } : null;
}

export interface OrderPageOptions {
  flash?: Flash | null;
  errors?: FieldErrors;
  /** the buyer's fields as sent, when saving them was refused */
  buyer?: { name: string; email: string };
}

/** The order's page: summary, lines, payments and refunds, tickets with check-ins, answers, activity, actions. */
export function orderDeskPage(
  viewer: Viewer,
  d: DeskOrderDetail & { event: { slug: string; timezone: string } },
  opts: OrderPageOptions = {},
): string {
  const { order, view, event } = d;
  const tz = event.timezone;
  const seatOf = (ref: string) => {
    const seat = view.seats.find((x) => x.ticket === ref);
    return seat ? html`<br /><small>${seatText(seat)}</small>` : '';
  };
  const amount = (c: number) => money(c, order.currency);
  const here = `${eventBase(viewer, event.slug)}/orders/${encodeURIComponent(order.ref)}`;
  const write = can(viewer, 'orders.write');
  const balance = order.total_cents - order.refunded_cents;
  const refundable =
    order.status === 'paid' && balance > 0 && d.payments.some((x) => x.status === 'succeeded' && x.amount_cents > 0);
  const body = html`${eventTabs(viewer, event.slug, 'orders')}
      <p><a href="${eventBase(viewer, event.slug)}/orders">← All orders</a></p>
      <div class="card summary">
        <p class="big-line">${statusPill(order.status)} <strong>${amount(order.total_cents)}</strong>
          ${order.refunded_cents ? html`<span class="muted">· refunded ${amount(order.refunded_cents)}</span>` : ''}</p>
        <dl class="facts">
          <div><dt>Buyer</dt><dd>${order.name ?? '—'}<br />${order.email ?? ''}</dd></div>
          <div><dt>Placed</dt><dd>${when(order.created_at, tz)}</dd></div>
          ${order.paid_at ? html`<div><dt>Paid</dt><dd>${when(order.paid_at, tz)}</dd></div>` : ''}
          ${order.status === 'pending' && order.expires_at ? html`<div><dt>Held until</dt><dd>${when(order.expires_at, tz)}</dd></div>` : ''}
          <div><dt>Channel</dt><dd>${order.channel}</dd></div>
          ${order.paid_at ? html`<div><dt>Invoices</dt><dd><a href="${here}/invoices">Invoices and credit notes</a></dd></div>` : ''}
        </dl>
      </div>

      <h2>Lines</h2>
      <div class="table-wrap" tabindex="0" role="region" aria-label="Lines">
        <table>
          <thead><tr><th scope="col">Item</th><th scope="col" class="num">Quantity</th><th scope="col" class="num">Unit price</th><th scope="col" class="num">Total</th></tr></thead>
          <tbody>
            ${view.lines.map(
              (l) =>
                html`<tr><td>${l.name}</td><td class="num">${l.quantity}</td><td class="num">${amount(l.unit_price_cents)}</td><td class="num">${amount(l.total_cents)}</td></tr>`,
            )}
            ${view.discounts.map(
              (x) =>
                html`<tr><td>Discount <code>${x.code}</code></td><td></td><td></td><td class="num">−${amount(x.amount_cents)}</td></tr>`,
            )}
            <tr>
              <td><strong>Total</strong></td><td></td><td></td><td class="num"><strong>${amount(order.total_cents)}</strong></td></tr>
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
                  <td class="num">${money(x.amount_cents, x.currency)}</td><td>${when(x.created_at, tz)}</td></tr>`,
              )}
              ${d.refunds.map(
                (
                  x,
                ) => html`<tr><td>Refund${x.simulated ? ' (sandbox)' : ''}${x.error ? html`<div class="error">${x.error}</div>` : ''}</td><td>${x.status}</td>
                  <td class="num">${money(x.amount_cents, x.currency)}</td><td>${when(x.completed_at ?? x.created_at, tz)}</td></tr>`,
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
                (
                  t,
                ) => html`<tr><td>${t.ref}</td><td>${t.ticket_type}${seatOf(t.ref)}</td><td>${t.attendee_name ?? order.name ?? ''}</td><td>${t.status}</td>
                  <td>${
                    t.checkins.length
                      ? t.checkins.map(
                          (c) =>
                            html`<div>${c.conflict ? 'refused scan' : 'in'} · ${c.list} · ${when(c.at, tz)}${c.offline ? ' (scanned offline, uploaded later)' : ''}</div>`,
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
              ${refundable ? html`<a class="button danger-link" href="${here}/refund">Refund…</a>` : ''}
            </div>`
          : ''
      }`;
  return consolePage({ title: `Order ${order.ref}`, viewer, active: 'events', flash: opts.flash, body });
}
