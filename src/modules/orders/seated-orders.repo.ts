import { CompiledQuery, sql } from 'kysely';
import { perDb } from '../../platform/cache.ts';
import type { Db } from '../../platform/db/database.ts';
import { countSeatedBatch } from '../../platform/metrics.ts';
import { holdersAt, readSeatSnapshot, type SeatLayout, type SeatSnapshot } from '../inventory/seats.repo.ts';
import type { SeatView } from './orders.repo.ts';
import { byAccountRef, inSentOrder, seatedStatementText, statementRows } from './plain-orders.repo.ts';
import type { OrderRow, PreparedOrder, WriteOutcome } from './prepared-order.ts';
import { allocateSeats, type SeatPick, type SeatWant } from './seat-allocation.ts';

/*
 * A rush for the seats of one seated type, written as the flash sale is: one statement a batch,
 * no transaction around it. The process keeps what it last knew of the type's seats (a snapshot:
 * the layout and every live hold with its end) and the row's seat_version at that moment
 * (migration 0034: the triggers count every statement that changes the seats' holds or plan).
 * A batch chooses its seats from the snapshot, first come first served, exactly as the order
 * writer's transaction does under the row lock, then writes orders, lines, log, stock and seats
 * in one statement that takes the row only while seat_version is still the snapshot's. If the
 * guard holds, nobody changed those seats since the snapshot: the choice is what the locked read
 * would have made, and the refusals (a seat taken, too few left) are true at that moment too. The
 * statement's own seats bump the version by one, which the snapshot follows. If anything else
 * wrote (another instance, a cancel, the sweeper), the guard fails, nothing is written, and the
 * batch is read again and tried once more, then left to the transaction (order-writer.repo.ts).
 */

interface Entry {
  snapshot: SeatSnapshot | null;
  /** when a batch last missed twice: the transaction serves this type for a moment */
  missedAt: number;
}

const MAX_ENTRIES = 64;
/** after two misses in a row (other writers are busy on the type), how long the transaction serves it */
const BACK_OFF_MS = 250;
const entries = new WeakMap<Db, Map<string, Entry>>();

function entryOf(db: Db, key: string): Entry {
  const byKey = perDb(entries, db, () => new Map<string, Entry>());
  let entry = byKey.get(key);
  if (!entry) {
    // the oldest goes first: a Map iterates in insertion order
    if (byKey.size >= MAX_ENTRIES) byKey.delete(byKey.keys().next().value!);
    byKey.set(key, (entry = { snapshot: null, missedAt: 0 }));
  }
  return entry;
}

/** Drops what this process knew of an event's seats (its own transaction just changed them). */
export function forgetSeats(db: Db, eventId: number): void {
  const byKey = entries.get(db);
  if (!byKey) return;
  for (const key of byKey.keys()) if (key.startsWith(`${eventId}/`)) byKey.delete(key);
}

/** The one inventory row of a batch of seated orders this path can write, or null. */
function seatedRow(orders: PreparedOrder[]): number | null {
  let row: number | null = null;
  for (const o of orders) {
    if (o.idempotency || o.codes.length || !o.seats?.length || o.units.size !== 1 || Number(o.row.total_cents) <= 0) return null;
    const [id] = o.units.keys() as IterableIterator<number>;
    if (row !== null && id !== row) return null;
    row = id!;
    if (o.seats.some((w) => w.inventoryId !== row) || o.lines.some((l) => l.inventory_id !== row && l.kind !== 'donations'))
      return null;
  }
  return row;
}

/**
 * Writes a batch of seated orders of one type in one statement, or returns null having written
 * nothing (not such a batch, holds that ran out to expire first, or the seats changed under it
 * twice): the caller's transaction then writes it.
 */
export async function writeSeatedOrders(db: Db, orders: PreparedOrder[]): Promise<WriteOutcome[] | null> {
  const inventoryId = seatedRow(orders);
  if (inventoryId === null) return null;
  const eventId = Number(orders[0]!.row.event_id);
  const entry = entryOf(db, `${eventId}/${inventoryId}`);
  if (performance.now() - entry.missedAt < BACK_OFF_MS) return null;
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      entry.snapshot ??= await readSeatSnapshot(db, eventId, inventoryId);
      if (!entry.snapshot) return null;
      const written = await tryBatch(db, entry.snapshot, inventoryId, orders);
      if (written) {
        countSeatedBatch('statement');
        return written;
      }
      entry.snapshot = null;
      if (written === undefined) return null;
    }
    entry.missedAt = performance.now();
    return null;
  } catch (err) {
    entry.snapshot = null;
    throw err;
  }
}

/** The batch against one snapshot: outcomes, null when the seats changed, undefined when only the transaction can write it. */
async function tryBatch(
  db: Db,
  snapshot: SeatSnapshot,
  inventoryId: number,
  orders: PreparedOrder[],
): Promise<WriteOutcome[] | null | undefined> {
  const wants = new Map<number, SeatWant[]>();
  orders.forEach((o, i) => wants.set(i, o.seats!));
  const { layout, holds, version } = snapshot;
  const now = orders[0]!.now.getTime();
  const alloc = allocateSeats(
    wants,
    orders.map((_, i) => i),
    { layout, holders: holdersAt(holds, now) },
    true,
  );
  // a seat held by a hold that ran out: its order is expired first, which the transaction does
  if (alloc.lapsedRows.size) return undefined;
  const outcomes: WriteOutcome[] = new Array(orders.length);
  for (const [i, err] of alloc.rejected) outcomes[i] = { rejected: err };
  const granted = alloc.granted;
  if (!granted.length) {
    // nothing to write: the refusals stand if the seats are still as the snapshot has them
    const r = await sql<{ seat_version: number }>`select seat_version from inventory where id = ${inventoryId}`.execute(db);
    return Number(r.rows[0]?.seat_version) === version ? outcomes : null;
  }
  const built = statementRows(granted.map((i) => orders[i]!));
  if (!built) return undefined;
  const { rows, lines, log } = built;
  const seats = granted.flatMap((i, n) =>
    alloc.picks.get(i)!.map((p) => ({ order_ref: rows[n]!.ref, line: p.line, seat_guid: p.seat_guid })),
  );
  let units = 0;
  for (const i of granted) units += orders[i]!.units.get(inventoryId)!;
  const text = seatedStatementText(Object.keys(rows[0]!), Object.keys(lines[0]!));
  const params = [
    units,
    inventoryId,
    JSON.stringify(rows),
    JSON.stringify(lines),
    JSON.stringify(log),
    version,
    JSON.stringify(seats),
  ];
  const result = await db.executeQuery<OrderRow>(CompiledQuery.raw(text, params));
  const written = inSentOrder(rows, byAccountRef(result.rows));
  if (!written) return null;
  // the statement's seats moved the version on by one (one insert into order_seats)
  snapshot.version = version + 1;
  granted.forEach((i, n) => {
    const order = written[n]!;
    const picks = alloc.picks.get(i)!;
    const end = order.expires_at ? new Date(order.expires_at).getTime() : Infinity;
    for (const p of picks) holds.set(p.seat_guid, end);
    outcomes[i] = { created: true, order, seats: seatViews(layout, picks) };
  });
  return outcomes;
}

/** The seats picked, as the order's read shows them. */
export function seatViews(layout: SeatLayout, picks: readonly SeatPick[]): SeatView[] {
  return picks.map((p) => {
    const s = layout.byGuid.get(p.seat_guid);
    return {
      seat_guid: p.seat_guid,
      zone: s?.zone ?? '',
      row: s?.row_number ?? '',
      number: s?.seat_number ?? '',
      label: s?.label ?? p.seat_guid,
    };
  });
}
