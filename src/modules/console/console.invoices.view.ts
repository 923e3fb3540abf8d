import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { InvoiceAddress, InvoicingSettings } from '../../platform/db/schema.ts';
import { day, money } from './formats.ts';
import { t } from './console-lang.ts';
import { plainList } from './plain-words.ts';
import type { InvoiceListing } from '../invoices/invoices.service.ts';
import { can, type Viewer } from './console.http.ts';
import {
  checkbox,
  consolePage,
  emptyState,
  field,
  hiddenCsrf,
  nextStep,
  type FieldErrors,
  type Flash,
} from './console-layout.view.ts';
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
    ${errs.length ? html`<p class="error" id="f-${name}-err">${plainList(errs)}</p>` : ''}
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
  const m = t();
  const body = html`<form method="post" action="${invoicingBase(v.viewer)}" class="card">
    ${hiddenCsrf(v.viewer.csrf)}
    <p>${m.ivcIntroBefore} <code>{prefix}{year}-{number}</code> ${m.ivcIntroAfter}</p>
    ${checkbox({ name: 'enabled', label: m.ivcIssueInvoices, checked: v.form ? v.form.enabled === '1' : Boolean(s?.enabled) })}
    ${field({ name: 'name', label: m.ivcIssuerName, value: val('name', s?.issuer.name), errors: v.errors, required: true })}
    ${textarea('address', m.ivcIssuerAddress, val('address', s?.issuer.address), v.errors, m.ivcIssuerAddressHint)}
    ${field({ name: 'country', label: m.ivcIssuerCountry, value: val('country', s?.issuer.country), errors: v.errors, required: true })}
    ${field({ name: 'vat_id', label: m.ivcVatId, value: val('vat_id', s?.issuer.vat_id), errors: v.errors })}
    ${field({ name: 'tax_number', label: m.ivcTaxNumber, value: val('tax_number', s?.issuer.tax_number), errors: v.errors, hint: m.ivcTaxNumberHint })}
    ${field({ name: 'number_prefix', label: m.ivcPrefix, value: val('number_prefix', s?.number_prefix), errors: v.errors, hint: m.ivcPrefixHint })}
    ${checkbox({ name: 'business_only', label: m.ivcBusinessOnly, checked: v.form ? v.form.business_only === '1' : Boolean(s?.business_only) })}
    <button type="submit">${m.ivcSave}</button>
  </form>`;
  return consolePage({ title: m.navInvoicing, viewer: v.viewer, active: 'invoicing', flash: v.flash, body });
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
  const m = t();
  const body = html`${eventTabs(v.viewer, v.event, 'orders')}
    <p><a href="${here}">${m.ivcBackToOrder(v.ref)}</a></p>
    ${
      v.invoices.length
        ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.invoices}">
            <table>
              <thead><tr><th scope="col">${m.ivcNumber}</th><th scope="col">${m.ivcKind}</th><th scope="col">${m.ivcIssued}</th><th scope="col" class="num">${m.total}</th><th scope="col" class="num">${m.ivcVat}</th><th scope="col">${m.ivcDownload}</th></tr></thead>
              <tbody>
                ${v.invoices.map(
                  (i) => html`<tr>
                    <td>${i.number}${i.canceled ? html` <span class="pill">${m.ivcReplaced}</span>` : ''}</td>
                    <td>${i.kind === 'invoice' ? m.ivcInvoice : i.corrects ? m.ivcCreditNoteFor(i.corrects) : m.ivcCreditNote}</td>
                    <td>${day(i.issued_at, 'UTC')}</td>
                    <td class="num">${money(i.total_cents, i.currency)}</td>
                    <td class="num">${money(i.vat_cents, i.currency)}</td>
                    <td><a href="${i.pdf_url}">PDF</a> · <a href="${i.xml_url}">XML</a></td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>`
        : emptyState({
            name: 'invoices',
            text: v.write && v.paid ? m.emptyInvoicesIssue : v.paid ? m.emptyInvoicesNone : m.emptyInvoicesUnpaid,
            next: can(v.viewer, 'invoicing.manage')
              ? nextStep(
                  `/console/a/${encodeURIComponent(v.viewer.account!.slug)}/invoicing`,
                  m.emptyInvoicingSettings,
                  'secondary',
                )
              : undefined,
          })
    }
    ${
      v.write && (standing || v.paid)
        ? html`<form method="post" action="${here}/invoices/reissue" class="card">
            ${
              standing
                ? html`<h2>${m.ivcCorrectTitle}</h2>
                    <p>${m.ivcCorrectIntro}</p>`
                : html`<h2>${m.ivcIssueTitle}</h2>
                    <p>${m.ivcIssueIntro}</p>`
            }
            ${hiddenCsrf(v.viewer.csrf)}
            ${field({ name: 'company', label: m.ivcCompany, value: val('company'), errors: v.errors })}
            ${field({ name: 'name', label: m.name, value: val('name'), errors: v.errors })}
            ${field({ name: 'street', label: m.ivcStreet, value: val('street'), errors: v.errors })}
            ${field({ name: 'postcode', label: m.ivcPostcode, value: val('postcode'), errors: v.errors })}
            ${field({ name: 'city', label: m.ivcCity, value: val('city'), errors: v.errors })}
            ${field({ name: 'country', label: m.ivcCountry, value: val('country'), errors: v.errors })}
            ${field({ name: 'vat_id', label: m.ivcVatId, value: val('vat_id'), errors: v.errors })}
            <button type="submit">${standing ? m.ivcIssueAgain : m.ivcIssueTheInvoice}</button>
          </form>`
        : ''
    }`;
  return consolePage({ title: m.ivcTitle(v.ref), viewer: v.viewer, active: 'events', flash: v.flash, body });
}
