import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import type { Selectable } from 'kysely';
import type { InvoicesTable } from '../../platform/db/schema.ts';
import { notFound } from '../../platform/errors.ts';
import { localeOf } from '../i18n/i18n.ts';
import {
  findInvoiceByNumber,
  findInvoiceById,
  invoicedVat,
  findInvoiceBySecret,
  listOrderInvoices,
  type InvoiceContent,
} from '../orders/invoice-register.repo.ts';
import { ciiXml } from './cii-xml.ts';
import { invoicePdf } from './invoice-pdf.view.ts';

/**
 * The documents of the invoice register: listed for the API and the console, rendered as PDF
 * (Factur-X) and CII XML from what was kept when they were issued, so a download years later
 * says what the first one said.
 */

export interface InvoiceListing {
  number: string;
  kind: 'invoice' | 'credit_note';
  issued_at: string;
  total_cents: number;
  currency: string;
  vat_cents: number;
  canceled: boolean;
  corrects: string | null;
  pdf_url: string;
  xml_url: string;
}

type Row = Selectable<InvoicesTable>;

/** An order's invoices and credit notes, oldest first, with where the API serves them. */
export async function listInvoices(
  ctx: AppContext,
  order: { id: number; ref: string },
  base = apiBase(ctx, order.ref),
): Promise<InvoiceListing[]> {
  const rows = await listOrderInvoices(ctx.db, order.id);
  const numberOf = new Map(rows.map((r) => [r.id, r.number]));
  return rows.map((r) => ({
    number: r.number,
    kind: r.kind,
    issued_at: new Date(r.issued_at).toISOString(),
    total_cents: Number(r.total_cents),
    currency: r.currency,
    vat_cents: Number(r.vat_cents),
    canceled: r.canceled_at !== null,
    corrects: r.corrects_id !== null ? (numberOf.get(r.corrects_id) ?? null) : null,
    pdf_url: `${base}/${encodeURIComponent(r.number)}.pdf`,
    xml_url: `${base}/${encodeURIComponent(r.number)}.xml`,
  }));
}

export function apiBase(ctx: AppContext, ref: string): string {
  return `${ctx.config.baseUrl}/api/v1/orders/${encodeURIComponent(ref)}/invoices`;
}

/** Where the buyer's order page serves its documents (the page's capability URL). */
export function buyerBase(ctx: AppContext, secret: string): string {
  return `${ctx.config.baseUrl}/o/${secret}/invoices`;
}

export function documentXml(row: Pick<Row, 'number' | 'kind' | 'issued_at' | 'currency' | 'content'>): string {
  return ciiXml({
    number: row.number,
    kind: row.kind,
    issued_at: row.issued_at,
    currency: row.currency,
    content: row.content as unknown as InvoiceContent,
  });
}

export function documentPdf(
  row: Pick<Row, 'number' | 'kind' | 'issued_at' | 'currency' | 'content' | 'locale'>,
): Promise<Buffer> {
  return invoicePdf({
    number: row.number,
    kind: row.kind,
    issued_at: row.issued_at,
    currency: row.currency,
    content: row.content as unknown as InvoiceContent,
    xml: documentXml(row),
    loc: localeOf(row.locale),
  });
}

/** A document of the account's order `orderId`, by number; 404 for another order's or account's. */
export async function orderDocument(db: Db, accountId: number, orderId: number, number: string): Promise<Row> {
  const row = await findInvoiceByNumber(db, accountId, number);
  if (!row || row.order_id !== orderId) throw notFound(`No invoice "${number}" on this order`);
  return row;
}

/** A document by the order page's secret and its number; 404 when either does not match. */
export async function buyerDocument(db: Db, secret: string, number: string): Promise<Row> {
  const row = await findInvoiceBySecret(db, secret, number);
  if (!row) throw notFound('No such invoice here');
  return row;
}

/** The documents to attach to the ticket mail: the order's standing invoice, as PDF. */
export async function invoiceAttachments(
  db: Db,
  orderId: number,
): Promise<Array<{ filename: string; content: Buffer; contentType: string }>> {
  const rows = await listOrderInvoices(db, orderId);
  const standing = rows.filter((r) => r.kind === 'invoice' && r.canceled_at === null).at(-1);
  if (!standing) return [];
  const row = await findInvoiceById(db, standing.id);
  if (!row) return [];
  return [{ filename: `${row.number}.pdf`, content: await documentPdf(row), contentType: 'application/pdf' }];
}

export interface InvoicedVat {
  currency: string;
  vat_cents: number;
  total_cents: number;
  invoices: number;
  credit_notes: number;
}

/** "VAT on invoices" beside the income report: what the invoices say, less their credit notes. */
export async function vatOnInvoices(db: Db, accountId: number, eventSlug: string): Promise<InvoicedVat[]> {
  const rows = await invoicedVat(db, accountId, eventSlug);
  return rows.map((r) => ({ ...r, vat_cents: Number(r.vat_cents), total_cents: Number(r.total_cents) }));
}
