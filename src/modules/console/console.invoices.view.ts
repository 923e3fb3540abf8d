import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { InvoiceAddress, InvoicingSettings } from '../../platform/db/schema.ts';
import { money } from './formats.ts';
import type { InvoiceListing } from '../invoices/invoices.service.ts';
import type { Viewer } from './console.http.ts';
import { checkbox, consolePage, field, hiddenCsrf, type FieldErrors, type Flash } from './console-layout.view.ts';
import { eventBase } from './console.order-desk.view.ts';
import { eventTabs } from './event-tabs.view.ts';

/** The account's invoicing settings (owners) and an order's invoices (list, download, re-issue). */

export const invoicingBase = (v: Viewer) => `/console/a/${encodeURIComponent(v.account!.slug)}/invoicing`;

function textarea(name: string, label: string, value: string, errors?: FieldErrors, hint?: string): SafeHtml {
  const errs = errors?.[name] ?? [];
  return html`<div class="field">
    <label for="f-${name}">${label}</label>
    ${hint ? html`<p class="hint" id="f-${name}-hint">${hint}</p>` : ''}
    <textarea id="f-${name}" name="${name}" rows="3"${errs.length ? raw(` aria-invalid="true" aria-describedby="f-${name}-err"`) : raw('')}>${value}</textarea>
    ${errs.length ? html`<p class="error" id="f-${name}-err">${errs.join(' ')}</p>` : ''}
  </div>`;
}

export function invoicingPage(v: {
  viewer: Viewer;
  settings: InvoicingSettings | null;
  form?: Record<string, string>;
  errors?: FieldErrors;
  flash: Flash | null;
}): string {
  const s = v.settings;
  const val = (k: string, stored: string | undefined) => v.form?.[k] ?? stored ?? '';
  const body = html`<form method="post" action="${invoicingBase(v.viewer)}" class="card">
    ${hiddenCsrf(v.viewer.csrf)}
    <p>
      With invoicing on, every paid order gets an invoice numbered <code>{prefix}{year}-{number}</code> without gaps, and every
      refund a credit note. Buyers are asked for an invoice address unless an event turns it off.
    </p>
    ${checkbox({ name: 'enabled', label: 'Issue invoices', checked: v.form ? v.form.enabled === '1' : Boolean(s?.enabled) })}
    ${field({ name: 'name', label: 'Issuer name', value: val('name', s?.issuer.name), errors: v.errors, required: true })}
    ${textarea('address', 'Issuer address', val('address', s?.issuer.address), v.errors, 'Street, postcode and city, one per line.')}
    ${field({ name: 'country', label: 'Country (ISO code, e.g. DE)', value: val('country', s?.issuer.country), errors: v.errors, required: true })}
    ${field({ name: 'vat_id', label: 'VAT ID', value: val('vat_id', s?.issuer.vat_id), errors: v.errors })}
    ${field({ name: 'tax_number', label: 'Tax number', value: val('tax_number', s?.issuer.tax_number), errors: v.errors, hint: 'Needed when there is no VAT ID.' })}
    ${field({ name: 'number_prefix', label: 'Number prefix', value: val('number_prefix', s?.number_prefix), errors: v.errors, hint: 'Letters, digits and dashes, up to 16; e.g. RE gives RE2026-1.' })}
    ${checkbox({ name: 'business_only', label: 'Only for buyers who give an invoice address', checked: v.form ? v.form.business_only === '1' : Boolean(s?.business_only) })}
    <button type="submit">Save invoicing</button>
  </form>`;
  return consolePage({ title: 'Invoicing', viewer: v.viewer, active: 'invoicing', flash: v.flash, body });
}

export function orderInvoicesPage(v: {
  viewer: Viewer;
  event: string;
  ref: string;
  invoices: InvoiceListing[];
  address: InvoiceAddress | null;
  write: boolean;
  /** paid: an order without an invoice (free, or paid before invoicing was on) may get one */
  paid: boolean;
  errors?: FieldErrors;
  form?: Record<string, string>;
  flash: Flash | null;
}): string {
  const here = `${eventBase(v.viewer, v.event)}/orders/${encodeURIComponent(v.ref)}`;
  const a = v.address;
  const val = (k: keyof InvoiceAddress) => v.form?.[k] ?? a?.[k] ?? '';
  const standing = v.invoices.some((i) => i.kind === 'invoice' && !i.canceled);
  const body = html`${eventTabs(v.viewer, v.event, 'orders')}
    <p><a href="${here}">← Order ${v.ref}</a></p>
    ${
      v.invoices.length
        ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Invoices">
            <table>
              <thead><tr><th scope="col">Number</th><th scope="col">Kind</th><th scope="col">Issued</th><th scope="col" class="num">Total</th><th scope="col" class="num">VAT</th><th scope="col">Download</th></tr></thead>
              <tbody>
                ${v.invoices.map(
                  (i) => html`<tr>
                    <td>${i.number}${i.canceled ? html` <span class="pill">replaced</span>` : ''}</td>
                    <td>${i.kind === 'invoice' ? 'Invoice' : html`Credit note${i.corrects ? ` for ${i.corrects}` : ''}`}</td>
                    <td>${i.issued_at.slice(0, 10)}</td>
                    <td class="num">${money(i.total_cents, i.currency)}</td>
                    <td class="num">${money(i.vat_cents, i.currency)}</td>
                    <td><a href="${i.pdf_url}">PDF</a> · <a href="${i.xml_url}">XML</a></td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>`
        : html`<p class="muted">No invoice was issued for this order.</p>`
    }
    ${
      v.write && (standing || v.paid)
        ? html`<form method="post" action="${here}/invoices/reissue" class="card">
            ${
              standing
                ? html`<h2>Correct the address and issue again</h2>
                    <p>The invoice is cancelled by a credit note and a new one issued with this address; both get new numbers.</p>`
                : html`<h2>Issue an invoice</h2>
                    <p>This order has none: it was free, or paid before the account issued invoices. Issue one now, made out to this address.</p>`
            }
            ${hiddenCsrf(v.viewer.csrf)}
            ${field({ name: 'company', label: 'Company', value: val('company'), errors: v.errors })}
            ${field({ name: 'name', label: 'Name', value: val('name'), errors: v.errors })}
            ${field({ name: 'street', label: 'Street and number', value: val('street'), errors: v.errors })}
            ${field({ name: 'postcode', label: 'Postcode', value: val('postcode'), errors: v.errors })}
            ${field({ name: 'city', label: 'City', value: val('city'), errors: v.errors })}
            ${field({ name: 'country', label: 'Country (ISO code)', value: val('country'), errors: v.errors })}
            ${field({ name: 'vat_id', label: 'VAT ID', value: val('vat_id'), errors: v.errors })}
            <button type="submit">${standing ? 'Issue again' : 'Issue the invoice'}</button>
          </form>`
        : ''
    }`;
  return consolePage({ title: `Invoices of ${v.ref}`, viewer: v.viewer, active: 'events', flash: v.flash, body });
}
