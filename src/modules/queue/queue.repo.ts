import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';

/** The queue's tables (migration 0033): written here only. */

export interface VisitorRow {
  id: number;
  place: number | null;
  arrived_at: Date;
  admitted_at: Date | null;
}

export async function findVisitor(db: Db, eventId: number, hash: string): Promise<VisitorRow | undefined> {
  return db
    .selectFrom('queue_visitors')
    .select(['id', 'place', 'arrived_at', 'admitted_at'])
    .where('event_id', '=', eventId)
    .where('visitor_hash', '=', hash)
    .executeTakeFirst();
}

/** The queue's row, locked: the lottery and every later place are given under it. */
async function lockQueue(trx: Db, eventId: number) {
  await trx
    .insertInto('event_queues')
    .values({ event_id: eventId })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .execute();
  return trx
    .selectFrom('event_queues')
    .select(['drawn_at', 'last_place'])
    .where('event_id', '=', eventId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/**
 * The lottery, once: every visitor who came before the start gets a place in a random order
 * (gen_random_uuid draws from the operating system's random source, not a seeded generator).
 */
async function drawIfDue(trx: Db, eventId: number, start: Date, now: Date): Promise<number> {
  const q = await lockQueue(trx, eventId);
  if (q.drawn_at || now < start) return Number(q.last_place);
  const drawn = await sql<{ n: number }>`
    with shuffled as (
      select id, row_number() over (order by gen_random_uuid()) as n
      from queue_visitors where event_id = ${eventId} and place is null and arrived_at < ${start}
    )
    update queue_visitors v set place = s.n from shuffled s where v.id = s.id
    returning s.n`.execute(trx);
  const last = drawn.rows.length;
  await trx.updateTable('event_queues').set({ drawn_at: now, last_place: last }).where('event_id', '=', eventId).execute();
  return last;
}

/**
 * A visitor arrives (or comes back): before the start they wait without a place; after it, the
 * lottery is drawn if nobody has yet, and a newcomer, or an early one the lottery missed, takes
 * the next place. Answers the visitor's row.
 */
export async function arrive(db: Db, eventId: number, hash: string, start: Date, now: Date): Promise<VisitorRow> {
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('queue_visitors')
      .values({ event_id: eventId, visitor_hash: hash, arrived_at: now })
      .onConflict((oc) => oc.columns(['event_id', 'visitor_hash']).doNothing())
      .execute();
    if (now >= start) {
      const last = await drawIfDue(trx, eventId, start, now);
      const mine = await findVisitor(trx, eventId, hash);
      if (mine && mine.place === null) await takeNextPlace(trx, eventId, mine.id, last);
    }
    return (await findVisitor(trx, eventId, hash))!;
  });
}

async function takeNextPlace(trx: Db, eventId: number, visitorId: number, last: number): Promise<void> {
  await trx
    .updateTable('event_queues')
    .set({ last_place: last + 1 })
    .where('event_id', '=', eventId)
    .execute();
  await trx
    .updateTable('queue_visitors')
    .set({ place: last + 1, admitted_at: null })
    .where('id', '=', visitorId)
    .execute();
}

/** The first admission of a place: stamped once (a second answer reuses it). */
export async function markAdmitted(db: Db, visitorId: number, now: Date): Promise<Date> {
  const row = await db
    .updateTable('queue_visitors')
    .set({ admitted_at: sql`coalesce(admitted_at, ${now})` })
    .where('id', '=', visitorId)
    .returning('admitted_at')
    .executeTakeFirstOrThrow();
  return new Date(row.admitted_at!);
}

/** A visitor whose pass ran out without buying joins again at the back. */
export async function rejoin(db: Db, eventId: number, visitorId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const q = await lockQueue(trx, eventId);
    await takeNextPlace(trx, eventId, visitorId, Number(q.last_place));
  });
}
