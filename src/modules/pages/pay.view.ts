import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { Locale } from '../i18n/i18n.ts';
import type { OrderDocument } from '../orders/order-document.repo.ts';
import { PAGE_CSS, eventHeader, ledger, receipt, ticketCards } from './order.view.ts';
import { notPayableMessage, type PayState } from './pay-order.ts';
import { confirmationBody, type OrderPageExtras } from './confirmation.view.ts';

/**
 * The buyer's pay flow, reached through the order's capability URL: the pay page, the card form,
 * a card payment not confirmed yet, and the order page with its tickets. Each is the content of a
 * page; the route puts it in the account's theme.
 */

/** Progressive enhancement: the hold counts down when scripts run; the page works without. */
const COUNTDOWN =
  raw(`(()=>{const el=document.querySelector('[data-countdown]');if(!el)return;const end=Date.parse(el.dataset.countdown);
const tick=()=>{const s=Math.max(0,Math.round((end-Date.now())/1000));el.textContent=s>3600?'':s===0?el.dataset.up:el.dataset.left.replace('{time}',Math.floor(s/60)+':'+String(s%60).padStart(2,'0'));if(s>0&&s<=3600)setTimeout(tick,1000)};tick()})()`);

/** A page's content: the order pages' styles and `body` (the frame carries the language switch). */
export function pageContent(body: SafeHtml): SafeHtml {
  return html`${PAGE_CSS}${body}`;
}

/**
 * The pay page of a payable order. `nonce`: this response's CSP nonce, which the countdown script
 * must carry to run; `csrf`: the token the Pay form posts back.
 */
export function payPageBody(doc: OrderDocument, loc: Locale, nonce: string, csrf: string): SafeHtml {
  const { order } = doc;
  const { m } = loc;
  const total = loc.money(order.total_cents, order.currency);
  const sandbox = order.payments_mode === 'sandbox' || order.payments_provider === 'sandbox';
  return html`${eventHeader(doc, loc)}
      <p>${m.order} <strong>${order.ref}</strong>${order.name ? html` ${m.forName(order.name)}` : ''}.</p>
      ${
        order.expires_at
          ? html`<p class="admit-status" role="status">
                ${m.reservedUntil}
                <time datetime="${new Date(order.expires_at).toISOString()}"
                  >${loc.dateTime(order.expires_at, order.timezone)}</time
                >.
                <strong
                  data-countdown="${new Date(order.expires_at).toISOString()}"
                  data-up="${m.timeIsUp}"
                  data-left="${m.timeLeft}"
                ></strong>
              </p>
              <script nonce="${nonce}">
                ${COUNTDOWN}
              </script>`
          : ''
      }
      ${receipt(doc, loc)}
      <form method="post" action="/pay/${order.access_secret}">
        <input type="hidden" name="csrf" value="${csrf}" />
        ${sandbox ? html`<p class="muted">${m.testMode}</p>` : ''}
        <button type="submit">${m.payAmount(total)}</button>
      </form>`;
}

/** The card form, which Stripe's script fills in and confirms with `clientSecret`. */
export function cardPageBody(doc: OrderDocument, loc: Locale, clientSecret: string, csrf: string): SafeHtml {
  const { order } = doc;
  const { m } = loc;
  return html`${eventHeader(doc, loc)}${receipt(doc, loc)}
      <form method="post" action="/pay/${order.access_secret}/confirm" id="card-form" data-client-secret="${clientSecret}">
        <input type="hidden" name="csrf" value="${csrf}" />
        <div id="card-element" aria-label="${m.cardDetails}"></div>
        <button type="submit">${m.payAmount(loc.money(order.total_cents, order.currency))}</button>
      </form>
      <p class="muted">${m.stripeNote}</p>`;
}

/** Why the order cannot be paid (any state but payable), with a link to the order where it has one. */
export function notPayable(doc: OrderDocument, loc: Locale, state: PayState): SafeHtml {
  return html`${eventHeader(doc, loc)}
      <p class="admit-status" role="alert">${notPayableMessage(state, loc.m)}</p>
      ${state === 'paid' || state === 'refunded' ? html`<p><a href="/o/${doc.order.access_secret}">${loc.m.seeOrder}</a></p>` : ''}`;
}

/**
 * The order page: a paid order's is its confirmation (confirmation.view.ts); any other shows its
 * status, the way to pay a pending one, the tickets (no PDFs before payment), receipt and ledger.
 */
export async function orderPageBody(
  doc: OrderDocument,
  loc: Locale,
  secret: string,
  extras?: OrderPageExtras,
): Promise<SafeHtml> {
  const { order } = doc;
  const { m } = loc;
  if (order.status === 'paid') return confirmationBody(doc, loc, secret, extras);
  const status: Record<string, string> = {
    pending: m.statusPending,
    canceled: m.statusCanceled,
    refunded: m.statusRefunded,
  };
  return html`${eventHeader(doc, loc)}
      <p class="admit-status" role="status">${m.order} <strong>${order.ref}</strong>: ${status[order.status] ?? order.status}</p>
      ${order.status === 'pending' ? html`<p><a class="button" href="/pay/${secret}">${m.payNow}</a></p>` : ''}
      ${await ticketCards(doc, loc, null)}
      <h2>${m.receipt}</h2>
      ${receipt(doc, loc)}${ledger(doc, loc)}
      <p class="muted">${m.keepPagePrivate}</p>`;
}

/** A card payment the browser reported but the provider has not confirmed: back to the pay page. */
export function paymentPendingBody(doc: OrderDocument, loc: Locale, secret: string): SafeHtml {
  return html`${eventHeader(doc, loc)}
            <p class="admit-status" role="status">${loc.m.paymentNotConfirmed}</p>
            <p><a href="/pay/${secret}">${loc.m.backToPayment}</a></p>`;
}
