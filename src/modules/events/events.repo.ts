import type { Selectable } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { EventsTable, TicketTypesTable } from '../../platform/db/schema.ts';

export type EventRow = Selectable<EventsTable> & { series_slug: string | null };
export type TicketTypeRow = Selectable<TicketTypesTable>;

function eventQuery(db: Db, accountId: number) {
  return db
    .selectFrom('events as e')
    .leftJoin('series as s', 's.id', 'e.series_id')
    .selectAll('e')
    .select('s.slug as series_slug')
    .where('e.account_id', '=', accountId);
}

export function findEventBySlug(db: Db, accountId: number, slug: string): Promise<EventRow | undefined> {
  return eventQuery(db, accountId).where('e.slug', '=', slug).executeTakeFirst();
}

/** Newest first: latest start, then latest created. */
export function listEvents(db: Db, accountId: number, slugs: string[] | null): Promise<EventRow[]> {
  let q = eventQuery(db, accountId);
  if (slugs) {
    if (slugs.length === 0) return Promise.resolve([]);
    q = q.where('e.slug', 'in', slugs);
  }
  return q.orderBy('e.starts_at', 'desc').orderBy('e.id', 'desc').execute();
}

export function listSeries(db: Db, accountId: number) {
  return db
    .selectFrom('series')
    .select(['slug', 'name'])
    .where('account_id', '=', accountId)
    .orderBy('name')
    .orderBy('slug')
    .execute();
}

/** Display order; archived types never leave this function. */
export function listTicketTypes(db: Db, accountId: number, eventId: number): Promise<TicketTypeRow[]> {
  return db
    .selectFrom('ticket_types')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('event_id', '=', eventId)
    .where('archived', '=', false)
    .orderBy('position')
    .orderBy('id')
    .execute();
}
