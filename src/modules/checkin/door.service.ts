import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import { notFound } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/auth.ts';
import { loadList } from './checkin.service.ts';
import { countCheckableTickets } from './checkin.repo.ts';

/**
 * What the console's door pages show (contract section 9): the lists door staff can open a scanner
 * on, with how far check-in has got, and the scans an offline upload flagged as conflicts.
 */

export interface DoorList {
  id: number;
  name: string;
  tickets: number;
  checked_in: number;
  conflicts: number;
}

export interface DoorEvent {
  slug: string;
  name: string;
  starts_at: Date;
  ends_at: Date | null;
  timezone: string;
  lists: DoorList[];
}

/** A day after it started (or ended) an event has left the door; `past` lists those instead. */
const AT_THE_DOOR_MS = 24 * 60 * 60 * 1000;

export async function doorEvents(ctx: AppContext, accountId: number, opts: { past: boolean }): Promise<DoorEvent[]> {
  const cutoff = new Date(ctx.clock.now().getTime() - AT_THE_DOOR_MS);
  const ended = sql<boolean>`coalesce(e.ends_at, e.starts_at) < ${cutoff}`;
  const events = await ctx.db
    .selectFrom('events as e')
    .select(['e.id', 'e.slug', 'e.name', 'e.starts_at', 'e.ends_at', 'e.timezone'])
    .where('e.account_id', '=', accountId)
    .where(opts.past ? ended : sql<boolean>`not ${ended}`)
    .orderBy('e.starts_at', opts.past ? 'desc' : 'asc')
    .limit(100)
    .execute();
  if (!events.length) return [];
  const lists = await ctx.db
    .selectFrom('checkin_lists as l')
    .select(['l.id', 'l.event_id', 'l.name', 'l.ticket_type_ids', 'l.checked_in_count'])
    .select((eb) =>
      eb
        .selectFrom('checkins as c')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('c.checkin_list_id', '=', eb.ref('l.id'))
        .where('c.conflict', '=', true)
        .as('conflicts'),
    )
    .where('l.account_id', '=', accountId)
    .where(
      'l.event_id',
      'in',
      events.map((e) => e.id),
    )
    .where('l.archived_at', 'is', null)
    .orderBy('l.name')
    .orderBy('l.id')
    .execute();
  const counted = await Promise.all(
    lists.map(async (l) => ({
      event_id: Number(l.event_id),
      list: {
        id: Number(l.id),
        name: l.name,
        tickets: await countCheckableTickets(ctx.db, accountId, {
          event_id: Number(l.event_id),
          ticket_type_ids: l.ticket_type_ids,
        }),
        checked_in: l.checked_in_count,
        conflicts: Number(l.conflicts ?? 0),
      },
    })),
  );
  return events.map((e) => ({
    slug: e.slug,
    name: e.name,
    starts_at: new Date(e.starts_at),
    ends_at: e.ends_at ? new Date(e.ends_at) : null,
    timezone: e.timezone,
    lists: counted.filter((c) => c.event_id === Number(e.id)).map((c) => c.list),
  }));
}

export interface DoorListInfo {
  event: { slug: string; name: string; timezone: string };
  list: DoorList;
}

/** One list for the scanner page and the conflicts view (404 when the event or list is unknown). */
export async function doorList(ctx: AppContext, p: Principal, eventSlug: string, listId: string): Promise<DoorListInfo> {
  const list = await loadList(ctx, p, eventSlug, listId);
  const event = await ctx.db
    .selectFrom('events')
    .select(['slug', 'name', 'timezone'])
    .where('id', '=', list.event_id)
    .executeTakeFirst();
  if (!event) throw notFound('No such event');
  const conflicts = await ctx.db
    .selectFrom('checkins')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('checkin_list_id', '=', list.id)
    .where('conflict', '=', true)
    .executeTakeFirstOrThrow();
  return {
    event,
    list: {
      id: Number(list.id),
      name: list.name,
      tickets: await countCheckableTickets(ctx.db, p.accountId, list),
      checked_in: list.checked_in_count,
      conflicts: Number(conflicts.n),
    },
  };
}

export interface ConflictRow {
  id: number;
  scanned_at: Date;
  uploaded_at: Date | null;
  device: string | null;
  reason: 'already_checked_in' | 'not_checkable' | null;
  ticket_ref: string;
  attendee_name: string | null;
  ticket_type: string;
  ticket_status: string;
  order_ref: string;
  order_status: string;
  /** the ticket's admission on this list, if it has one */
  admitted_at: Date | null;
  admitted_by: string | null;
  admitted_online: boolean | null;
}

export const CONFLICTS_PER_PAGE = 50;

/** The list's conflicting scans, newest scan first, with the admission each one ran into. */
export async function listConflicts(
  ctx: AppContext,
  p: Principal,
  eventSlug: string,
  listId: string,
  page: number,
): Promise<{ rows: ConflictRow[]; total: number }> {
  const list = await loadList(ctx, p, eventSlug, listId);
  const base = ctx.db
    .selectFrom('checkins as c')
    .where('c.account_id', '=', p.accountId)
    .where('c.checkin_list_id', '=', list.id)
    .where('c.conflict', '=', true);
  const [rows, total] = await Promise.all([
    base
      .innerJoin('tickets as t', 't.id', 'c.ticket_id')
      .innerJoin('ticket_types as tt', 'tt.id', 't.ticket_type_id')
      .innerJoin('orders as o', 'o.id', 't.order_id')
      .leftJoin('checkins as a', (j) =>
        j
          .onRef('a.ticket_id', '=', 'c.ticket_id')
          .onRef('a.checkin_list_id', '=', 'c.checkin_list_id')
          .on('a.conflict', '=', false),
      )
      .select([
        'c.id',
        'c.created_at as scanned_at',
        'c.uploaded_at',
        'c.device',
        'c.reason',
        't.ref as ticket_ref',
        sql<string | null>`coalesce(t.attendee_name, o.name)`.as('attendee_name'),
        'tt.name as ticket_type',
        't.status as ticket_status',
        'o.ref as order_ref',
        'o.status as order_status',
        'a.created_at as admitted_at',
        'a.device as admitted_by',
        'a.online as admitted_online',
      ])
      .orderBy('c.created_at', 'desc')
      .orderBy('c.id', 'desc')
      .limit(CONFLICTS_PER_PAGE)
      .offset((page - 1) * CONFLICTS_PER_PAGE)
      .execute(),
    base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((r) => ({
      ...r,
      id: Number(r.id),
      scanned_at: new Date(r.scanned_at),
      uploaded_at: r.uploaded_at ? new Date(r.uploaded_at) : null,
      admitted_at: r.admitted_at ? new Date(r.admitted_at) : null,
    })),
    total: Number(total.n),
  };
}
