import { sql } from 'kysely';
import { PREPARE } from '../../platform/db/callback-pool.ts';
import type { Db } from '../../platform/db/database.ts';
import { releaseSeats } from './seats.repo.ts';

/**
 * Stock lives in `inventory` rows (capacity, taken). `taken` counts paid units and pending holds,
 * expired ones included until they are released; readers subtract the expired holds themselves,
 * so an expired hold never blocks a buyer even before the sweeper runs.
 */

/** Units per inventory row, summed over lines. */
export function unitsByInventory(lines: ReadonlyArray<{ inventory_id: number | null; quantity: number }>): Map<number, number> {
  const m = new Map<number, number>();
  for (const l of lines) if (l.inventory_id !== null) m.set(l.inventory_id, (m.get(l.inventory_id) ?? 0) + l.quantity);
  return m;
}

export interface Availability {
  inventory_id: number;
  capacity: number;
  /** capacity minus live takes (paid + unexpired holds), floored at 0; 0 while someone waits for the row */
  remaining: number;
  /** someone is on the waiting list for these units: the public sees them sold out */
  waitlisted: boolean;
}

interface AvailabilityRow {
  id: number;
  capacity: number;
  taken: number;
  waitlisted: boolean;
  expired: number;
}

/**
 * The availability read as a query: capacity, taken, and the units of the row's holds that ran
 * out. Those are found from the row's event's lapsed holds (orders_event_live_holds), each one's
 * lines by order; `offset 0` keeps PostgreSQL from turning the lateral read into a join that
 * starts from order_lines, which has no index on inventory_id (a scan of every line).
 */
export function availabilityQuery(accountId: number, inventoryIds: number[], now: Date, opts: { prepared?: boolean } = {}) {
  return sql<AvailabilityRow>`${sql.raw(opts.prepared ? PREPARE : '')}
    select i.id, i.capacity, i.taken, i.waitlisted,
      coalesce((select sum(l.quantity) from orders o
        cross join lateral (select l.quantity from order_lines l where l.order_id = o.id and l.inventory_id = i.id offset 0) l
        where o.event_id = i.event_id and o.status = 'pending' and coalesce(o.expires_at, 'infinity') <= ${now}), 0)::int as expired
    from inventory i where i.account_id = ${accountId} and i.id = any(${sql.val(inventoryIds)}::bigint[])`;
}

/**
 * The availability read: capacity less what is taken, not counting holds that have expired; none
 * while the row is waitlisted (freed units go to the waiting list before the public). Outside a
 * transaction only: it runs as a prepared statement, because every event page the one-second
 * cache misses reads it, and planning it took 0.2 ms where running it took 0.05-0.1.
 */
export async function readAvailability(
  db: Db,
  accountId: number,
  inventoryIds: number[],
  now: Date,
): Promise<Map<number, Availability>> {
  if (inventoryIds.length === 0) return new Map();
  const rows = await availabilityQuery(accountId, inventoryIds, now, { prepared: true }).execute(db);
  return new Map(
    rows.rows.map((r) => [
      r.id,
      {
        inventory_id: r.id,
        capacity: r.capacity,
        remaining: r.waitlisted ? 0 : Math.max(0, r.capacity - r.taken + r.expired),
        waitlisted: r.waitlisted,
      },
    ]),
  );
}

/**
 * Takes `units` of each inventory row with one guarded update per row, in id order so two
 * orders never wait on each other in a cycle. Returns the first row that could not be taken,
 * or null when everything was reserved. Call inside the order's transaction. The units are
 * compared as a bigint: a sum of lines can pass what an integer column holds, and is then short.
 */
export async function tryReserve(trx: Db, units: Map<number, number>): Promise<number | null> {
  for (const id of [...units.keys()].sort((a, b) => a - b)) {
    const q = sql<number>`${units.get(id)!}::bigint`;
    const r = await trx
      .updateTable('inventory')
      .set((eb) => ({ taken: sql<number>`${eb.ref('taken')} + ${q}` }))
      .where('id', '=', id)
      .where((eb) => eb('taken', '<=', sql<number>`${eb.ref('capacity')} - ${q}`))
      .executeTakeFirst();
    if (r.numUpdatedRows === 0n) return id;
  }
  return null;
}

/** Gives back the stock held by these orders' lines and their seats (cancel, expiry, refund). */
export async function releaseStock(trx: Db, orderIds: number[]): Promise<void> {
  if (orderIds.length === 0) return;
  await releaseSeats(trx, orderIds);
  const lines = await trx
    .selectFrom('order_lines')
    .select(['inventory_id', 'quantity'])
    .where('order_id', 'in', orderIds)
    .where('inventory_id', 'is not', null)
    .execute();
  await releaseUnits(trx, unitsByInventory(lines));
}

/** Gives units back to their inventory rows (in id order, the order every writer locks them in). */
export async function releaseUnits(trx: Db, units: Map<number, number>): Promise<void> {
  for (const id of [...units.keys()].sort((a, b) => a - b)) {
    await trx
      .updateTable('inventory')
      .set((eb) => ({ taken: sql<number>`greatest(0, ${eb.ref('taken')} - ${units.get(id)!}::bigint)` }))
      .where('id', '=', id)
      .execute();
  }
}

/**
 * The pending orders whose hold has run out, oldest first, locked (SKIP LOCKED). Narrowed to one
 * inventory row, the search stays inside that row's event: one range of its live holds
 * (orders_event_live_holds), each checked for a line on the row by order_lines_order, so the
 * lapsed holds of other events, however many, cost nothing (order_lines has no index on
 * inventory_id). `offset 0` keeps that check per order: without it PostgreSQL may turn it into a
 * join that starts from order_lines, a scan of every line, whenever its statistics make this
 * row's lines look rare. The order is the index's own expression: by expires_at, the planner may
 * walk orders_pending_expiry, every pending order of every event, to avoid a sort (136 ms on the
 * bench's database after its flash sales, 0.2 ms this way).
 */
export function lapsedHolds(trx: Db, now: Date, opts: { inventoryId?: number; limit?: number } = {}) {
  const inv = opts.inventoryId;
  const pending = trx
    .selectFrom('orders as o')
    .select(['o.id', 'o.account_id', 'o.expires_at'])
    .where('o.status', '=', 'pending');
  const lapsed =
    inv === undefined
      ? pending.where('o.expires_at', '<=', now).orderBy('o.expires_at')
      : pending
          .where('o.event_id', '=', (eb) =>
            eb.selectFrom('inventory').select('inventory.event_id').where('inventory.id', '=', inv),
          )
          .where(sql<Date>`coalesce(o.expires_at, 'infinity')`, '<=', now)
          .where((eb) =>
            eb.exists(
              eb
                .selectFrom('order_lines as l')
                .select('l.id')
                .whereRef('l.order_id', '=', 'o.id')
                .where('l.inventory_id', '=', inv)
                .offset(0),
            ),
          )
          .orderBy(sql`coalesce(o.expires_at, 'infinity')`);
  return lapsed
    .limit(opts.limit ?? 500)
    .forUpdate()
    .skipLocked();
}
