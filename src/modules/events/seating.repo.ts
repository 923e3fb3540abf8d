import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import { AppError } from '../../platform/errors.ts';
import type { Written } from './event-items.repo.ts';
import { readPlan, type PlanSeat, type SeatingIn } from './seating-plan.ts';

/*
 * An event's seating as written by its document (contract section 12): the plan as given, and one
 * event_seats row a seat with the ticket type its category maps to. Part of the one event writer
 * (event-writer.repo.ts); call it after the items are written, so the seated types' inventory rows
 * are locked (setCapacity) and no order can take a seat between the check below and the change.
 */

/** How many seats an answer names before it says "and N more". */
const NAMED = 50;

/** 409: a change that would drop, re-map or block seats held or sold, naming them. */
export function seatsInUse(guids: string[]): AppError {
  const named = guids.slice(0, NAMED);
  const more = guids.length > named.length ? ` and ${guids.length - named.length} more` : '';
  const message = `held or sold seats cannot be dropped, re-mapped or blocked: ${named.join(', ')}${more}`;
  return new AppError('conflict', 'conflict', `$.seating: ${message}`, {
    fields: { '$.seating': [message] },
    extra: { path: '$.seating', seats: named },
  });
}

interface Wanted {
  seat: PlanSeat;
  ticketTypeId: number | null;
  blocked: boolean;
}

function wantedSeats(seating: SeatingIn | undefined, typeIdOf: (key: string) => number | undefined): Map<string, Wanted> {
  const out = new Map<string, Wanted>();
  if (!seating) return out;
  const blocked = new Set(seating.blocked ?? []);
  for (const seat of readPlan(seating.plan, '$.seating.plan').seats) {
    const key = Object.hasOwn(seating.categories, seat.category) ? seating.categories[seat.category] : undefined;
    const ticketTypeId = key === undefined ? null : (typeIdOf(key) ?? null);
    out.set(seat.seat_guid, { seat, ticketTypeId, blocked: blocked.has(seat.seat_guid) });
  }
  return out;
}

/**
 * The same refusal as writeSeating's, before anything is written, with the stored types' ids: a
 * change to held seats is then named as such rather than as the capacity it would also break.
 * writeSeating checks again under the inventory rows' locks.
 */
export async function refuseSeatChanges(trx: Db, eventId: number, seating: SeatingIn | undefined, now: Date): Promise<void> {
  const live = await liveSeats(trx, eventId);
  if (!live.length) return;
  const types = await trx.selectFrom('ticket_types').select(['id', 'key']).where('event_id', '=', eventId).execute();
  const idOf = new Map(types.map((t) => [t.key, t.id]));
  const found = conflicts(
    live,
    wantedSeats(seating, (k) => idOf.get(k)),
    now,
  );
  if (found.length) throw seatsInUse(found);
}

/** Live seats (held by a pending order, or sold) with what the stored plan says of them. */
async function liveSeats(trx: Db, eventId: number) {
  return trx
    .selectFrom('order_seats as os')
    .innerJoin('orders as o', 'o.id', 'os.order_id')
    .leftJoin('event_seats as s', (j) => j.onRef('s.event_id', '=', 'os.event_id').onRef('s.seat_guid', '=', 'os.seat_guid'))
    .select(['os.seat_guid', 'o.status', 'o.expires_at', 's.ticket_type_id'])
    .where('os.event_id', '=', eventId)
    .where('os.released_at', 'is', null)
    .orderBy('os.id')
    .execute();
}

/**
 * Seats the change would drop, re-map or block while an order holds or bought them. A hold that
 * ran out does not count (its order is the orders module's to expire, as for capacity changes).
 */
function conflicts(live: Awaited<ReturnType<typeof liveSeats>>, wanted: Map<string, Wanted>, now: Date): string[] {
  const guids: string[] = [];
  for (const l of live) {
    const w = wanted.get(l.seat_guid);
    if (w && !w.blocked && w.ticketTypeId === l.ticket_type_id) continue;
    if (l.status === 'pending' && l.expires_at !== null && l.expires_at.getTime() <= now.getTime()) continue;
    guids.push(l.seat_guid);
  }
  return guids;
}

/**
 * Writes the event's seating (none: the event is not seated), refused (409) when held or sold
 * seats would be dropped, re-mapped to another type or blocked.
 */
export async function writeSeating(
  trx: Db,
  at: { accountId: number; eventId: number; now: Date },
  seating: SeatingIn | undefined,
  written: Written,
  stored: boolean,
): Promise<void> {
  const wanted = wantedSeats(seating, (key) => written.ticket_types.get(key)?.id);
  if (stored) {
    const found = conflicts(await liveSeats(trx, at.eventId), wanted, at.now);
    if (found.length) throw seatsInUse(found);
  }
  if (!seating) {
    if (stored) {
      await trx.deleteFrom('seating_plans').where('event_id', '=', at.eventId).execute();
      await trx.deleteFrom('event_seats').where('event_id', '=', at.eventId).execute();
    }
  } else {
    const columns = {
      plan: JSON.stringify(seating.plan),
      categories: JSON.stringify(seating.categories),
      blocked: JSON.stringify(seating.blocked ?? []),
    };
    await trx
      .insertInto('seating_plans')
      .values({ event_id: at.eventId, account_id: at.accountId, ...columns })
      .onConflict((oc) => oc.column('event_id').doUpdateSet(columns))
      .execute();
    await writeSeats(trx, at, [...wanted.values()], stored);
  }
  const seated = [...new Set([...wanted.values()].map((w) => w.ticketTypeId).filter((id): id is number => id !== null))];
  await trx
    .updateTable('ticket_types')
    .set({ seated: seated.length ? sql<boolean>`id = any(${seated}::bigint[])` : false })
    .where('event_id', '=', at.eventId)
    .execute();
}

/**
 * The plan's seats as rows, in one statement (a plan can hold tens of thousands: as one JSON
 * parameter, not a parameter a value); seats the plan no longer has are deleted.
 */
async function writeSeats(trx: Db, at: { accountId: number; eventId: number }, seats: Wanted[], stored: boolean) {
  const rows = seats.map(({ seat, ticketTypeId, blocked }) => ({
    ...seat,
    ticket_type_id: ticketTypeId,
    blocked,
  }));
  if (stored) {
    await sql`delete from event_seats where event_id = ${at.eventId}
      and seat_guid <> all(${rows.map((r) => r.seat_guid)}::text[])`.execute(trx);
  }
  if (!rows.length) return;
  await sql`
    insert into event_seats (account_id, event_id, seat_guid, ordinal, zone, row_number, seat_number, label, category,
      ticket_type_id, blocked, x, y, radius)
    select ${at.accountId}, ${at.eventId}, r.seat_guid, r.ordinal, r.zone, r.row_number, r.seat_number, r.label, r.category,
      r.ticket_type_id, r.blocked, r.x, r.y, r.radius
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(seat_guid text, ordinal int, zone text, row_number text,
      seat_number text, label text, category text, ticket_type_id bigint, blocked boolean, x real, y real, radius real)
    on conflict (event_id, seat_guid) do update set ordinal = excluded.ordinal, zone = excluded.zone,
      row_number = excluded.row_number, seat_number = excluded.seat_number, label = excluded.label,
      category = excluded.category, ticket_type_id = excluded.ticket_type_id, blocked = excluded.blocked,
      x = excluded.x, y = excluded.y, radius = excluded.radius`.execute(trx);
}

/** The event's `seating` as stored, for its document. */
export async function readSeating(db: Db, eventId: number): Promise<SeatingIn | undefined> {
  const row = await db
    .selectFrom('seating_plans')
    .select(['plan', 'categories', 'blocked'])
    .where('event_id', '=', eventId)
    .executeTakeFirst();
  if (!row) return undefined;
  return { plan: row.plan, categories: row.categories, ...(row.blocked.length ? { blocked: row.blocked } : {}) };
}
