import { followedCacheOf } from '../../platform/cache.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import type { Answer, InvoiceAddress, ItemAnswer } from '../../platform/db/schema.ts';
import { formatMoney } from '../../platform/money.ts';
import type { EventRow } from '../events/events.repo.ts';
import { isBuyerVisible } from '../events/event-listings.service.ts';
import { readInvoicing } from '../accounts/invoicing.service.ts';
import { isReverseCharge } from '../accounts/vat-ids.ts';
import { notFound } from '../../platform/errors.ts';
import { isForeignKeyViolation } from '../../platform/db/pg-errors.ts';
import { buildLines, inventoryNames, seatWants, type BasketRequest } from './build-lines.ts';
import { loadCatalogue, type Catalogue } from './catalogue.repo.ts';
import { applyCodes, type AppliedCode } from './codes.service.ts';
import { apiHoldEnd } from './holds.ts';
import { boundsProblem, oversizedLines, refuseOutOfBounds, refuseOversized, withStandIns } from './order-bounds.ts';
import {
  amountTooSmall,
  emailRequired,
  invoiceAddressOff,
  invoiceAddressRequired,
  salesClosed,
  salesNotStarted,
} from './orders.errors.ts';
import { cardMinimum, orderTotals, reverseChargeLines, type PricedLine } from './pricing.ts';
import { writeOfferOrder, writeOrder, type OrderRow, type PreparedOrder } from './order-writer.repo.ts';
import { logOrder } from './order-state.repo.ts';
import type { SeatView } from './orders.repo.ts';
import { unitsByInventory } from '../inventory/stock.repo.ts';

export interface PlaceOrderInput extends BasketRequest {
  accountId: number;
  event: EventRow;
  email?: string | null;
  name?: string | null;
  channel: 'api' | 'web' | 'console';
  /** a complimentary order: every line at no charge (codes ignored), paid at once; its reason and issuer are logged */
  comp?: { reason: string; by: string };
  /** default: the event currency */
  currency?: string;
  audienceId?: number | null;
  portalId?: number | null;
  codes?: string[];
  answers?: Answer[];
  itemAnswers?: ItemAnswer[];
  /** the language the buyer bought in (BCP 47), for the order's mails and pages */
  locale?: string | null;
  /** hold length for a pending order; default: the API payment window */
  holdMs?: number;
  /** Idempotency-Key scoped to the sending token */
  idempotency?: { tokenId: number; key: string };
  /** the buyer's invoice address, already read by readInvoiceAddress (contract section 14) */
  invoiceAddress?: InvoiceAddress | null;
}

export interface PlacedOrder {
  orderId: number;
  /** false when an Idempotency-Key replay returned an existing order */
  created: boolean;
  /** the order as written, with its lines and codes (only when created): no read-back needed */
  written?: { order: OrderRow; lines: PricedLine[]; codes: AppliedCode[]; seated: boolean; seats?: SeatView[] };
}

/** Sales close at sales_end_at, else when the event ends, else when it starts. */
export function salesEnd(event: Pick<EventRow, 'sales_end_at' | 'ends_at' | 'starts_at'>): Date {
  return new Date(event.sales_end_at ?? event.ends_at ?? event.starts_at);
}

/** When the checkout opens (contract section 11), or null when it is open until sales end. */
export function salesStart(event: Pick<EventRow, 'sales_start_at'>): Date | null {
  return event.sales_start_at ? new Date(event.sales_start_at) : null;
}

/**
 * The checkout pipeline shared by the machine API and the browser shop: on-sale and item
 * checks, pricing (group discounts, tax, codes), then the write stage (order-writer.ts), where
 * stock is read and taken under the inventory rows' locks and the order written, sharing one
 * transaction with the event's other orders in flight. A zero-total order is fulfilled in that
 * same transaction. Nothing is written when any check fails.
 */
export async function placeOrder(ctx: AppContext, input: PlaceOrderInput): Promise<PlacedOrder> {
  // the event deleted (it had no orders) while this one was on its way: it is gone, as if unknown
  const write = (prepared: PreparedOrder) =>
    writeOrder(ctx, prepared).catch((err: unknown) => {
      if (isForeignKeyViolation(err, ['orders_event_id_fkey'])) throw notFound(`No event with slug "${input.event.slug}"`);
      throw err;
    });
  let prepared = await prepareOrder(ctx, input);
  let outcome = await write(prepared);
  if ('rejected' in outcome && outcome.rejected.code === 'busy') {
    // an item of the cached catalogue got a capacity meanwhile: price it again from the database
    followedCacheOf<Catalogue>(ctx.db, 'catalogue', ctx.config.catalogueCacheMs).clear();
    prepared = await prepareOrder(ctx, input);
    outcome = await write(prepared);
  }
  if ('rejected' in outcome) throw outcome.rejected;
  return outcome.created
    ? {
        orderId: outcome.order.id,
        created: true,
        written: {
          order: outcome.order,
          lines: prepared.lines,
          codes: prepared.codes,
          seated: Boolean(prepared.seats?.length),
          ...(outcome.seats ? { seats: outcome.seats } : {}),
        },
      }
    : { orderId: outcome.orderId, created: false };
}

/**
 * A waiting list's offer, in two steps: prepared (checked and priced, outside any transaction,
 * like any order), then written by writeOffer in the caller's transaction, which holds the
 * type's inventory row and the entry. The order may take units the public sees sold out (a
 * waitlisted row) and is logged 'waiting_list_offered', which makes the webhook. A refusal
 * (sold out, sales closed) throws like any order's.
 */
export function prepareOffer(ctx: AppContext, input: PlaceOrderInput): Promise<PreparedOrder> {
  return prepareOrder(ctx, input);
}

export async function writeOffer(
  trx: Db,
  ctx: AppContext,
  prepared: PreparedOrder,
  data: Record<string, unknown>,
): Promise<OrderRow> {
  const outcome = await writeOfferOrder(trx, ctx, prepared);
  if ('rejected' in outcome) throw outcome.rejected;
  if (!outcome.created) throw new Error('an offer is never a replay');
  await logOrder(trx, outcome.order, 'waiting_list_offered', prepared.now, data);
  return outcome.order;
}

/** Every check and price of an order, without writing anything: what the write stage needs. */
export async function prepareOrder(ctx: AppContext, input: PlaceOrderInput): Promise<PreparedOrder> {
  const { event } = input;
  const now = ctx.clock.now();
  // a draft or archived event is unknown to buyers and integrations alike (contract section 11)
  if (input.channel !== 'console' && !isBuyerVisible(event)) throw notFound(`No event with slug "${event.slug}"`);
  if (now.getTime() >= salesEnd(event).getTime()) throw salesClosed();
  // staff may issue orders (comps) before sales open; buyers and integrations wait for it
  const opens = salesStart(event);
  if (input.channel !== 'console' && opens && now.getTime() < opens.getTime()) throw salesNotStarted(opens);
  const { currency, lines, codes, totals, seats } = await priceBasket(ctx, input, now);
  const email = input.email?.trim() || null;
  if (totals.total_cents === 0 && !email) throw emailRequired();
  // the event asks for an invoice address, requires one (for an order with something to pay) or takes none
  const addressMode = event.invoice_address ?? 'optional';
  if (input.invoiceAddress && addressMode === 'off') throw invoiceAddressOff();
  if (!input.invoiceAddress && addressMode === 'required' && totals.total_cents > 0 && !input.comp)
    throw invoiceAddressRequired();
  if (totals.total_cents > 0 && totals.total_cents < cardMinimum(currency))
    throw amountTooSmall(formatMoney(cardMinimum(currency), currency));

  const fxRate = currency === event.currency ? '1' : (event.fx_rates[currency] ?? '1');
  const expiresAt =
    totals.total_cents === 0 ? null : input.holdMs ? new Date(now.getTime() + input.holdMs) : apiHoldEnd(event, now);
  return {
    row: {
      account_id: input.accountId,
      event_id: event.id,
      status: 'pending',
      currency,
      fx_rate: fxRate,
      ...totals,
      ticket_units: lines.filter((l) => l.kind === 'tickets').reduce((n, l) => n + l.quantity, 0),
      tax_cents: lines.reduce((n, l) => n + l.tax_cents, 0),
      name: input.name?.trim() || null,
      email,
      audience_id: input.audienceId ?? null,
      portal_id: input.portalId ?? null,
      channel: input.channel,
      codes_key: codes.map((c) => c.code).join(','),
      answers: JSON.stringify(input.answers ?? []),
      item_answers: JSON.stringify(input.itemAnswers ?? []),
      locale: input.locale ?? null,
      // only when given: the batch writer's one-statement path takes rows of one shape
      ...(input.invoiceAddress ? { invoice_address: JSON.stringify(input.invoiceAddress) } : {}),
      created_at: now,
      expires_at: expiresAt,
    },
    lines,
    codes,
    units: unitsByInventory(lines),
    names: inventoryNames(lines),
    ...(seats.length ? { seats } : {}),
    ...(input.idempotency ? { idempotency: input.idempotency } : {}),
    ...(input.comp ? { note: { comp: true, reason: input.comp.reason, by: input.comp.by } } : {}),
    now,
  };
}

/**
 * What a basket costs: its lines priced from the catalogue (reverse charge applied), its codes
 * applied and the totals, without any check of who buys or writing anything. The checkout's
 * first stage, and the event page's running total with a typed code (`quoteBasket`).
 */
async function priceBasket(ctx: AppContext, input: PlaceOrderInput, now: Date) {
  const { event } = input;
  const currency = input.currency ?? event.currency;
  const typeIds = input.items.map((i) => i.ticket_type_id);
  const needs = {
    goods: Boolean(input.goods?.length),
    sessions: input.items.some((i) => i.session_id !== undefined),
    donations: Boolean(input.donations?.length),
  };
  // Catalogue rows are kept while no transaction changed the account's catalogue (followedCacheOf).
  // Prices and caps are read from them; stock is always checked under the inventory row lock.
  const catalogue = await followedCacheOf<Catalogue>(ctx.db, 'catalogue', ctx.config.catalogueCacheMs).get(
    `${input.accountId}/${event.id}/${[...typeIds].sort((a, b) => a - b).join(',')}/${+needs.goods}${+needs.sessions}${+needs.donations}`,
    () => loadCatalogue(ctx.db, input.accountId, event.id, typeIds, needs),
  );
  // a line past MAX_LINE_QUANTITY is checked like any other, then refused (order-bounds.ts)
  const oversized = oversizedLines(input);
  const built = buildLines(oversized.length ? withStandIns(input) : input, catalogue, {
    eventId: event.id,
    eventCurrency: event.currency,
    currency,
    taxMode: event.tax_mode,
    audienceId: input.audienceId ?? null,
    sessionsSelectable: input.channel === 'web',
  });
  if (oversized.length) await refuseOversized(ctx, input.accountId, oversized, built, now);
  const seats = seatWants(input, catalogue, built);
  const lines = input.comp
    ? built.map((l) => ({ ...l, unit_price_cents: 0, total_cents: 0, tax_cents: 0 }))
    : (await reverseCharged(ctx, input))
      ? reverseChargeLines(built, event.tax_mode)
      : built;
  const problem = boundsProblem(lines, event.tax_mode, currency);
  if (problem !== null) await refuseOutOfBounds(ctx, input.accountId, lines, problem, now);
  const codes: AppliedCode[] =
    input.codes?.length && !input.comp
      ? await applyCodes(ctx.db, input.accountId, event.id, input.codes, lines, event.tax_mode, now)
      : [];
  const totals = orderTotals(
    lines,
    event.tax_mode,
    codes.reduce((s, c) => s + c.amount_cents, 0),
  );
  return { currency, lines, codes, totals, seats };
}

/** The running total of a basket on the event page: the checkout's own prices and codes, nothing written. */
export async function quoteBasket(ctx: AppContext, input: PlaceOrderInput) {
  const { lines, codes, totals } = await priceBasket(ctx, input, ctx.clock.now());
  return { lines: lines.length, codes: codes.map((c) => ({ code: c.code, amount_cents: c.amount_cents })), ...totals };
}

/**
 * Whether the buyer's invoice address makes the order reverse charge: only an address with a VAT
 * ID can, so the account's settings are read only then (a small share of orders).
 */
async function reverseCharged(ctx: AppContext, input: PlaceOrderInput): Promise<boolean> {
  if (!input.invoiceAddress?.vat_id) return false;
  const invoicing = await readInvoicing(ctx.db, input.accountId);
  return Boolean(invoicing?.enabled) && isReverseCharge(invoicing!.issuer.country, input.invoiceAddress);
}
