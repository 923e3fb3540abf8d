import { money, when } from './formats.ts';
import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import { canRefund, type DeskActivity, type DeskOrderDetail } from '../orders/order-desk.service.ts';
import { can, type Viewer } from './console.http.ts';
import { buttonForm, checkbox, consolePage, field, hiddenCsrf, type FieldErrors, type Flash } from './console-layout.view.ts';
import { eventTabs } from './event-tabs.view.ts';
import { seatText } from '../orders/seat-text.ts';
import { t } from './console-lang.ts';
import type { ConsoleMessages } from '../i18n/i18n.ts';

/**
 * One order on the console's orders desk: everything that happened to it and the actions the
 * person's role allows; and the confirmation a refund asks for first (money moves).
 */

/** Where an event's console pages live (the orders desk hangs below it). */
export const eventBase = (v: Viewer, slug: string) =>
  `/console/a/${encodeURIComponent(v.account!.slug)}/events/${encodeURIComponent(slug)}`;

/** A moment in the event's timezone, as the desk shows times. */

const STATUS_LABEL: Record<string, (m: ConsoleMessages) => string> = {
  pending: (m) => m.statusPending,
  paid: (m) => m.statusPaid,
  refunded: (m) => m.statusRefunded,
  canceled: (m) => m.statusCanceled,
};
/** An order's status as the console names it ("Paid", "Bezahlt"). */
export const statusLabel = (status: string): string =>
  Object.hasOwn(STATUS_LABEL, status) ? STATUS_LABEL[status]!(t()) : status;
export const statusPill = (status: string): SafeHtml => html`<span class="pill status-${status}">${statusLabel(status)}</span>`;

/** A ticket's or payment's state word in the console's language (the stored word when none is known). */
function stateWord(state: string): string {
  const m = t();
  const words: Record<string, string> = {
    valid: m.ticketValid,
    void: m.ticketVoid,
    succeeded: m.paymentSucceeded,
    pending: m.paymentPending,
    failed: m.paymentFailed,
  };
  return words[state] ?? state;
}

/** What the log's actions mean to a person reading the order's history. */
function activityText(a: DeskActivity, currency: string): string {
  const d = a.detail;
  const m = t();
  switch (a.action) {
    case 'created':
      return d.comp ? m.actCompIssued(String(d.reason ?? '')) : m.actPlaced;
    case 'imported':
      return m.actImported;
    case 'paid':
      return m.actPaid;
    case 'reinstated':
      return m.actReinstated;
    case 'buyer_changed':
      return m.actBuyerChanged(
        [d.name ? m.actWhatName : '', d.email ? m.actWhatEmail : '', d.link_revoked ? m.actWhatLink : '']
          .filter(Boolean)
          .join(', ') || m.actWhatNothing,
      );
    case 'canceled':
      return m.actCanceled;
    case 'expired':
      return m.actExpired;
    case 'refunded': {
      const amount = typeof d.amount_cents === 'number' ? money(d.amount_cents, currency) : '';
      const tickets = Array.isArray(d.tickets) ? d.tickets.map(String) : [];
      const what = d.partial
        ? `${m.actPartlyRefunded(amount)}${tickets.length ? m.actTicketsVoid(tickets.join(', ')) : m.actTicketsStay}`
        : m.actRefunded(amount);
      return `${what}${d.simulated ? m.actSandbox : ''}${typeof d.reason === 'string' ? m.actReason(d.reason) : ''}`;
    }
    case 'late_payment_refund_due':
      return m.actLateDue;
    case 'late_payment_refunded':
      return m.actLateRefunded;
    case 'invoice_requested':
      return m.actInvoiceRequested(String(d.invoice ?? ''), d.by === 'buyer');
    case 'invoice_reissued':
      return m.actInvoiceReissued(typeof d.credit === 'string' ? d.credit : '', typeof d.invoice === 'string' ? d.invoice : '');
    case 'resent':
      return d.sent === 'pay_link' ? m.actPayLinkResent : m.actTicketsResent;
    case 'message_sent':
      return m.actMessageSent(String(d.subject ?? ''));
    case 'checked_in':
      return m.actCheckedIn(String(d.ticket ?? ''), String(d.list ?? ''));
    case 'scan_refused':
      return m.actScanRefused(String(d.ticket ?? ''), String(d.list ?? ''));
    case 'attendee_changed':
      return m.actAttendeeChanged(String(d.ticket ?? ''), String(d.to ?? ''));
    case 'ticket_transferred':
      return m.actTransferred(String(d.ticket ?? ''), String(d.to ?? ''));
    case 'tickets_canceled':
      return m.actTicketsCanceled(Array.isArray(d.tickets) ? d.tickets.map(String).join(', ') : String(d.tickets ?? ''));
    default:
      return a.action.replace(/_/g, ' ');
  }
}

/** What the page says after an action redirected back to it (`?done=`). */
const ORDER_DONE: Record<string, (m: ConsoleMessages) => string> = {
  buyer: (m) => m.orderDoneBuyer,
  'resent-tickets': (m) => m.orderDoneResentTickets,
  'resent-link': (m) => m.orderDoneResentLink,
  canceled: (m) => m.orderDoneCanceled,
  refunded: (m) => m.orderDoneRefunded,
  'partly-refunded': (m) => m.orderDonePartlyRefunded,
  'already-refunded': (m) => m.orderDoneAlreadyRefunded,
  comp: (m) => m.orderDoneComp,
  attendee: (m) => m.orderDoneAttendee,
  transferred: (m) => m.orderDoneTransferred,
};

export function orderDoneFlash(done: string | undefined): Flash | null {
  return done && Object.hasOwn(ORDER_DONE, done) ? { kind: 'ok', text: ORDER_DONE[done]!(t()) } : null;
}

export interface OrderPageOptions {
  flash?: Flash | null;
  errors?: FieldErrors;
  /** the buyer's fields as sent, when saving them was refused */
  buyer?: { name: string; email: string };
  /** the attendee form as sent, when it was refused */
  attendee?: { ticket: string; name: string; email: string };
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
  const refundable = canRefund(d);
  const m = t();
  const body = html`${eventTabs(viewer, event.slug, 'orders')}
      <p><a href="${eventBase(viewer, event.slug)}/orders">${m.allOrders}</a></p>
      <div class="card summary">
        <p class="big-line">${statusPill(order.status)} <strong>${amount(order.total_cents)}</strong>
          ${order.refunded_cents ? html`<span class="muted">${m.refundedSoFarShort(amount(order.refunded_cents))}</span>` : ''}</p>
        <dl class="facts">
          <div><dt>${m.buyer}</dt><dd>${order.name ?? '—'}<br />${order.email ?? ''}</dd></div>
          <div><dt>${m.placed}</dt><dd>${when(order.created_at, tz)}</dd></div>
          ${order.paid_at ? html`<div><dt>${m.paid}</dt><dd>${when(order.paid_at, tz)}</dd></div>` : ''}
          ${order.status === 'pending' && order.expires_at ? html`<div><dt>${m.heldUntil}</dt><dd>${when(order.expires_at, tz)}</dd></div>` : ''}
          <div><dt>${m.channel}</dt><dd>${order.channel}</dd></div>
          ${order.paid_at ? html`<div><dt>${m.invoices}</dt><dd><a href="${here}/invoices">${m.invoicesAndCreditNotes}</a></dd></div>` : ''}
        </dl>
      </div>

      <h2>${m.lines}</h2>
      <div class="table-wrap" tabindex="0" role="region" aria-label="${m.lines}">
        <table>
          <thead><tr><th scope="col">${m.item}</th><th scope="col" class="num">${m.quantity}</th><th scope="col" class="num">${m.unitPrice}</th><th scope="col" class="num">${m.total}</th></tr></thead>
          <tbody>
            ${view.lines.map(
              (l) =>
                html`<tr><td>${l.name}</td><td class="num">${l.quantity}</td><td class="num">${amount(l.unit_price_cents)}</td><td class="num">${amount(l.total_cents)}</td></tr>`,
            )}
            ${view.discounts.map(
              (x) =>
                html`<tr><td>${m.discount} <code>${x.code}</code></td><td></td><td></td><td class="num">−${amount(x.amount_cents)}</td></tr>`,
            )}
            <tr>
              <td><strong>${m.total}</strong></td><td></td><td></td><td class="num"><strong>${amount(order.total_cents)}</strong></td></tr>
          </tbody>
        </table>
      </div>

      <h2>${m.paymentsAndRefunds}</h2>
      ${
        d.payments.length || d.refunds.length
          ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.paymentsAndRefunds}"><table>
            <thead><tr><th scope="col">${m.what}</th><th scope="col">${m.status}</th><th scope="col" class="num">${m.amount}</th><th scope="col">${m.whenCol}</th></tr></thead>
            <tbody>
              ${d.payments.map(
                (
                  x,
                ) => html`<tr><td>${m.payment} · ${x.rail}${x.provider !== x.rail ? m.via(x.provider) : ''}${x.simulated && x.provider !== 'sandbox' ? m.test : ''}</td><td>${stateWord(x.status)}</td>
                  <td class="num">${money(x.amount_cents, x.currency)}</td><td>${when(x.created_at, tz)}</td></tr>`,
              )}
              ${d.refunds.map(
                (
                  x,
                ) => html`<tr><td>${m.refund}${x.simulated ? m.actSandbox : ''}${x.error ? html`<div class="error">${x.error}</div>` : ''}</td><td>${stateWord(x.status)}</td>
                  <td class="num">${money(x.amount_cents, x.currency)}</td><td>${when(x.completed_at ?? x.created_at, tz)}</td></tr>`,
              )}
            </tbody></table></div>`
          : html`<p class="muted">${order.total_cents === 0 ? m.noPaymentsFree : m.noPaymentsYet}</p>`
      }

      <h2>${m.tickets}</h2>
      ${
        d.tickets.length
          ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.tickets}"><table>
            <thead><tr><th scope="col">${m.ticket}</th><th scope="col">${m.type}</th><th scope="col">${m.attendee}</th><th scope="col">${m.status}</th><th scope="col">${m.checkIns}</th></tr></thead>
            <tbody>
              ${d.tickets.map(
                (
                  tk,
                ) => html`<tr><td>${tk.ref}</td><td>${tk.ticket_type}${seatOf(tk.ref)}</td><td>${tk.attendee_name ?? order.name ?? ''}${tk.attendee_email ? html`<br /><span class="muted">${tk.attendee_email}</span>` : ''}${tk.transferred ? html` <span class="badge">${m.passedOnShort}</span>` : ''}</td><td>${stateWord(tk.status)}</td>
                  <td>${
                    tk.checkins.length
                      ? tk.checkins.map(
                          (c) =>
                            html`<div>${c.conflict ? m.refusedScan : m.checkedInShort} · ${c.list} · ${when(c.at, tz)}${c.offline ? m.scannedOffline : ''}</div>`,
                        )
                      : html`<span class="muted">${m.notYet}</span>`
                  }</td></tr>`,
              )}
            </tbody></table></div>`
          : html`<p class="muted">${order.status === 'paid' ? m.noTickets : m.ticketsOncePaid}</p>`
      }

      ${
        view.answers.length
          ? html`<h2>${m.buyersAnswers}</h2>
            <dl class="facts">
              ${(view.answers as Array<{ question?: string; key?: string; answer?: unknown; value?: unknown }>).map(
                (a) => html`<div><dt>${a.question ?? a.key ?? ''}</dt><dd>${String(a.answer ?? a.value ?? '')}</dd></div>`,
              )}
            </dl>`
          : ''
      }

      <h2>${m.activity}</h2>
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
          ? html`<h2>${m.actions}</h2>
            <div class="card">
              <h3>${m.buyer}</h3>
              <form method="post" action="${here}/buyer">
                ${hiddenCsrf(viewer.csrf)}
                ${field({ name: 'name', label: m.compName, value: opts.buyer?.name ?? order.name ?? '', errors: opts.errors })}
                ${field({ name: 'email', label: m.email, type: 'email', value: opts.buyer?.email ?? order.email ?? '', errors: opts.errors })}
                ${checkbox({ name: 'revoke_link', label: m.revokeLink, checked: false })}
                <button type="submit">${m.saveBuyer}</button>
              </form>
            </div>
            ${attendeeCard(d, here, viewer.csrf, opts)}
            <div class="card actions">
              ${
                order.status === 'paid' || order.status === 'pending'
                  ? buttonForm({
                      action: `${here}/resend`,
                      csrf: viewer.csrf,
                      label: order.status === 'paid' ? m.sendTicketsAgain : m.sendPayLinkAgain,
                      kind: 'secondary',
                    })
                  : ''
              }
              ${order.status === 'pending' ? buttonForm({ action: `${here}/cancel`, csrf: viewer.csrf, label: m.cancelOrder, kind: 'danger' }) : ''}
              ${refundable ? html`<a class="button danger-link" href="${here}/refund">${m.refundEllipsis}</a>` : ''}
            </div>`
          : ''
      }`;
  return consolePage({ title: m.orderTitle(order.ref), viewer, active: 'events', flash: opts.flash, body });
}

/** Staff name a ticket's attendee or pass the ticket on, whatever the event's self-service rules. */
function attendeeCard(d: DeskOrderDetail, here: string, csrf: string, opts: OrderPageOptions): SafeHtml {
  const m = t();
  const valid = d.tickets.filter((x) => x.status === 'valid');
  if (d.order.status !== 'paid' || !valid.length) return html``;
  const given = opts.attendee;
  return html`<div class="card">
    <h3>${m.attendeeCard}</h3>
    <p class="muted">${m.attendeeHint}</p>
    <form method="post" action="${here}/attendee">
      ${hiddenCsrf(csrf)}
      <div class="field">
        <label for="f-ticket">${m.ticketField}</label>
        <select id="f-ticket" name="ticket">
          ${valid.map((x) => html`<option value="${x.ref}"${given?.ticket === x.ref ? raw(' selected') : raw('')}>${x.ref} · ${x.ticket_type} · ${x.attendee_name ?? d.order.name ?? ''}</option>`)}
        </select>
      </div>
      ${field({ name: 'name', label: m.attendee, value: given?.name ?? '', errors: opts.errors })}
      ${field({ name: 'email', label: m.attendeeEmail, type: 'email', value: given?.email ?? '', errors: opts.errors })}
      <div class="actions">
        <button type="submit">${m.saveAttendee}</button>
        <button type="submit" class="secondary" formaction="${here}/transfer">${m.passOnTicket}</button>
      </div>
    </form>
  </div>`;
}
