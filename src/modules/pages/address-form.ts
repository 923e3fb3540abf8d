import type { InvoiceAddress } from '../../platform/db/schema.ts';
import type { Messages } from '../i18n/messages.en.ts';
import { anyAddressField, readInvoiceAddress } from '../orders/invoice-address.ts';

/**
 * An invoice address from a page's `inv_*` fields, with each problem in the buyer's words: the
 * checkout's and the order page's "Need an invoice?" read it alike. Optional and left wholly empty:
 * no address and no problem.
 */
export function readAddressForm(
  form: Record<string, string | undefined>,
  mode: 'optional' | 'required',
  m: Messages,
): { address: InvoiceAddress | null; fields: Record<string, string> } {
  const input = {
    company: form.inv_company,
    name: form.inv_name,
    street: form.inv_street,
    postcode: form.inv_postcode,
    city: form.inv_city,
    country: form.inv_country,
    vat_id: form.inv_vat_id,
  };
  if (mode === 'optional' && !anyAddressField(input)) return { address: null, fields: {} };
  const read = readInvoiceAddress(input);
  const fields: Record<string, string> = {};
  for (const [k, problems] of Object.entries(read.fields)) {
    const what = problems[0] ?? '';
    fields[`inv_${k}`] =
      what === 'is required' ? m.fillIn : k === 'country' ? m.notACountry : k === 'vat_id' ? m.notAVatId : m.checkFields;
  }
  return { address: read.address, fields };
}
