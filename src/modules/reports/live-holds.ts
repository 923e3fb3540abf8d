import { sql, type RawBuilder } from 'kysely';

/**
 * The live holds of an event: pending orders whose hold ends after `now`, or never. Written as one
 * range of the live-holds index (migration 0023), `(event_id, coalesce(expires_at, 'infinity')) >
 * (event, now)`, which only that index can serve: as `expires_at is null or expires_at > now` the
 * planner estimated the holds without an end from the whole table, where most orders have none,
 * and read every order of the event (docs/decisions.md, "Availability inside a full run").
 */
export function isLiveHold(eventId: number, now: Date, table = 'orders'): RawBuilder<boolean> {
  const col = (name: string) => sql.ref(`${table}.${name}`);
  return sql<boolean>`(${col('status')} = 'pending' and ${col('event_id')} = ${eventId}
    and (${col('event_id')}, coalesce(${col('expires_at')}, 'infinity'::timestamptz)) > (${eventId}, ${now}))`;
}
