import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { Locale } from '../i18n/i18n.ts';
import { BUYER_FORM_CSS } from './buyer-form.view.ts';

/**
 * "Need an invoice?" under a paid order that has none (a free order, or one paid before the
 * organiser issued invoices): the address it should name, folded away until asked for, and
 * opened again with the problems marked when the address was refused.
 */
export interface InvoiceRequestView {
  action: string;
  csrf: string;
  loc: Locale;
  /** the organiser invoices businesses only: the address is required */
  businessOnly: boolean;
  form?: Record<string, string | undefined>;
  fields?: Record<string, string>;
}

export const ADDRESS_KEYS = ['company', 'name', 'street', 'postcode', 'city', 'country', 'vat_id'] as const;

export function invoiceRequestForm(v: InvoiceRequestView): SafeHtml {
  const { m } = v.loc;
  const fields = v.fields ?? {};
  const form = v.form ?? {};
  const field = (key: (typeof ADDRESS_KEYS)[number], label: string, opts: { part: boolean; auto?: string; short?: boolean }) => {
    const name = `inv_${key}`;
    const problem = fields[name];
    return html`<div class="field">
      <label for="r-${name}">${label}${opts.part ? '' : ` (${m.invoiceAddressOptional})`}</label
      ><input type="text" id="r-${name}" name="${name}"${opts.auto ? raw(` autocomplete="${opts.auto}"`) : raw('')}${opts.part && v.businessOnly ? raw(' required') : raw('')}${opts.short ? raw(' maxlength="2" size="3"') : raw('')} value="${form[name] ?? ''}"${problem ? raw(` aria-invalid="true" aria-describedby="err-${name}"`) : raw('')} />${problem ? html`<span class="admit-error" id="err-${name}">${problem}</span>` : ''}
    </div>`;
  };
  return html`${BUYER_FORM_CSS}<section class="admit-form" aria-labelledby="invoice-request-title">
    <details${Object.keys(fields).length ? raw(' open') : raw('')}>
      <summary><h2 id="invoice-request-title">${m.invoiceRequestTitle}</h2></summary>
      <p class="muted">${v.businessOnly ? m.invoiceRequestHintBusiness : m.invoiceRequestHint}</p>
      ${Object.keys(fields).length ? html`<p class="admit-error" role="alert">${m.checkFields}</p>` : ''}
      <form method="post" action="${v.action}">
        <input type="hidden" name="csrf" value="${v.csrf}" />
        <fieldset>
          <legend>${m.invoiceAddress}${v.businessOnly ? '' : ` (${m.invoiceAddressOptional})`}</legend>
          ${field('company', m.company, { part: false, auto: 'organization' })}
          ${field('name', m.name, { part: true, auto: 'billing name' })}
          ${field('street', m.street, { part: true, auto: 'billing street-address' })}
          ${field('postcode', m.postcode, { part: true, auto: 'billing postal-code' })}
          ${field('city', m.city, { part: true, auto: 'billing address-level2' })}
          ${field('country', m.countryCode, { part: true, auto: 'billing country', short: true })}
          ${field('vat_id', m.vatId, { part: false })}
        </fieldset>
        <button type="submit">${m.invoiceRequestButton}</button>
      </form>
    </details>
  </section>`;
}
