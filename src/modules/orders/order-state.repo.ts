import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { InvoiceAddress } from '../../platform/db/schema.ts';
import { indexedSecret } from '../../platform/secrets.ts';
import { lapsedHolds, releaseStock, releaseUnits, unitsByInventory } from '../inventory/stock.repo.ts';
import { releaseSeats, releaseSeatsOf } from '../inventory/seats.repo.ts';

/**
 * Every change of an order after it is written: paid, canceled, expired, refunded, its tickets
 * minted and voided, its buyer corrected, its log. The orders module owns `orders`, `tickets` and
 * `order_log`; payments, refunds and the importer change them only through these functions, so
 * what an order can become is read in one file. Each takes the caller's transaction: the change
 * commits with the payment, refund or cancel that caused it.
 */

export interface OrderKey {
  id: number;
  account_id: number;
}

export interface MintTarget extends OrderKey {
  event_id: number;
  ref: string;
}

export function logOrder(db: Db, o: OrderKey, action: string, at: Date, data: Record<string, unknown> = {}) {
  return db
    .insertInto('order_log')
    .values({ account_id: o.account_id, order_id: o.id, action, data: JSON.stringify(data), created_at: at })
    .execute();
}

/** Pending (or reinstated) to paid, with one ticket per ticket unit. The hold becomes sold: stock stays taken. */
export async function markPaid(trx: Db, order: MintTarget, at: Date): Promise<void> {
  await trx
    .updateTable('orders')
    .set({ status: 'paid', paid_at: at, expires_at: null, canceled_at: null })
    .where('id', '=', order.id)
    .execute();
  await mintTickets(trx, order, at);
}

/**
 * Tickets written by one insert: a statement carries at most 65,535 parameters, ten a ticket, and
 * one order can hold a hundred lines of up to MAX_LINE_QUANTITY tickets (platform/limits.ts).
 */
const MINT_SLICE = 2_000;

/** One ticket per unit of each ticket line, refs `<order ref>-<n>`; idempotent per order. */
export async function mintTickets(trx: Db, order: MintTarget, at: Date): Promise<void> {
  const existing = await trx.selectFrom('tickets').select('id').where('order_id', '=', order.id).limit(1).executeTakeFirst();
  if (existing) return;
  const lines = await trx
    .selectFrom('order_lines')
    // a ticket line's session_id is the session chosen for it (its `sessions` line holds the stock)
    .select(['id', 'position', 'ticket_type_id', 'session_id', 'quantity'])
    .where('order_id', '=', order.id)
    .where('kind', '=', 'tickets')
    .orderBy('position')
    .execute();
  // the order's seats, per line in the order they were chosen: the line's tickets take them in turn
  const seats = await trx
    .selectFrom('order_seats')
    .select(['line_position', 'seat_guid'])
    .where('order_id', '=', order.id)
    .where('released_at', 'is', null)
    .orderBy('id')
    .execute();
  const seatsOf = new Map<number, string[]>();
  for (const s of seats)
    (seatsOf.get(s.line_position) ?? seatsOf.set(s.line_position, []).get(s.line_position)!).push(s.seat_guid);
  const rows = [];
  let n = 0;
  for (const l of lines) {
    const lineSeats = seatsOf.get(l.position) ?? [];
    for (let i = 0; i < l.quantity; i++) {
      n++;
      rows.push({
        account_id: order.account_id,
        event_id: order.event_id,
        order_id: order.id,
        order_line_id: l.id,
        ticket_type_id: l.ticket_type_id!,
        session_id: l.session_id,
        ref: `${order.ref}-${n}`,
        qr_token: indexedSecret(),
        position: n,
        seat_guid: lineSeats[i] ?? null,
        created_at: at,
      });
    }
  }
  for (let i = 0; i < rows.length; i += MINT_SLICE) {
    await trx
      .insertInto('tickets')
      .values(rows.slice(i, i + MINT_SLICE))
      .execute();
  }
}

/**
 * Pending to canceled. `releaseHold` gives the stock back; a late payment on an order whose hold
 * had already been released (expired) passes false.
 */
export async function markCanceled(trx: Db, orderId: number, at: Date, opts: { releaseHold: boolean }): Promise<void> {
  await trx.updateTable('orders').set({ status: 'canceled', canceled_at: at }).where('id', '=', orderId).execute();
  if (opts.releaseHold) await releaseStock(trx, [orderId]);
}

/**
 * Cancels pending orders whose hold has run out, releasing their stock. Rows another
 * transaction is already working on are skipped (SKIP LOCKED), so any number of instances
 * can run this at once. `inventoryId` narrows it to holds on one row (the order path uses this
 * before it gives up on a sold-out row).
 */
export async function expireLapsedHolds(
  trx: Db,
  now: Date,
  opts: { inventoryId?: number; limit?: number } = {},
): Promise<number[]> {
  const expired = await lapsedHolds(trx, now, opts).execute();
  if (expired.length === 0) return [];
  const ids = expired.map((o) => o.id);
  await trx
    .updateTable('orders')
    .set({ status: 'canceled', canceled_at: sql`least(expires_at, ${now})` })
    .where('id', 'in', ids)
    .execute();
  await releaseStock(trx, ids);
  await trx
    .insertInto('order_log')
    .values(expired.map((o) => ({ account_id: o.account_id, order_id: o.id, action: 'expired', data: '{}', created_at: now })))
    .execute();
  return ids;
}

/**
 * Money given back on an order. A refund of the order (`endsOrder`) makes it refunded, voids its
 * tickets and releases its stock; a late payment returned on an order that was never honoured
 * only adds to refunded_cents.
 */
export async function recordRefunded(
  trx: Db,
  orderId: number,
  amountCents: number,
  at: Date,
  opts: { endsOrder: boolean },
): Promise<void> {
  await trx
    .updateTable('orders')
    .set({
      ...(opts.endsOrder ? { status: 'refunded' as const } : {}),
      refunded_at: at,
      refunded_cents: sql`refunded_cents + ${amountCents}`,
    })
    .where('id', '=', orderId)
    .execute();
  if (!opts.endsOrder) return;
  // what the order still holds: each line's quantity less its tickets an earlier partial refund
  // voided (and released), so no place is given back twice
  const lines = await trx
    .selectFrom('order_lines as l')
    .select([
      'l.inventory_id',
      'l.quantity',
      (eb) =>
        eb
          .selectFrom('tickets as t')
          .select(sql<number>`count(*)::int`.as('n'))
          .whereRef('t.order_line_id', '=', 'l.id')
          .where('t.status', '=', 'voided')
          .as('voided'),
    ])
    .where('l.order_id', '=', orderId)
    .where('l.inventory_id', 'is not', null)
    .execute();
  await trx.updateTable('tickets').set({ status: 'voided' }).where('order_id', '=', orderId).execute();
  await releaseSeats(trx, [orderId]);
  await releaseUnits(
    trx,
    unitsByInventory(lines.map((l) => ({ inventory_id: l.inventory_id, quantity: l.quantity - Number(l.voided ?? 0) }))),
  );
}

/**
 * Part of an order's money given back (the order stays paid): the chosen tickets that are still
 * valid become void and give back one unit of their line's stock each. Answers their refs.
 */
export async function recordPartRefunded(trx: Db, orderId: number, amountCents: number, ticketIds: number[]): Promise<string[]> {
  await trx
    .updateTable('orders')
    .set({ refunded_cents: sql`refunded_cents + ${amountCents}` })
    .where('id', '=', orderId)
    .execute();
  if (ticketIds.length === 0) return [];
  const voided = await trx
    .updateTable('tickets as t')
    .set({ status: 'voided' })
    .from('order_lines as l')
    .whereRef('l.id', '=', 't.order_line_id')
    .where('t.order_id', '=', orderId)
    .where('t.id', 'in', ticketIds)
    .where('t.status', '=', 'valid')
    .returning(['t.ref', 'l.inventory_id', 't.seat_guid'])
    .execute();
  await releaseSeatsOf(
    trx,
    orderId,
    voided.flatMap((v) => (v.seat_guid ? [v.seat_guid] : [])),
  );
  await releaseUnits(trx, unitsByInventory(voided.map((v) => ({ inventory_id: v.inventory_id, quantity: 1 }))));
  return voided.map((v) => v.ref);
}

export interface BuyerChanges {
  name?: string;
  email?: string;
  /** rotates the order page's secret: the old link stops working */
  rotateLink?: boolean;
}

export async function updateBuyer(trx: Db, orderId: number, changes: BuyerChanges): Promise<void> {
  const set: { name?: string; email?: string; access_secret?: string } = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.email !== undefined) set.email = changes.email;
  if (changes.rotateLink) set.access_secret = indexedSecret();
  if (Object.keys(set).length) await trx.updateTable('orders').set(set).where('id', '=', orderId).execute();
}

/** The buyer's invoice address corrected (or removed); the invoice is then issued again (invoice-register.repo). */
export async function setInvoiceAddress(trx: Db, orderId: number, address: InvoiceAddress | null): Promise<void> {
  await trx
    .updateTable('orders')
    .set({ invoice_address: address ? JSON.stringify(address) : null })
    .where('id', '=', orderId)
    .execute();
}
