import type { Db } from '../../platform/db/database.ts';
import type { InvoicingSettings } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { findInvoicing, setInvoicing } from './accounts.repo.ts';
import { isCountry, normaliseVatId, vatIdProblem } from './vat-ids.ts';

/**
 * An account's invoicing settings (contract section 14): whether it issues invoices, as whom,
 * and the prefix of their numbers. Read by the orders module when an order is paid, written by
 * the import and the console's form.
 */

export async function readInvoicing(db: Db, accountId: number): Promise<InvoicingSettings | null> {
  return (await findInvoicing(db, accountId)) ?? null;
}

/** What is wrong with settings, each problem prefixed by `at` (a JSON path); empty when none. */
export function invoicingProblems(s: InvoicingSettings, at = '$.account.invoicing'): string[] {
  const out: string[] = [];
  if (!/^[A-Za-z0-9-]{0,16}$/.test(s.number_prefix)) out.push(`${at}.number_prefix: letters, digits and dashes, at most 16`);
  if (!s.issuer.name.trim()) out.push(`${at}.issuer.name: is empty`);
  if (!s.issuer.address.trim()) out.push(`${at}.issuer.address: is empty`);
  if (!isCountry(s.issuer.country)) out.push(`${at}.issuer.country: "${s.issuer.country}" is not an ISO 3166-1 country code`);
  else if (s.issuer.vat_id) {
    const p = vatIdProblem(s.issuer.country, s.issuer.vat_id);
    if (p) out.push(`${at}.issuer.vat_id: ${p}`);
  }
  if (s.enabled && !s.issuer.vat_id && !s.issuer.tax_number)
    out.push(`${at}.issuer: an invoice needs the issuer's VAT ID or tax number`);
  return out;
}

/** The settings as stored: trimmed, the VAT ID written without spaces. */
export function normaliseInvoicing(s: InvoicingSettings): InvoicingSettings {
  const i = s.issuer;
  return {
    enabled: s.enabled,
    issuer: {
      name: i.name.trim(),
      address: i.address.trim(),
      country: i.country,
      ...(i.vat_id?.trim() ? { vat_id: normaliseVatId(i.vat_id) } : {}),
      ...(i.tax_number?.trim() ? { tax_number: i.tax_number.trim() } : {}),
    },
    number_prefix: s.number_prefix,
    ...(s.business_only !== undefined ? { business_only: s.business_only } : {}),
  };
}

/** Saves the settings, or 422 `invalid_invoicing` naming every problem and changing nothing. */
export async function saveInvoicing(db: Db, accountId: number, s: InvoicingSettings): Promise<InvoicingSettings> {
  const problems = invoicingProblems(s, 'invoicing');
  if (problems.length) throw new AppError('unprocessable', 'invalid_invoicing', problems.join('; '), { extra: { problems } });
  const clean = normaliseInvoicing(s);
  await setInvoicing(db, accountId, clean);
  return clean;
}
