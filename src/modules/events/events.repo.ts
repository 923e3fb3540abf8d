import { sql, type Selectable } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import { readScattered } from '../../platform/db/scattered-reads.ts';
import type { EventsTable, TicketTypesTable } from '../../platform/db/schema.ts';

export type EventRow = Selectable<EventsTable> & { series_slug: string | null };
export type TicketTypeRow = Selectable<TicketTypesTable>;

/** Event rows with their series' slug, of any account. */
function eventRows(db: Db) {
  return db
    .selectFrom('events as e')
    .leftJoin('series as s', 's.id', 'e.series_id')
    .selectAll('e')
    .select('s.slug as series_slug');
}

function eventQuery(db: Db, accountId: number) {
  return eventRows(db).where('e.account_id', '=', accountId);
}

export function findEventBySlug(db: Db, accountId: number, slug: string): Promise<EventRow | undefined> {
  return eventQuery(db, accountId).where('e.slug', '=', slug).executeTakeFirst();
}

/** Events of several accounts by slug in one statement: one row or undefined per key, in order. */
export async function findEventsBySlugs(
  db: Db,
  keys: Array<{ accountId: number; slug: string }>,
): Promise<Array<EventRow | undefined>> {
  const rows = await eventRows(db)
    .where(({ eb, refTuple, tuple }) =>
      eb(
        refTuple('e.account_id', 'e.slug'),
        'in',
        keys.map((k) => tuple(k.accountId, k.slug)),
      ),
    )
    .execute();
  const found = new Map(rows.map((r) => [`${r.account_id}/${r.slug}`, r]));
  return keys.map((k) => found.get(`${k.accountId}/${k.slug}`));
}

/** Newest first: latest start, then latest created; archived events are off the list (contract section 11). */
export function listEvents(db: Db, accountId: number, slugs: string[] | null): Promise<EventRow[]> {
  let q = eventQuery(db, accountId).where('e.archived', '=', false);
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

/**
 * The account's events for an overview: upcoming first (soonest first), then past ones (latest
 * first), with tickets sold (the counters the order triggers keep), net sales (what paid orders
 * took less discounts and refunds, in the event's currency: the dashboard's figure, from the
 * event's income totals kept by the orders' triggers, migration 0039) and the capacity of the
 * types not archived (null when one of them has no limit).
 */
export function listEventSummaries(db: Db, accountId: number, now: Date): Promise<EventSummaryRow[]> {
  // the sales counters and types of an account's events lie on as many pages as they have rows:
  // read together, in bitmap scans the database prefetches (readScattered), not one event after
  // another
  return readScattered(db, async (trx) => {
    const { rows } = await sql<EventSummaryRow>`
      with e as materialized (
        select id, slug, name, starts_at, timezone, currency, status, sales_start_at, archived
        from events where account_id = ${accountId}),
      sold as (
        select event_id, sum(sold) n from item_sales
        where event_id = any(array(select id from e)) and kind = 'tickets' group by event_id),
      net as (
        select event_id, sum(net_cents) n from event_income
        where event_id = any(array(select id from e)) group by event_id),
      capacity as (
        select event_id, case when bool_or(capacity is null) then null else sum(capacity)::int end n from ticket_types
        where event_id = any(array(select id from e)) and not archived group by event_id)
      select e.*, coalesce(sold.n, 0)::int sold, coalesce(net.n, 0)::text net_cents, capacity.n capacity
      from e
      left join sold on sold.event_id = e.id
      left join net on net.event_id = e.id
      left join capacity on capacity.event_id = e.id
      order by e.starts_at < ${now}, case when e.starts_at >= ${now} then e.starts_at end, e.starts_at desc`.execute(trx);
    return rows;
  });
}

export type EventSummaryRow = Pick<
  Selectable<EventsTable>,
  'id' | 'slug' | 'name' | 'starts_at' | 'timezone' | 'currency' | 'status' | 'sales_start_at' | 'archived'
> & { sold: number; net_cents: string; capacity: number | null };

/** The slugs of all the account's events, archived ones too (a new event's must differ from each). */
export async function listEventSlugs(db: Db, accountId: number): Promise<string[]> {
  const rows = await db.selectFrom('events').select('slug').where('account_id', '=', accountId).execute();
  return rows.map((r) => r.slug);
}

/** The id of an account's event by slug, read now (not through the catalogue cache). */
export async function findEventId(db: Db, accountId: number, slug: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('events')
    .select('id')
    .where('account_id', '=', accountId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row?.id;
}

export async function insertSeries(db: Db, accountId: number, s: { slug: string; name: string }): Promise<void> {
  await db.insertInto('series').values({ account_id: accountId, slug: s.slug, name: s.name }).execute();
}

/** Whether any order (of any status) was placed for the event: it is then archived, not deleted. */
export async function eventHasOrders(db: Db, accountId: number, eventId: number): Promise<boolean> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where('account_id', '=', accountId)
    .where('event_id', '=', eventId)
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}
