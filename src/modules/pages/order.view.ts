import QRCode from 'qrcode';
import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { Locale } from '../i18n/i18n.ts';
import type { OrderDocument } from '../orders/order-document.repo.ts';
import { seatText } from '../orders/seat-text.ts';
import { chargedAmounts } from '../orders/charged-amounts.ts';
import { isReverseCharge } from '../accounts/vat-ids.ts';

/** Pieces of HTML shared by the pay page and the order page. Every value is escaped by `html`. */

export const PAGE_CSS = raw(`<style>
.admit-receipt{width:100%;border-collapse:collapse;margin:1rem 0}
.admit-receipt th,.admit-receipt td{padding:.35rem .25rem;border-bottom:1px solid var(--admit-text-color-muted);text-align:left;vertical-align:top}
.admit-receipt td.num,.admit-receipt th.num{text-align:right;white-space:nowrap}
.admit-receipt tfoot td{font-weight:600;border-bottom:0}
.admit-tickets{list-style:none;padding:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr))}
.admit-ticket{border:1px solid var(--admit-text-color-muted);border-radius:var(--admit-card-radius);padding:1rem;text-align:center}
.admit-ticket svg{width:100%;max-width:14rem;height:auto;background:#fff}
.admit-status{padding:.6rem .8rem;border-radius:var(--admit-card-radius);border:1px solid var(--admit-text-color-muted)}
.admit-voided{border-style:dashed}.admit-voided figure{opacity:.3}
.admit-confirm{text-align:center;margin:0 0 1.5rem}
.admit-confirm-mark{display:inline-flex;align-items:center;justify-content:center;width:3.25rem;height:3.25rem;margin:.25rem 0 0;border-radius:50%;
background:var(--admit-accent-color);color:var(--admit-accent-color-contrast);font-size:1.75rem;font-weight:700}
.admit-confirm h1{font-size:2rem;margin:.5rem 0 .25rem}
.admit-lead{font-size:1.1rem;margin:0 0 1rem}
.admit-confirm-event{margin:1.25rem 0 .5rem;font-size:1.25rem}
.admit-facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:.75rem;margin:0 0 1.25rem;text-align:left}
.admit-facts div{border:1px solid var(--admit-text-color-muted);border-radius:var(--admit-card-radius);padding:.75rem 1rem}
.admit-facts dt{font-size:.8rem;font-weight:700;text-transform:uppercase;letter-spacing:.04em;color:var(--admit-text-color-muted)}
.admit-facts dd{margin:.2rem 0 0;font-weight:600}.admit-facts dd a{font-weight:400}
.admit-next{padding-left:1.25rem}.admit-next li{margin:.35rem 0}
@media (max-width:30rem){.admit-receipt{font-size:.92rem}.admit-confirm h1{font-size:1.7rem}}
</style>`);

/**
 * The order's lines and what it charged. The VAT in the total is taken from what was charged
 * (codes spread over the lines, VAT per rate: charged-amounts.ts), the figure the invoice shows;
 * a line's own tax note is the tax in its listed price, so it is left off once a code applies.
 */
export function receipt(doc: OrderDocument, loc: Locale): SafeHtml {
  const { order, lines, discounts } = doc;
  const { m } = loc;
  const money = (n: number) => loc.money(n, order.currency);
  const pricedTax = lines.reduce((s, l) => s + l.tax_cents, 0);
  // a reverse-charge buyer pays the net price (pricing.ts); the receipt, like the invoice, shows no VAT
  const reverseCharge =
    Boolean(order.invoicing?.enabled) && isReverseCharge(order.invoicing!.issuer.country, order.invoice_address);
  const charged = chargedAmounts(lines, discounts, order.tax_mode, { reverseCharge });
  const coded = discounts.length > 0;
  return html`<table class="admit-receipt">
    <caption class="muted">
      ${m.order} ${order.ref}
    </caption>
    <thead>
      <tr>
        <th scope="col">${m.item}</th>
        <th scope="col" class="num">${m.quantity}</th>
        <th scope="col" class="num">${m.price}</th>
        <th scope="col" class="num">${m.total}</th>
      </tr>
    </thead>
    <tbody>
      ${lines.map(
        (l) =>
          html`<tr>
            <td>
              ${l.name}${l.tax_rate_bp && !coded && !reverseCharge ? html`<br /><small class="muted">${m.inclTax(taxRate(l.tax_rate_bp, loc), money(l.tax_cents))}</small>` : ''}
            </td>
            <td class="num">${l.quantity}</td>
            <td class="num">${money(l.unit_price_cents)}</td>
            <td class="num">${money(l.total_cents)}</td>
          </tr>`,
      )}
      ${
        order.tax_mode === 'exclusive' && pricedTax
          ? html`<tr>
              <td colspan="3">${m.tax}</td>
              <td class="num">${money(pricedTax)}</td>
            </tr>`
          : ''
      }
      ${discounts.map(
        (d) =>
          html`<tr>
            <td colspan="3">${m.discountCodeLine(d.code)}</td>
            <td class="num">−${money(d.amount_cents)}</td>
          </tr>`,
      )}
    </tbody>
    <tfoot>
      <tr>
        <td colspan="3">
          ${m.total}${(order.tax_mode === 'inclusive' || coded) && charged.vat_cents ? html` <small class="muted">${m.includesTax(money(charged.vat_cents))}</small>` : ''}
        </td>
        <td class="num">${money(order.total_cents)}</td>
      </tr>
      ${
        reverseCharge
          ? html`<tr>
              <td colspan="4"><small class="muted">${m.reverseCharge}</small></td>
            </tr>`
          : ''
      }
    </tfoot>
  </table>`;
}

/** 1900 basis points -> "19" (en) / "19" (de); 750 -> "7.5" / "7,5". */
function taxRate(bp: number, loc: Locale): string {
  return new Intl.NumberFormat(loc.tag, { maximumFractionDigits: 2 }).format(bp / 100);
}

export function ledger(doc: OrderDocument, loc: Locale): SafeHtml {
  const { m } = loc;
  const { order, payments, refunds } = doc;
  const succeeded = payments.filter((p) => p.status === 'succeeded');
  const done = refunds.filter((r) => r.status === 'succeeded');
  if (!succeeded.length && !done.length) return html``;
  const when = (d: Date | string | null) => (d ? loc.dateTime(d, order.timezone) : '');
  return html`<h2>${m.payments}</h2>
    <ul>
      ${succeeded.map((p) => html`<li>${m.paidBy(loc.money(p.amount_cents, p.currency), m.rails[p.rail] ?? p.rail, when(p.succeeded_at), p.simulated && p.rail !== 'sandbox')}</li>`)}
      ${done.map((r) => html`<li>${m.refundedLine(loc.money(r.amount_cents, r.currency), when(r.completed_at), r.simulated)}</li>`)}
    </ul>`;
}

export function eventHeader(doc: OrderDocument, loc: Locale): SafeHtml {
  const { order } = doc;
  return html`<h1>${order.event_name}</h1>
    <p class="muted">
      <time datetime="${new Date(order.event_starts_at).toISOString()}">${loc.dateTime(order.event_starts_at, order.timezone)}</time>${order.venue ? html` · ${order.venue.name}` : ''} ·
      <a href="${calendarPath(order.account_slug, order.event_slug)}">${loc.m.addToCalendar}</a>
    </p>`;
}

/** Where the event's .ics file is (pages/public.routes.ts). */
export function calendarPath(accountSlug: string, eventSlug: string): string {
  return `/e/${encodeURIComponent(accountSlug)}/${encodeURIComponent(eventSlug)}/calendar.ics`;
}

/** One QR code per ticket, rendered from its QR token as inline SVG. */
export async function ticketCards(
  doc: OrderDocument,
  loc: Locale,
  pdfHref: ((ref: string) => string) | null = null,
  actions: ((t: OrderDocument['tickets'][number]) => SafeHtml) | null = null,
): Promise<SafeHtml> {
  if (!doc.tickets.length) return html``;
  const { m } = loc;
  const cards = await Promise.all(
    doc.tickets.map(async (t) => {
      const voided = t.status === 'voided';
      if (t.transferred && !voided)
        // passed on: the code is its holder's now (their own page); the buyer sees to whom
        return html`<li class="admit-ticket" data-ticket="${t.ref}">
          <p>
            <strong>${t.type_name}</strong><br />${t.seat ? html`<strong class="admit-seat">${seatText(t.seat)}</strong><br />` : ''}<span
              class="admit-passed"
              >${m.passedOnTo(t.attendee_name ?? '')}</span
            ><br /><small class="muted">${t.ref}</small>
          </p>
          <p class="muted">${m.passedOnNote}</p>
          ${actions ? actions(t) : ''}
        </li>`;
      const svg = await QRCode.toString(t.qr_token, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
      return html`<li class="admit-ticket${voided ? ' admit-voided' : ''}" data-ticket="${t.ref}">
        <figure role="img" aria-label="${m.qrFor(t.ref)}">${raw(svg)}</figure>
        <p>
          <strong>${t.type_name}</strong><br />${t.seat ? html`<strong class="admit-seat">${seatText(t.seat)}</strong><br />` : ''}${t.attendee_name ?? doc.order.name ?? ''}<br /><small class="muted"
            >${t.ref}</small
          >
        </p>
        ${voided ? html`<p><strong>${m.noLongerValid}</strong></p>` : pdfHref ? html`<p><a href="${pdfHref(t.ref)}">${m.ticketAsPdf(t.ref)}</a></p>` : ''}
        ${actions ? actions(t) : ''}
      </li>`;
    }),
  );
  return html`<h2>${m.yourTickets}</h2>
    <ul class="admit-tickets">
      ${cards}
    </ul>`;
}

/** The order's invoices and credit notes, each a link to its PDF (the page's own capability URL). */
export function invoiceLinks(
  invoices: Array<{ number: string; kind: 'invoice' | 'credit_note'; pdf_url: string }>,
  loc: Locale,
): SafeHtml {
  if (!invoices.length) return html``;
  const { m } = loc;
  return html`<h2>${m.invoices}</h2>
    <ul>
      ${invoices.map((i) => html`<li><a href="${new URL(i.pdf_url).pathname}">${i.kind === 'invoice' ? m.invoice : m.creditNote} ${i.number}</a> (PDF)</li>`)}
    </ul>`;
}

/** Contract section 15: "Add to Apple Wallet" / "Save to Google Wallet" per valid ticket (links from wallet.service). */
export function walletButtons(links: ReadonlyMap<string, { apple?: string; google?: string }>, loc: Locale): SafeHtml {
  if (!links.size) return html``;
  const { m } = loc;
  return html`<section class="admit-wallet">
    <h2>${m.walletHeading}</h2>
    <ul>
      ${[...links].map(
        ([ref, l]) =>
          html`<li data-wallet="${ref}">
            ${m.walletTicket(ref)}: ${l.apple ? html`<a href="${l.apple}">${m.addToAppleWallet}</a>` : ''}${l.apple && l.google ? ' · ' : ''}${l.google ? html`<a href="${l.google}" rel="nofollow">${m.saveToGoogleWallet}</a>` : ''}
          </li>`,
      )}
    </ul>
  </section>`;
}
