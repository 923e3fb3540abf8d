import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import { availabilityQuery } from './stock.repo.ts';

/** The order-line column naming an item that has stock: its capacity is held in an inventory row. */
export type StockColumn = 'ticket_type_id' | 'good_id' | 'session_id';

/** "No limit" on an inventory row that already exists (kept so no order ever loses its row). */
const UNLIMITED = 2_147_483_647;

/** The inventory row of a new item; none when it has no limit. */
export async function newInventory(trx: Db, accountId: number, eventId: number, capacity: number | null): Promise<number | null> {
  if (capacity === null) return null;
  const row = await trx
    .insertInto('inventory')
    .values({ account_id: accountId, event_id: eventId, capacity })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * A new capacity for an item with orders, under the inventory row's lock (the lock every order
 * takes), so no order can slip between the check and the change:
 * - a row exists: it takes the new capacity, refused (409) below what is taken by live orders;
 *   no limit keeps the row with an unreachable capacity, so orders that still hold its id count.
 * - no row yet (the item had no limit): a row is made holding the units of its live orders, and
 *   those order lines point at it so cancels and expiries give them back. The item rows are
 *   locked (readItems, first thing) and the order writer re-reads unlimited items under a share lock,
 *   so an order placed from a catalogue cached before this change cannot miss the new row.
 */
export async function setCapacity(
  trx: Db,
  now: Date,
  accountId: number,
  eventId: number,
  column: StockColumn,
  row: { id: number; inventory_id: number | null },
  capacity: number | null,
  /** the error to throw when live orders hold more than `capacity` */
  refuse: (taken: number) => Error,
): Promise<number | null> {
  if (row.inventory_id !== null) {
    if (capacity === null) {
      await trx.updateTable('inventory').set({ capacity: UNLIMITED }).where('id', '=', row.inventory_id).execute();
      return row.inventory_id;
    }
    const locked = await trx
      .selectFrom('inventory')
      .select(['capacity', 'taken'])
      .where('id', '=', row.inventory_id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (locked.taken > capacity) {
      // holds that ran out still count in `taken` until swept; they do not stand in the way: the
      // sweeper, or the next order short of stock on this row, releases them
      const { rows } = await availabilityQuery(accountId, [row.inventory_id], now).execute(trx);
      const live = locked.taken - (rows[0]?.expired ?? 0);
      if (live > capacity) throw refuse(live);
    }
    await trx.updateTable('inventory').set({ capacity }).where('id', '=', row.inventory_id).execute();
    return row.inventory_id;
  }
  if (capacity === null) return null;
  const live = await sql<{ n: number }>`
    select coalesce(sum(l.quantity), 0)::int as n from order_lines l join orders o on o.id = l.order_id
    where l.${sql.ref(column)} = ${row.id} and o.status in ('paid', 'pending')`.execute(trx);
  const taken = live.rows[0]!.n;
  if (taken > capacity) throw refuse(taken);
  const { id } = await trx
    .insertInto('inventory')
    .values({ account_id: accountId, event_id: eventId, capacity, taken })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`update order_lines l set inventory_id = ${id} from orders o
    where o.id = l.order_id and l.${sql.ref(column)} = ${row.id} and o.status in ('paid', 'pending')`.execute(trx);
  return id;
}

/** After its item is deleted: the inventory row goes too, unless an order line still names it. */
export async function dropUnusedInventory(trx: Db, inventoryId: number | null): Promise<void> {
  if (inventoryId === null) return;
  const other = await trx
    .selectFrom('order_lines')
    .select('id')
    .where('inventory_id', '=', inventoryId)
    .limit(1)
    .executeTakeFirst();
  if (!other) await trx.deleteFrom('inventory').where('id', '=', inventoryId).execute();
}
