import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { Locale } from '../i18n/i18n.ts';
import { BUYER_FORM_CSS } from './buyer-form.view.ts';
import { invoiceAddressFieldset } from './invoice-address.view.ts';

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

export function invoiceRequestForm(v: InvoiceRequestView): SafeHtml {
  const { m } = v.loc;
  const fields = v.fields ?? {};
  const form = v.form ?? {};
  return html`${BUYER_FORM_CSS}<section class="admit-form" aria-labelledby="invoice-request-title">
    <details${Object.keys(fields).length ? raw(' open') : raw('')}>
      <summary><h2 id="invoice-request-title">${m.invoiceRequestTitle}</h2></summary>
      <p class="muted">${v.businessOnly ? m.invoiceRequestHintBusiness : m.invoiceRequestHint}</p>
      ${Object.keys(fields).length ? html`<p class="admit-error" role="alert">${m.checkFields}</p>` : ''}
      <form method="post" action="${v.action}">
        <input type="hidden" name="csrf" value="${v.csrf}" />
        ${invoiceAddressFieldset({
          m,
          idPrefix: 'r',
          required: v.businessOnly,
          values: form,
          problems: fields,
        })}
        <button type="submit">${m.invoiceRequestButton}</button>
      </form>
    </details>
  </section>`;
}
