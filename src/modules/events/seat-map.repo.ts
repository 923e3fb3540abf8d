import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';

/** A seat's state on the map: free to buy, held by a pending order, bought, or kept off sale. */
export type SeatStatus = 'available' | 'held' | 'sold' | 'blocked';

export const SEAT_STATUSES: readonly SeatStatus[] = ['available', 'held', 'sold', 'blocked'];

/**
 * The live takes of an event's seats: a seat is held while its pending order's hold runs, sold
 * once the order is paid; a hold that ran out frees the seat for readers before the sweeper
 * cancels its order (as lapsed holds do for stock).
 */
function liveTakes(eventId: number, now: Date) {
  return sql`select os.seat_guid, o.status from order_seats os join orders o on o.id = os.order_id
    where os.event_id = ${eventId} and os.released_at is null
      and (o.status = 'paid' or (o.status = 'pending' and coalesce(o.expires_at, 'infinity') > ${now}))`;
}

const statusOf = sql`case when s.blocked then 'blocked' when h.status = 'paid' then 'sold'
  when h.status = 'pending' then 'held' else 'available' end`;

/** A seat's status as one character of `seatStatusCodes`, and back. */
export const STATUS_CODE: Record<string, SeatStatus> = { a: 'available', h: 'held', s: 'sold', b: 'blocked' };

/**
 * The state of every seat of the event in plan order, one character a seat (`STATUS_CODE`): the
 * part of the seat list that changes with each sale, read in one small answer (20,000 seats are
 * 20 KB, not the 3 MB of the whole list). `version`: the plan row's transaction id, new with every
 * write of the event's seating (plan, categories, blocked seats), so what is kept of the seats by
 * it is never stale.
 */
export async function seatStatusCodes(db: Db, eventId: number, now: Date): Promise<{ version: string; codes: string }> {
  const r = await sql<{ version: string | null; codes: string | null }>`
    select (select xmin::text from seating_plans where event_id = ${eventId}) as version, string_agg(case when s.blocked then 'b' when h.status = 'paid' then 's'
      when h.status = 'pending' then 'h' else 'a' end, '' order by s.ordinal) as codes
    from event_seats s left join (${liveTakes(eventId, now)}) h on h.seat_guid = s.seat_guid
    where s.event_id = ${eventId}`.execute(db);
  return { version: r.rows[0]?.version ?? '', codes: r.rows[0]?.codes ?? '' };
}

/** What a seat of `GET /events/{slug}/seats` is, apart from its state; in plan order. */
export async function seatFacts(db: Db, eventId: number) {
  const r = await sql<{
    seat_guid: string;
    zone: string;
    row: string;
    number: string;
    label: string;
    category: string;
    ticket_type_id: number | null;
  }>`select s.seat_guid, s.zone, s.row_number as row, s.seat_number as number, s.label, s.category, s.ticket_type_id
    from event_seats s where s.event_id = ${eventId} order by s.ordinal`.execute(db);
  return r.rows.map((s) => ({ ...s, ticket_type_id: s.ticket_type_id === null ? null : Number(s.ticket_type_id) }));
}

/** One seat for the buyer's map: what it is, where it is drawn, and whether it can be chosen. */
export interface MapSeat {
  seat_guid: string;
  zone: string;
  row: string;
  number: string;
  label: string;
  category: string;
  ticket_type_id: number | null;
  x: number;
  y: number;
  radius: number | null;
  status: SeatStatus;
}

/** The event's seats for the buyer's map, in plan order. */
export async function mapSeats(db: Db, eventId: number, now: Date): Promise<MapSeat[]> {
  const r = await sql<MapSeat>`
    select s.seat_guid, s.zone, s.row_number as row, s.seat_number as number, s.label, s.category, s.ticket_type_id,
      s.x, s.y, s.radius, ${statusOf} as status
    from event_seats s left join (${liveTakes(eventId, now)}) h on h.seat_guid = s.seat_guid
    where s.event_id = ${eventId} order by s.ordinal`.execute(db);
  return r.rows.map((s) => ({ ...s, ticket_type_id: s.ticket_type_id === null ? null : Number(s.ticket_type_id) }));
}

/** The stored plan's drawing: its size, categories (colours) and zones' areas. */
export async function planDrawing(db: Db, eventId: number) {
  return db.selectFrom('seating_plans').select(['plan', 'categories']).where('event_id', '=', eventId).executeTakeFirst();
}
