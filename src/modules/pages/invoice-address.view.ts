import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { Messages } from '../i18n/messages.en.ts';

/** An invoice address's fields, each posted as `inv_<key>` (address-form.ts reads them back). */
export const ADDRESS_KEYS = ['company', 'name', 'street', 'postcode', 'city', 'country', 'vat_id'] as const;

export interface InvoiceAddressFieldsView {
  m: Messages;
  /** what the inputs' ids start with (`f` on the event page, `r` on the order page) */
  idPrefix: string;
  /** the organiser asks for an address: every field an address has is required */
  required: boolean;
  /** what the buyer sent, by field name (`inv_city`) */
  values: Record<string, string | undefined>;
  /** a refused field's problem, by field name */
  problems: Record<string, string | undefined>;
  /** a hint under the legend */
  hint?: string;
}

/**
 * The invoice address's group of fields (contract section 14), as the checkout and the order
 * page's "Need an invoice?" both ask for it: optional unless `required`, a refused field marked
 * with its problem.
 */
export function invoiceAddressFieldset(v: InvoiceAddressFieldsView): SafeHtml {
  const { m } = v;
  // `part`: a field every address has (required once the group is filled in); the others are optional in any case
  const field = (key: (typeof ADDRESS_KEYS)[number], label: string, opts: { part: boolean; auto?: string; short?: boolean }) => {
    const name = `inv_${key}`;
    const problem = v.problems[name];
    return html`<div class="field">
      <label for="${v.idPrefix}-${name}">${label}${opts.part ? '' : ` (${m.invoiceAddressOptional})`}</label
      ><input type="text" id="${v.idPrefix}-${name}" name="${name}"${opts.auto ? raw(` autocomplete="${opts.auto}"`) : raw('')}${opts.part && v.required ? raw(' required') : raw('')}${opts.short ? raw(' maxlength="2" size="3"') : raw('')} value="${v.values[name] ?? ''}"${problem ? raw(` aria-invalid="true" aria-describedby="err-${name}"`) : raw('')} />${problem ? html`<span class="admit-error" id="err-${name}">${problem}</span>` : ''}
    </div>`;
  };
  return html`<fieldset>
    <legend>${m.invoiceAddress}${v.required ? '' : ` (${m.invoiceAddressOptional})`}</legend>
    ${v.hint ? html`<p class="muted">${v.hint}</p>` : ''}
    ${field('company', m.company, { part: false, auto: 'organization' })}
    ${field('name', m.name, { part: true, auto: 'billing name' })}
    ${field('street', m.street, { part: true, auto: 'billing street-address' })}
    ${field('postcode', m.postcode, { part: true, auto: 'billing postal-code' })}
    ${field('city', m.city, { part: true, auto: 'billing address-level2' })}
    ${field('country', m.countryCode, { part: true, auto: 'billing country', short: true })}
    ${field('vat_id', m.vatId, { part: false })}
  </fieldset>`;
}
