import { sql } from 'kysely';
import { cacheOf } from '../../platform/cache.ts';
import type { Db } from '../../platform/db/database.ts';

/*
 * Seats are stock (contract section 12): order_seats holds which order has which seat, one live
 * row per seat of an event (a unique index), written here and by the order writer's batch. A
 * seated type's inventory row counts its seats as units; every order taking seats of a type holds
 * that row's lock while it reads and takes them, so the read below is exact under the lock and the
 * unique index is the last word should anything else race.
 */

/** A seat as the order writer sees it: where it stands in the plan. */
export interface Seat {
  seat_guid: string;
  ordinal: number;
  zone: string;
  row_number: string;
  seat_number: string;
  label: string;
  ticket_type_id: number | null;
  blocked: boolean;
}

/** live: a paid order or a hold that runs; lapsed: a pending order whose hold ran out */
export type Holder = 'live' | 'lapsed';

/** A plan's seats arranged for choosing: by seat, and per ticket type in plan order and by row. */
export interface SeatLayout {
  byGuid: ReadonlyMap<string, Seat>;
  byType: ReadonlyMap<number, readonly Seat[]>;
  /** a type's seats grouped by row (a new row where the zone or row number changes) */
  rowsByType: ReadonlyMap<number, ReadonlyArray<readonly Seat[]>>;
}

/** The seats (in plan order) arranged for choosing. Pure. */
export function seatLayout(seats: readonly Seat[]): SeatLayout {
  const byType = new Map<number, Seat[]>();
  const rowsByType = new Map<number, Seat[][]>();
  const last = new Map<number, Seat>();
  for (const s of seats) {
    if (s.ticket_type_id === null) continue;
    const t = s.ticket_type_id;
    (byType.get(t) ?? byType.set(t, []).get(t)!).push(s);
    const rows = rowsByType.get(t) ?? rowsByType.set(t, []).get(t)!;
    const prev = last.get(t);
    if (!prev || prev.zone !== s.zone || prev.row_number !== s.row_number) rows.push([]);
    rows[rows.length - 1]!.push(s);
    last.set(t, s);
  }
  return { byGuid: new Map(seats.map((s) => [s.seat_guid, s])), byType, rowsByType };
}

/** The event's seats and who holds which, as the order writer reads them under the types' row locks. */
export interface SeatStates {
  layout: SeatLayout;
  holders: Holders;
}

/** Who holds a seat (undefined: nobody). */
export type Holders = Pick<ReadonlyMap<string, Holder>, 'get'>;

/**
 * The event's seats with their holders at `now`. Read under the types' inventory row locks.
 *
 * A rush writes one batch after another under those locks, so this read is the sale's critical
 * path: one round trip (readHolds). The layout, which changes only with the plan's version, is
 * kept per process by it (`cache`: the database handle the caches belong to).
 */
export async function readSeatStates(trx: Db, cache: Db, eventId: number, now: Date): Promise<SeatStates> {
  const { plan, holds } = await readHolds(trx, eventId, null);
  return { layout: await layoutOf(trx, cache, eventId, plan), holders: holdersAt(holds, now.getTime()) };
}

/**
 * In one round trip: the plan's version (the seating_plans row's transaction id, new with every
 * write of the event's seating), every live hold of the event's seats with the time it ends
 * (Infinity: a paid order, or a hold without an end), and, given an inventory row, its
 * seat_version. Each part is read by its own index: a join of seats and holds was nested-looped
 * by the planner on a new sale's small statistics (0.6 s for a 2,000-seat hall half sold).
 */
async function readHolds(
  db: Db,
  eventId: number,
  inventoryId: number | null,
): Promise<{ seatVersion: number | null; plan: string | null; holds: Map<string, number> }> {
  const r = await sql<{
    seat_version: number | null;
    plan: string | null;
    held: Array<[string, string | number]> | null;
    pending: Array<[string | number, number | null]> | null;
  }>`
    select ${inventoryId === null ? sql`null::bigint` : sql`(select seat_version from inventory where id = ${inventoryId})`} as seat_version,
      (select xmin::text from seating_plans where event_id = ${eventId}) as plan,
      (select json_agg(json_build_array(seat_guid, order_id)) from order_seats where event_id = ${eventId} and released_at is null) as held,
      (select json_agg(json_build_array(id, extract(epoch from expires_at) * 1000)) from orders
        where event_id = ${eventId} and status = 'pending') as pending`.execute(db);
  const { seat_version, plan, held, pending } = r.rows[0]!;
  const ends = new Map<string, number>();
  for (const [id, at] of pending ?? []) ends.set(String(id), at === null ? Infinity : Number(at));
  const holds = new Map<string, number>();
  for (const [guid, order] of held ?? []) holds.set(guid, ends.get(String(order)) ?? Infinity);
  return { seatVersion: seat_version === null ? null : Number(seat_version), plan, holds };
}

/** The plan's seats arranged for choosing, kept per process by the plan's version (null: no plan). */
function layoutOf(db: Db, cache: Db, eventId: number, version: string | null): Promise<SeatLayout> {
  if (version === null) return Promise.resolve(seatLayout([]));
  return cacheOf<SeatLayout>(cache, 'seat-layout', 3_600_000, 32 * 1024 * 1024).get(`${eventId}/${version}`, async () => {
    const seats = await sql<Seat>`
      select seat_guid, ordinal, zone, row_number, seat_number, label, ticket_type_id, blocked
      from event_seats where event_id = ${eventId} order by ordinal`.execute(db);
    return seatLayout(
      seats.rows.map((s) => ({ ...s, ticket_type_id: s.ticket_type_id === null ? null : Number(s.ticket_type_id) })),
    );
  });
}

/**
 * The seats of one seated type's inventory row as of its `seat_version` (migration 0034): the
 * layout, and every live hold of the event with the time its hold ends (Infinity: a paid order, or
 * a hold without an end). One statement, so the version, the plan and the holds are of one moment
 * (read without a lock: the version says later whether they still hold).
 */
export interface SeatSnapshot {
  inventoryId: number;
  version: number;
  layout: SeatLayout;
  /** seat_guid -> the epoch ms its hold ends */
  holds: Map<string, number>;
}

export async function readSeatSnapshot(db: Db, eventId: number, inventoryId: number): Promise<SeatSnapshot | null> {
  const { seatVersion, plan, holds } = await readHolds(db, eventId, inventoryId);
  if (seatVersion === null || plan === null) return null;
  return { inventoryId, version: seatVersion, layout: await layoutOf(db, db, eventId, plan), holds };
}

/** A snapshot's holders at `now` (a hold whose end has passed is lapsed), read in place. */
export function holdersAt(holds: ReadonlyMap<string, number>, now: number): Holders {
  return {
    get: (guid) => {
      const end = holds.get(guid);
      return end === undefined ? undefined : end <= now ? 'lapsed' : 'live';
    },
  };
}

/** One order's seats to write once the order has its id. */
export interface SeatHold {
  account_id: number;
  event_id: number;
  order_id: number;
  line_position: number;
  seat_guid: string;
}

/** Writes the seats of a batch's orders in one statement; the unique index refuses a seat held twice. */
export async function holdSeats(trx: Db, rows: SeatHold[]): Promise<void> {
  if (!rows.length) return;
  await sql`insert into order_seats (account_id, event_id, order_id, line_position, seat_guid)
    select r.account_id, r.event_id, r.order_id, r.line_position, r.seat_guid
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as r(account_id bigint, event_id bigint, order_id bigint, line_position int, seat_guid text)`.execute(trx);
}

/** Frees the seats of these orders (cancel, expiry, refund), keeping the rows for a reinstatement. */
export async function releaseSeats(trx: Db, orderIds: number[]): Promise<void> {
  if (!orderIds.length) return;
  await trx
    .updateTable('order_seats')
    .set({ released_at: sql<Date>`now()` })
    .where('order_id', 'in', orderIds)
    .where('released_at', 'is', null)
    .execute();
}

/** Frees the seats of some of an order's tickets (a partial refund voided them). */
export async function releaseSeatsOf(trx: Db, orderId: number, seatGuids: string[]): Promise<void> {
  if (!seatGuids.length) return;
  await trx
    .updateTable('order_seats')
    .set({ released_at: sql<Date>`now()` })
    .where('order_id', '=', orderId)
    .where('seat_guid', 'in', seatGuids)
    .where('released_at', 'is', null)
    .execute();
}

/**
 * Takes an order's released seats again (a late payment reinstating it), when every one is still
 * free; call after its stock was taken again, so its types' rows are locked. Returns false, having
 * changed nothing, when any is held or sold by another order now.
 */
export async function retakeSeats(trx: Db, orderId: number): Promise<boolean> {
  const mine = await trx
    .selectFrom('order_seats')
    .select(['id', 'event_id', 'seat_guid', 'released_at'])
    .where('order_id', '=', orderId)
    .execute();
  const released = mine.filter((s) => s.released_at !== null);
  if (!released.length) return true;
  const latest = new Map<string, number>();
  for (const s of released) latest.set(s.seat_guid, Math.max(latest.get(s.seat_guid) ?? 0, s.id));
  const taken = await trx
    .selectFrom('order_seats')
    .select('seat_guid')
    .where('event_id', '=', released[0]!.event_id)
    .where('seat_guid', 'in', [...latest.keys()])
    .where('released_at', 'is', null)
    .executeTakeFirst();
  if (taken) return false;
  await trx
    .updateTable('order_seats')
    .set({ released_at: null })
    .where('id', 'in', [...latest.values()])
    .execute();
  return true;
}
