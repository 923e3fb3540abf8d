import { sql, type Selectable } from 'kysely';
import { PREPARE } from '../../platform/db/callback-pool.ts';
import type { Db } from '../../platform/db/database.ts';
import type { AccountsTable, GoodsTable, SessionsTable, TicketTypesTable } from '../../platform/db/schema.ts';
import type { EventRow } from '../events/events.repo.ts';

/** What the event page sells, as one read gives it (the channel's audience or portal aside). */
export interface ShopCatalogueRows {
  account: Pick<Selectable<AccountsTable>, 'id' | 'slug' | 'name' | 'invoicing'>;
  event: EventRow;
  types: Array<Selectable<TicketTypesTable>>;
  links: Array<{ session_id: number; ticket_type_id: number }>;
  sessions: Array<Selectable<SessionsTable>>;
  goods: Array<Selectable<GoodsTable>>;
  donations: Array<{ id: number; name: string }>;
  questions: Array<{ key: string; label: string; scope: 'order' | 'attendee'; required: boolean }>;
}

/**
 * The account, the event and everything the page sells in one statement: the items come as JSON
 * arrays beside the event's row. Read for every event page not in this instance's cache, which on
 * a platform of many events is most of them: eight round trips were eight sends and wake-ups on
 * both sides for one page. The session links are the event's own (they were every link of the
 * account). A prepared statement: planned anew each time it took 0.4 ms of PostgreSQL's CPU where
 * running it took 0.2. Undefined when the account or the event does not exist.
 */
export async function readShopCatalogueRows(
  db: Db,
  accountSlug: string,
  eventSlug: string,
): Promise<ShopCatalogueRows | undefined> {
  const r = await sql<
    EventRow & {
      a_id: number;
      a_slug: string;
      a_name: string;
      a_invoicing: Selectable<AccountsTable>['invoicing'];
      j_types: Array<Selectable<TicketTypesTable>>;
      j_links: ShopCatalogueRows['links'];
      j_sessions: Array<Omit<Selectable<SessionsTable>, 'starts_at' | 'ends_at' | 'archived_at'> & Record<string, unknown>>;
      j_goods: Array<Omit<Selectable<GoodsTable>, 'archived_at'> & { archived_at: string | null }>;
      j_donations: ShopCatalogueRows['donations'];
      j_questions: ShopCatalogueRows['questions'];
    }
  >`${sql.raw(PREPARE)}
    select e.*, s.slug as series_slug, a.id as a_id, a.slug as a_slug, a.name as a_name, a.invoicing as a_invoicing,
      (select coalesce(json_agg(t order by t.position, t.id), '[]') from ticket_types t
        where t.event_id = e.id and not t.archived and t.on_sale) as j_types,
      (select coalesce(json_agg(json_build_object('session_id', l.session_id, 'ticket_type_id', l.ticket_type_id)), '[]')
        from sessions x join session_ticket_types l on l.session_id = x.id where x.event_id = e.id) as j_links,
      (select coalesce(json_agg(x order by x.starts_at), '[]') from sessions x where x.event_id = e.id and x.on_sale) as j_sessions,
      (select coalesce(json_agg(g order by g.position), '[]') from goods g where g.event_id = e.id and g.on_sale) as j_goods,
      (select coalesce(json_agg(json_build_object('id', d.id, 'name', d.name) order by d.position), '[]') from donations d
        where d.event_id = e.id and d.on_sale) as j_donations,
      (select coalesce(json_agg(json_build_object('key', q.key, 'label', q.label, 'scope', q.scope, 'required', q.required)
          order by q.position), '[]') from questions q where q.event_id = e.id) as j_questions
    from accounts a
    join events e on e.account_id = a.id and e.slug = ${eventSlug}
    left join series s on s.id = e.series_id
    where a.slug = ${accountSlug}`.execute(db);
  const row = r.rows[0];
  if (!row) return undefined;
  const { a_id, a_slug, a_name, a_invoicing, j_types, j_links, j_sessions, j_goods, j_donations, j_questions, ...event } = row;
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return {
    account: { id: a_id, slug: a_slug, name: a_name, invoicing: a_invoicing },
    event,
    types: j_types,
    links: j_links,
    // JSON has no timestamps: the rows get theirs back as dates, as the driver gives them
    sessions: j_sessions.map((x) => ({
      ...x,
      starts_at: date(x.starts_at)!,
      ends_at: date(x.ends_at),
      archived_at: date(x.archived_at),
    })) as Array<Selectable<SessionsTable>>,
    goods: j_goods.map((g) => ({ ...g, archived_at: date(g.archived_at) })),
    donations: j_donations,
    questions: j_questions,
  };
}
