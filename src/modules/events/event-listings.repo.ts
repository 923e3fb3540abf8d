import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { EventVenue } from '../../platform/db/schema.ts';

/** Events listed by name rather than read one by one: the public lists and the console's pickers. */

export interface UpcomingEvent {
  slug: string;
  name: string;
  starts_at: Date;
  timezone: string;
  venue: EventVenue | null;
  account_slug: string;
  account_name: string;
}

/** Published events on the lists and not yet over (their end, or their start when they have none, is still ahead), soonest first. */
export function listUpcomingEvents(db: Db, now: Date, accountId: number | null, limit: number): Promise<UpcomingEvent[]> {
  let q = db
    .selectFrom('events as e')
    .innerJoin('accounts as a', 'a.id', 'e.account_id')
    .select(['e.slug', 'e.name', 'e.starts_at', 'e.timezone', 'e.venue', 'a.slug as account_slug', 'a.name as account_name'])
    .where(sql<boolean>`coalesce(e.ends_at, e.starts_at) >= ${now}`)
    .where('e.status', '=', 'published')
    .where('e.archived', '=', false)
    .orderBy('e.starts_at')
    .orderBy('e.id')
    .limit(limit);
  if (accountId !== null) q = q.where('e.account_id', '=', accountId);
  return q.execute() as Promise<UpcomingEvent[]>;
}

/** Every event of the account by slug and name, latest start first. */
export function listEventNames(db: Db, accountId: number): Promise<Array<{ slug: string; name: string }>> {
  return db
    .selectFrom('events')
    .select(['slug', 'name'])
    .where('account_id', '=', accountId)
    .orderBy('starts_at', 'desc')
    .execute();
}
