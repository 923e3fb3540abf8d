import type { InvoiceAddress } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { isCountry, normaliseVatId, vatIdProblem } from '../accounts/vat-ids.ts';

/**
 * The buyer's invoice address (contract section 14), as the API's `invoice_address` and the
 * checkout's fields give it: company and VAT ID optional, the rest required, the country an
 * ISO 3166-1 code and the VAT ID in that country's format. Pure.
 */

export interface InvoiceAddressInput {
  company?: string | undefined;
  name?: string | undefined;
  street?: string | undefined;
  postcode?: string | undefined;
  city?: string | undefined;
  country?: string | undefined;
  vat_id?: string | undefined;
}

/** The problems per field (empty when none) and the address as it is kept. */
export function readInvoiceAddress(input: InvoiceAddressInput): {
  address: InvoiceAddress | null;
  fields: Record<string, string[]>;
} {
  const fields: Record<string, string[]> = {};
  const problem = (k: string, msg: string) => (fields[k] ??= []).push(msg);
  const v = (k: keyof InvoiceAddressInput, max: number) => {
    const s = (input[k] ?? '').trim();
    if (s.length > max) problem(k, `is longer than ${max} characters`);
    return s;
  };
  const company = v('company', 200);
  const name = v('name', 200);
  const street = v('street', 300);
  const postcode = v('postcode', 20);
  const city = v('city', 100);
  const country = v('country', 2).toUpperCase();
  const vat = v('vat_id', 30);
  for (const [k, s] of [
    ['name', name],
    ['street', street],
    ['postcode', postcode],
    ['city', city],
    ['country', country],
  ] as const)
    if (!s) problem(k, 'is required');
  if (country && !isCountry(country)) problem('country', 'is not an ISO 3166-1 country code');
  else if (country && vat) {
    const p = vatIdProblem(country, vat);
    if (p) problem('vat_id', p);
  }
  if (Object.keys(fields).length) return { address: null, fields };
  return {
    address: {
      ...(company ? { company } : {}),
      name,
      street,
      postcode,
      city,
      country,
      ...(vat ? { vat_id: normaliseVatId(vat) } : {}),
    },
    fields,
  };
}

/** Whether any field was filled in (an optional address left empty is no address). */
export function anyAddressField(input: InvoiceAddressInput): boolean {
  return Object.values(input).some((s) => typeof s === 'string' && s.trim() !== '');
}

export function invalidInvoiceAddress(fields: Record<string, string[]>): AppError {
  const detail = Object.entries(fields)
    .map(([k, m]) => `invoice_address.${k}: ${m.join(', ')}`)
    .join('; ');
  return new AppError('unprocessable', 'invalid_invoice_address', detail, {
    fields: Object.fromEntries(Object.entries(fields).map(([k, m]) => [`invoice_address.${k}`, m])),
  });
}
