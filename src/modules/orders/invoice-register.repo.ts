import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { InvoiceAddress, InvoiceIssuer } from '../../platform/db/schema.ts';
import { isReverseCharge } from '../accounts/vat-ids.ts';
import { chargedAmounts, creditedRates, type RateAmounts } from './charged-amounts.ts';

/**
 * The invoice register (contract section 14): invoices and credit notes with their numbers,
 * written in the transaction that marks an order paid or refunds it. It lives with the orders
 * module, the owner of those transactions, so payments and refunds issue them without knowing
 * the invoices module above them, which renders the documents (PDF, XML) from what is kept here.
 *
 * Numbers are `{prefix}{year}-{sequence}`, the sequence per account and year taken from
 * `invoice_counters` by one upsert ... returning: the row stays locked until the transaction
 * ends, so concurrent payments on any instance queue for it, and a transaction that rolls back
 * takes its increment with it. No gaps, no number twice.
 */

export interface InvoiceLine {
  name: string;
  quantity: number;
  /** gross before codes */
  gross_cents: number;
  discount_cents: number;
  net_cents: number;
  rate_bp: number;
}

/** What an invoice or credit note says, kept as issued. */
export interface InvoiceContent {
  issuer: InvoiceIssuer;
  buyer: { name: string | null; email: string | null; address: InvoiceAddress | null };
  order: { ref: string; event_name: string; event_starts_at: string; paid_at: string | null };
  reverse_charge: boolean;
  lines: InvoiceLine[];
  rates: RateAmounts[];
  net_cents: number;
  vat_cents: number;
  total_cents: number;
  /** credit notes: the invoice corrected */
  corrects?: { number: string; issued_at: string };
  /** credit notes: a refund, or the cancellation of an invoice replaced after a correction */
  reason?: 'refund' | 'reissue';
}

export interface IssuedDocument {
  id: number;
  number: string;
  kind: 'invoice' | 'credit_note';
}

async function nextNumber(trx: Db, accountId: number, year: number, prefix: string) {
  const { last_sequence } = await trx
    .insertInto('invoice_counters')
    .values({ account_id: accountId, year, last_sequence: 1 })
    .onConflict((oc) =>
      oc.columns(['account_id', 'year']).doUpdateSet({ last_sequence: sql<number>`invoice_counters.last_sequence + 1` }),
    )
    .returning('last_sequence')
    .executeTakeFirstOrThrow();
  return { year, sequence: last_sequence, number: `${prefix}${year}-${last_sequence}` };
}

function orderFacts(trx: Db, orderId: number) {
  return trx
    .selectFrom('orders as o')
    .innerJoin('accounts as a', 'a.id', 'o.account_id')
    .innerJoin('events as e', 'e.id', 'o.event_id')
    .select([
      'o.id',
      'o.account_id',
      'o.ref',
      'o.total_cents',
      'o.currency',
      'o.name',
      'o.email',
      'o.locale',
      'o.paid_at',
      'o.invoice_address',
      'a.invoicing',
      'e.name as event_name',
      'e.starts_at as event_starts_at',
      'e.tax_mode',
      'e.locale as event_locale',
    ])
    .where('o.id', '=', orderId)
    .executeTakeFirst();
}

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/**
 * Issues the invoice of a paid order, when its account issues invoices (and, with
 * `business_only`, the buyer gave an invoice address); a free order gets one only `onRequest`
 * (contract section 14). Idempotent: an order with a standing invoice keeps it. Call it last in
 * the transaction that marks the order paid: the counter's row lock is held from here to the commit.
 */
export async function issueInvoice(
  trx: Db,
  orderId: number,
  at: Date,
  opts: { onRequest?: boolean } = {},
): Promise<IssuedDocument | null> {
  const o = await orderFacts(trx, orderId);
  const inv = o?.invoicing;
  if (!o || !inv?.enabled || (Number(o.total_cents) <= 0 && !opts.onRequest)) return null;
  if (inv.business_only && !o.invoice_address) return null;
  if (await standingInvoice(trx, orderId)) return null;
  const [lines, discounts] = await Promise.all([
    trx
      .selectFrom('order_lines')
      .select(['kind', 'ticket_type_id', 'name', 'quantity', 'total_cents', 'tax_cents', 'tax_rate_bp'])
      .where('order_id', '=', orderId)
      .orderBy('position')
      .execute(),
    trx
      .selectFrom('order_discounts as d')
      .leftJoin('discount_codes as c', 'c.id', 'd.discount_code_id')
      .select(['d.amount_cents', 'c.ticket_type_ids'])
      .where('d.order_id', '=', orderId)
      .orderBy('d.position')
      .execute(),
  ]);
  // reverse charge is decided where the price is made: the checkout charged such a buyer the net
  // price (pricing.ts). An address given after payment names the buyer; it never turns VAT that
  // was charged into none.
  const reverse = isReverseCharge(inv.issuer.country, o.invoice_address) && lines.every((l) => l.tax_rate_bp === 0);
  const a = chargedAmounts(lines, discounts, o.tax_mode, { reverseCharge: reverse });
  const content: InvoiceContent = {
    issuer: inv.issuer,
    buyer: { name: o.name, email: o.email, address: o.invoice_address },
    order: { ref: o.ref, event_name: o.event_name, event_starts_at: iso(o.event_starts_at)!, paid_at: iso(o.paid_at) },
    reverse_charge: reverse,
    lines: lines.map((l, i) => ({
      name: l.name,
      quantity: l.quantity,
      gross_cents: a.lines[i]!.gross_cents,
      discount_cents: a.lines[i]!.discount_cents,
      net_cents: a.lines[i]!.net_cents,
      rate_bp: a.lines[i]!.rate_bp,
    })),
    rates: a.rates,
    net_cents: a.net_cents,
    vat_cents: a.vat_cents,
    total_cents: a.total_cents,
  };
  const n = await nextNumber(trx, o.account_id, at.getUTCFullYear(), inv.number_prefix);
  const row = await trx
    .insertInto('invoices')
    .values({
      account_id: o.account_id,
      order_id: o.id,
      kind: 'invoice',
      ...n,
      corrects_id: null,
      issued_at: at,
      currency: o.currency,
      total_cents: a.total_cents,
      vat_cents: a.vat_cents,
      locale: documentLocale(o.locale ?? o.event_locale),
      content: JSON.stringify(content),
    })
    .returning(['id', 'number', 'kind'])
    .executeTakeFirstOrThrow();
  return row;
}

/** The documents' languages (contract section 14): German for a German order, else English. */
function documentLocale(tag: string | null): 'en' | 'de' {
  return tag?.toLowerCase().startsWith('de') ? 'de' : 'en';
}

/**
 * A credit note for `amountCents` of the order's standing invoice (a refund: the amount
 * refunded; a re-issue: all that is left of it), never more than the invoice still has. With
 * `cancel`, the invoice is marked replaced. Nothing when the order has no invoice (it was never
 * issued one, or the refund returns a payment the order never took).
 */
export async function issueCreditNote(
  trx: Db,
  orderId: number,
  amountCents: number | 'rest',
  at: Date,
  opts: { reason: 'refund' | 'reissue' } = { reason: 'refund' },
): Promise<IssuedDocument | null> {
  const invoice = await trx
    .selectFrom('invoices')
    .select(['id', 'account_id', 'order_id', 'number', 'issued_at', 'currency', 'total_cents', 'locale', 'content'])
    .where('order_id', '=', orderId)
    .where('kind', '=', 'invoice')
    .where('canceled_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  if (!invoice) return null;
  const credited = await creditedSoFar(trx, invoice.id);
  const left = Number(invoice.total_cents) - credited;
  const amount = Math.min(amountCents === 'rest' ? left : amountCents, left);
  if (amount <= 0) {
    if (opts.reason === 'reissue') await markReplaced(trx, invoice.id, at);
    return null;
  }
  const inv = invoice.content as unknown as InvoiceContent;
  const whole = credited === 0 && amount === Number(invoice.total_cents);
  const rates = whole ? inv.rates : creditedRates(inv.rates, amount);
  const sum = (k: 'net_cents' | 'vat_cents') => rates.reduce((s, r) => s + r[k], 0);
  const content: InvoiceContent = {
    ...inv,
    lines: whole
      ? inv.lines
      : rates
          .filter((r) => r.gross_cents > 0)
          .map((r) => ({
            name: inv.order.event_name,
            quantity: 1,
            gross_cents: r.gross_cents,
            discount_cents: 0,
            net_cents: r.net_cents,
            rate_bp: r.rate_bp,
          })),
    rates: rates.filter((r) => r.gross_cents > 0),
    net_cents: sum('net_cents'),
    vat_cents: sum('vat_cents'),
    total_cents: amount,
    corrects: { number: invoice.number, issued_at: iso(invoice.issued_at)! },
    reason: opts.reason,
  };
  const settings = await trx.selectFrom('accounts').select('invoicing').where('id', '=', invoice.account_id).executeTakeFirst();
  const prefix = settings?.invoicing?.number_prefix ?? '';
  const n = await nextNumber(trx, invoice.account_id, at.getUTCFullYear(), prefix);
  const row = await trx
    .insertInto('invoices')
    .values({
      account_id: invoice.account_id,
      order_id: invoice.order_id,
      kind: 'credit_note',
      ...n,
      corrects_id: invoice.id,
      issued_at: at,
      currency: invoice.currency,
      total_cents: amount,
      vat_cents: content.vat_cents,
      locale: invoice.locale,
      content: JSON.stringify(content),
    })
    .returning(['id', 'number', 'kind'])
    .executeTakeFirstOrThrow();
  if (opts.reason === 'reissue') await markReplaced(trx, invoice.id, at);
  return row;
}

async function creditedSoFar(trx: Db, invoiceId: number): Promise<number> {
  const r = await trx
    .selectFrom('invoices')
    .select(sql<string>`coalesce(sum(total_cents), 0)`.as('n'))
    .where('corrects_id', '=', invoiceId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

async function markReplaced(trx: Db, invoiceId: number, at: Date) {
  await trx.updateTable('invoices').set({ canceled_at: at }).where('id', '=', invoiceId).execute();
}

/**
 * Cancels the order's standing invoice by a credit note and issues a new one from the order as
 * it is now (its corrected invoice address): the re-issue after a correction. Refused while part
 * of the invoice is credited by a refund (the new invoice would have to say what was refunded).
 */
export async function reissueInvoice(
  trx: Db,
  orderId: number,
  at: Date,
): Promise<{ credit: IssuedDocument | null; invoice: IssuedDocument | null } | 'credited'> {
  const standing = await standingInvoice(trx, orderId, true);
  if (standing && (await creditedSoFar(trx, standing.id)) > 0) return 'credited';
  const credit = await issueCreditNote(trx, orderId, 'rest', at, { reason: 'reissue' });
  // staff asked for it: a free order, or one paid before invoicing was on, gets its invoice too
  const invoice = await issueInvoice(trx, orderId, at, { onRequest: true });
  return { credit, invoice };
}

/** The order's standing invoice (issued, not replaced by a re-issue), locked with `forUpdate`. */
function standingInvoice(db: Db, orderId: number, forUpdate = false) {
  const q = db
    .selectFrom('invoices')
    .select('id')
    .where('order_id', '=', orderId)
    .where('kind', '=', 'invoice')
    .where('canceled_at', 'is', null);
  return (forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

/** Whether the order has an invoice standing (issued, not replaced by a re-issue). */
export async function hasStandingInvoice(db: Db, orderId: number): Promise<boolean> {
  return (await standingInvoice(db, orderId)) !== undefined;
}

/** An order's invoices and credit notes, oldest first. */
export function listOrderInvoices(db: Db, orderId: number) {
  return db
    .selectFrom('invoices')
    .select(['id', 'number', 'kind', 'issued_at', 'currency', 'total_cents', 'vat_cents', 'canceled_at', 'corrects_id', 'locale'])
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
}

/** One document of an account by its number, with what it says. */
export function findInvoiceByNumber(db: Db, accountId: number, number: string) {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('number', '=', number)
    .executeTakeFirst();
}

/** One document of the order whose page secret is given (the buyer's capability URL). */
export function findInvoiceBySecret(db: Db, secret: string, number: string) {
  return db
    .selectFrom('invoices as i')
    .innerJoin('orders as o', 'o.id', 'i.order_id')
    .selectAll('i')
    .where('o.access_secret', '=', secret)
    .where('i.number', '=', number)
    .executeTakeFirst();
}

export function findInvoiceById(db: Db, id: number) {
  return db.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirst();
}

/** VAT on an event's invoices less their credit notes, in each currency invoiced (the console's reports). */
export function invoicedVat(db: Db, accountId: number, eventSlug: string) {
  return db
    .selectFrom('invoices as i')
    .innerJoin('orders as o', 'o.id', 'i.order_id')
    .innerJoin('events as e', 'e.id', 'o.event_id')
    .select([
      'i.currency',
      sql<string>`coalesce(sum(case when i.kind = 'invoice' then i.vat_cents else -i.vat_cents end), 0)`.as('vat_cents'),
      sql<string>`coalesce(sum(case when i.kind = 'invoice' then i.total_cents else -i.total_cents end), 0)`.as('total_cents'),
      sql<number>`count(*) filter (where i.kind = 'invoice')::int`.as('invoices'),
      sql<number>`count(*) filter (where i.kind = 'credit_note')::int`.as('credit_notes'),
    ])
    .where('i.account_id', '=', accountId)
    .where('e.slug', '=', eventSlug)
    .groupBy('i.currency')
    .orderBy('i.currency')
    .execute();
}
