import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import type { Answer, ItemAnswer } from '../../platform/db/schema.ts';
import { formatMoney } from '../../platform/money.ts';
import { randomRef, randomSecret } from '../../platform/secrets.ts';
import type { EventRow } from '../events/events.repo.ts';
import { buildLines, inventoryNames, type BasketRequest } from './build-lines.ts';
import { loadCatalogue } from './catalogue.ts';
import { applyCodes, redeemCodes, type AppliedCode } from './codes.ts';
import { fulfilOrder } from './fulfil-order.ts';
import { apiHoldEnd } from './holds.ts';
import { amountTooSmall, emailRequired, salesClosed, soldOut } from './orders.errors.ts';
import { cardMinimum, orderTotals, type PricedLine } from './pricing.ts';
import { expireHolds, readAvailability, tryReserve, unitsByInventory } from './stock.ts';

export interface PlaceOrderInput extends BasketRequest {
  accountId: number;
  event: EventRow;
  email?: string | null;
  name?: string | null;
  channel: 'api' | 'web';
  /** default: the event currency */
  currency?: string;
  audienceId?: number | null;
  portalId?: number | null;
  codes?: string[];
  answers?: Answer[];
  itemAnswers?: ItemAnswer[];
  /** hold length for a pending order; default: the API payment window */
  holdMs?: number;
  /** Idempotency-Key scoped to the sending token */
  idempotency?: { tokenId: number; key: string };
}

export interface PlacedOrder {
  orderId: number;
  /** false when an Idempotency-Key replay returned an existing order */
  created: boolean;
}

/** Sales close at sales_end_at, else when the event ends, else when it starts. */
export function salesEnd(event: Pick<EventRow, 'sales_end_at' | 'ends_at' | 'starts_at'>): Date {
  return new Date(event.sales_end_at ?? event.ends_at ?? event.starts_at);
}

/**
 * The checkout pipeline shared by the machine API and the browser shop: on-sale and item
 * checks, pricing (group discounts, tax, codes), the availability read, then one transaction
 * that reserves stock with guarded updates and writes the order. A zero-total order is
 * fulfilled in that same transaction. Nothing is written when any check fails.
 */
export async function placeOrder(ctx: AppContext, input: PlaceOrderInput): Promise<PlacedOrder> {
  const { event } = input;
  if (input.idempotency) {
    const replay = await findIdempotentOrder(ctx.db, input.idempotency);
    if (replay) return { orderId: replay, created: false };
  }
  const now = ctx.clock.now();
  if (now.getTime() >= salesEnd(event).getTime()) throw salesClosed();
  const currency = input.currency ?? event.currency;
  const catalogue = await loadCatalogue(
    ctx.db,
    input.accountId,
    event.id,
    input.items.map((i) => i.ticket_type_id),
    {
      goods: Boolean(input.goods?.length),
      sessions: input.items.some((i) => i.session_id !== undefined),
      donations: Boolean(input.donations?.length),
    },
  );
  const lines = buildLines(input, catalogue, {
    eventId: event.id,
    eventCurrency: event.currency,
    currency,
    taxMode: event.tax_mode,
    audienceId: input.audienceId ?? null,
    sessionsSelectable: input.channel === 'web',
  });
  const codes: AppliedCode[] = input.codes?.length
    ? await applyCodes(ctx.db, input.accountId, event.id, input.codes, lines, event.tax_mode, now)
    : [];
  const totals = orderTotals(
    lines,
    event.tax_mode,
    codes.reduce((s, c) => s + c.amount_cents, 0),
  );
  const email = input.email?.trim() || null;
  if (totals.total_cents === 0 && !email) throw emailRequired();
  if (totals.total_cents > 0 && totals.total_cents < cardMinimum(currency))
    throw amountTooSmall(formatMoney(cardMinimum(currency), currency));

  const units = unitsByInventory(lines);
  const names = inventoryNames(lines);
  const available = await readAvailability(ctx.db, input.accountId, [...units.keys()], now);
  for (const [id, q] of units) {
    const a = available.get(id);
    if (a && a.remaining < q) {
      throw soldOut(a.remaining === 0 ? `"${names.get(id)}" is sold out` : `"${names.get(id)}": only ${a.remaining} left`);
    }
  }

  const fxRate = currency === event.currency ? '1' : (event.fx_rates[currency] ?? '1');
  const expiresAt =
    totals.total_cents === 0 ? null : input.holdMs ? new Date(now.getTime() + input.holdMs) : apiHoldEnd(event, now);

  for (let attempt = 0; ; attempt++) {
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        if (input.idempotency) {
          const claimed = await claimIdempotencyKey(trx, input.accountId, input.idempotency);
          if (claimed !== 'claimed') return { orderId: claimed, created: false };
        }
        const order = await trx
          .insertInto('orders')
          .values({
            account_id: input.accountId,
            event_id: event.id,
            ref: randomRef(),
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
            access_secret: randomSecret(),
            qr_token: randomSecret(),
            codes_key: codes.map((c) => c.code).join(','),
            answers: JSON.stringify(input.answers ?? []),
            item_answers: JSON.stringify(input.itemAnswers ?? []),
            created_at: now,
            expires_at: expiresAt,
          })
          .returning(['id', 'ref', 'account_id', 'event_id'])
          .executeTakeFirstOrThrow();
        await insertLines(trx, order.id, input.accountId, event.id, lines);
        if (codes.length) {
          await trx
            .insertInto('order_discounts')
            .values(
              codes.map((c, i) => ({
                account_id: input.accountId,
                order_id: order.id,
                discount_code_id: c.id,
                code: c.code,
                amount_cents: c.amount_cents,
                position: i,
              })),
            )
            .execute();
        }
        await trx
          .insertInto('order_log')
          .values({
            account_id: input.accountId,
            order_id: order.id,
            action: 'created',
            data: JSON.stringify({ channel: input.channel, total_cents: totals.total_cents }),
            created_at: now,
          })
          .execute();
        // Stock last: the hot inventory row stays locked only from here to the commit.
        if (codes.length) await redeemCodes(trx, codes);
        await reserveOrThrow(trx, units, now);
        if (totals.total_cents === 0) await fulfilOrder(trx, ctx, order, now, 'zero total');
        if (input.idempotency) {
          await trx
            .updateTable('idempotency_keys')
            .set({ order_id: order.id })
            .where('token_id', '=', input.idempotency.tokenId)
            .where('key', '=', input.idempotency.key)
            .execute();
        }
        return { orderId: order.id, created: true };
      });
    } catch (err) {
      // A generated ref (1 in 10^12) or secret collided: try again with new ones.
      if (attempt < 3 && isUniqueViolation(err, ['orders_account_id_ref_key', 'orders_qr_token_key', 'orders_access_secret_key']))
        continue;
      throw err;
    }
  }
}

async function reserveOrThrow(trx: Db, units: Map<number, number>, now: Date): Promise<void> {
  let failed = await tryReserve(trx, units);
  if (failed === null) return;
  // Holds that ran out still count in `taken` until swept: release them and try once more.
  const released = await expireHolds(trx, now, { inventoryId: failed });
  if (released.length) failed = await tryReserve(trx, units);
  if (failed !== null) throw soldOut('Something in this order sold out while it was being placed');
}

async function insertLines(trx: Db, orderId: number, accountId: number, eventId: number, lines: PricedLine[]): Promise<void> {
  await trx
    .insertInto('order_lines')
    .values(lines.map((l, i) => ({ ...l, account_id: accountId, order_id: orderId, event_id: eventId, position: i })))
    .execute();
}

async function findIdempotentOrder(db: Db, k: { tokenId: number; key: string }): Promise<number | null> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select('order_id')
    .where('token_id', '=', k.tokenId)
    .where('key', '=', k.key)
    .executeTakeFirst();
  return row?.order_id ?? null;
}

/**
 * Inserts the key row first in the order's transaction. A concurrent insert of the same key
 * waits on the unique index until the first transaction ends: if it committed, the loser reads
 * the order it made; if it rolled back (e.g. sold out), the loser goes on and creates its own.
 */
async function claimIdempotencyKey(trx: Db, accountId: number, k: { tokenId: number; key: string }): Promise<'claimed' | number> {
  const inserted = await trx
    .insertInto('idempotency_keys')
    .values({ account_id: accountId, token_id: k.tokenId, key: k.key })
    .onConflict((oc) => oc.columns(['token_id', 'key']).doNothing())
    .returning('token_id')
    .executeTakeFirst();
  if (inserted) return 'claimed';
  const existing = await findIdempotentOrder(trx, k);
  if (existing !== null) return existing;
  throw new Error('idempotency key row without an order');
}

export function isUniqueViolation(err: unknown, constraints?: string[]): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e?.code !== '23505') return false;
  if (!constraints) return true;
  return constraints.some((c) => e.constraint === c || (e.message ?? '').includes(c));
}
