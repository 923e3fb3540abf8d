import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';

/*
 * Seats are stock (contract section 12): order_seats holds which order has which seat, one live
 * row per seat of an event (a unique index), written here and by the order writer's batch. A
 * seated type's inventory row counts its seats as units; every order taking seats of a type holds
 * that row's lock while it reads and takes them, so the read below is exact under the lock and the
 * unique index is the last word should anything else race.
 */

/** A seat as the order writer sees it: where it stands in the plan and who has it. */
export interface SeatState {
  seat_guid: string;
  ordinal: number;
  zone: string;
  row_number: string;
  label: string;
  ticket_type_id: number | null;
  blocked: boolean;
  /** null: nobody; live: a paid order or a hold that runs; lapsed: a pending order whose hold ran out */
  holder: 'live' | 'lapsed' | null;
}

/**
 * The event's seats of these types, and any other seats named, in plan order, with their
 * holders. Read under the types' inventory row locks.
 */
export async function readSeatStates(
  trx: Db,
  eventId: number,
  typeIds: number[],
  named: string[],
  now: Date,
): Promise<SeatState[]> {
  const r = await sql<SeatState>`
    select s.seat_guid, s.ordinal, s.zone, s.row_number, s.label, s.ticket_type_id, s.blocked,
      case when o.id is null then null
        when o.status = 'pending' and coalesce(o.expires_at, 'infinity') <= ${now} then 'lapsed'
        else 'live' end as holder
    from event_seats s
    left join order_seats os on os.event_id = s.event_id and os.seat_guid = s.seat_guid and os.released_at is null
    left join orders o on o.id = os.order_id
    where s.event_id = ${eventId}
      and (s.ticket_type_id = any(${typeIds}::bigint[]) or s.seat_guid = any(${named}::text[]))
    order by s.ordinal`.execute(trx);
  return r.rows.map((s) => ({ ...s, ticket_type_id: s.ticket_type_id === null ? null : Number(s.ticket_type_id) }));
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
