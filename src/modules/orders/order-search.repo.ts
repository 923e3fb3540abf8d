import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import type { OrderStatus } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/auth.ts';
import { loadVisibleEvent } from '../events/events.service.ts';
import { addDays, parseDate, zonedMidnight } from '../../platform/date-range.ts';

/**
 * Finding orders of an event (the console's orders desk and the CSV exports): a search over
 * reference, buyer and ticket reference, filters by status, ticket type, code and date, newest
 * first in keyset pages, so page 1,000 costs what page 1 does.
 */

export const ORDER_STATUSES: readonly OrderStatus[] = ['pending', 'paid', 'refunded', 'canceled'];

export interface OrderFilter {
  q: string;
  status: OrderStatus | '';
  /** a ticket type's key */
  ticket_type: string;
  /** a discount code, or "-" for orders without one */
  code: string;
  /** local dates (YYYY-MM-DD) in the event's timezone, both inclusive, on the order's creation */
  from: string;
  to: string;
}

const one = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '').trim();

/** The filter from a query string; a value that cannot mean anything is a 422 naming it. */
export function parseOrderFilter(query: Record<string, unknown>): OrderFilter {
  const fields: Record<string, string[]> = {};
  const status = one(query.status);
  if (status && !ORDER_STATUSES.includes(status as OrderStatus)) fields.status = [`must be one of ${ORDER_STATUSES.join(', ')}`];
  const from = one(query.from);
  const to = one(query.to);
  if (from && !parseDate(from)) fields.from = ['must be a date, YYYY-MM-DD'];
  if (to && !parseDate(to)) fields.to = ['must be a date, YYYY-MM-DD'];
  if (from && to && parseDate(from) && parseDate(to) && from > to) fields.to = ['must not be before from'];
  const q = one(query.q);
  if (q.length > 200) fields.q = ['must be at most 200 characters'];
  if (Object.keys(fields).length) {
    throw new AppError('unprocessable', 'validation_failed', 'The order filter is not valid', { fields });
  }
  return {
    q,
    status: status as OrderStatus | '',
    ticket_type: one(query.ticket_type).slice(0, 200),
    code: one(query.code).slice(0, 200),
    from,
    to,
  };
}

export const isFiltered = (f: OrderFilter) => Boolean(f.q || f.status || f.ticket_type || f.code || f.from || f.to);

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
const literal = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

const ordersOf = (db: Db) => db.selectFrom('orders as o');
type OrdersQuery = ReturnType<typeof ordersOf>;

/** The event's orders matching the filter (a query to select from). */
export function filteredOrders(db: Db, accountId: number, event: { id: number; timezone: string }, f: OrderFilter): OrdersQuery {
  let q = ordersOf(db).where('o.account_id', '=', accountId).where('o.event_id', '=', event.id);
  if (f.status) q = q.where('o.status', '=', f.status);
  if (f.code) q = q.where('o.codes_key', '=', f.code === '-' ? '' : f.code);
  if (f.ticket_type) {
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('order_lines as l')
          .innerJoin('ticket_types as tt', 'tt.id', 'l.ticket_type_id')
          .select(sql`1`.as('x'))
          .whereRef('l.order_id', '=', 'o.id')
          .where('tt.key', '=', f.ticket_type),
      ),
    );
  }
  if (f.from) q = q.where('o.created_at', '>=', zonedMidnight(f.from, event.timezone));
  if (f.to) q = q.where('o.created_at', '<', zonedMidnight(addDays(f.to, 1), event.timezone));
  if (f.q) {
    const text = f.q;
    const upper = text.toUpperCase();
    const email = text.includes('@');
    // The orders a reference or an email start names, looked up through their own indexes (order
    // ref, ticket ref, lower(email)) into an array once, then fetched by id: the planner never
    // scans the event's orders for them. A name can be anywhere in the buyer's name: that part
    // scans (newest first, stopping at a page); text with a digit or an @ is not taken for a name.
    const named = sql<boolean>`o.id = any(array(
      select r.id from orders r where r.account_id = ${accountId} and r.ref = ${upper}
      union all
      select t.order_id from tickets t where t.account_id = ${accountId} and t.ref = ${upper}
      ${
        email
          ? sql`union all
      select e.id from orders e where e.event_id = ${event.id} and lower(e.email) like ${`${literal(text.toLowerCase())}%`}`
          : sql``
      }))`;
    q = email || /\d/.test(text) ? q.where(named) : q.where((eb) => eb.or([named, eb('o.name', 'ilike', `%${literal(text)}%`)]));
  }
  return q;
}

/** Where a page ends: the id of its last order (opaque to clients; read back with its exact time). */
export function encodeDeskCursor(id: number): string {
  return Buffer.from(`o${id}`).toString('base64url');
}

export function decodeDeskCursor(raw: string): number | null {
  const m = raw.length <= 40 ? /^o(\d{1,18})$/.exec(Buffer.from(raw, 'base64url').toString('utf8')) : null;
  return m ? Number(m[1]) : null;
}

/** Orders after (older than) the cursor's order, in (created_at, id) order, at the database's precision. */
function after(q: OrdersQuery, accountId: number, lastId: number | null): OrdersQuery {
  if (lastId === null) return q;
  return q.where(
    sql<boolean>`(o.created_at, o.id) < (select c.created_at, c.id from orders c where c.id = ${lastId} and c.account_id = ${accountId})`,
  );
}

export interface DeskOrder {
  id: number;
  ref: string;
  status: OrderStatus;
  name: string | null;
  email: string | null;
  currency: string;
  total_cents: number;
  refunded_cents: number;
  ticket_units: number;
  codes_key: string;
  channel: string;
  created_at: Date;
  paid_at: Date | null;
}

const DESK_COLUMNS = [
  'o.id',
  'o.ref',
  'o.status',
  'o.name',
  'o.email',
  'o.currency',
  'o.total_cents',
  'o.refunded_cents',
  'o.ticket_units',
  'o.codes_key',
  'o.channel',
  'o.created_at',
  'o.paid_at',
] as const;

/** One page of matching orders, newest first, and the cursor of the next page (null: none). */
export async function searchOrders(
  ctx: AppContext,
  p: Principal,
  eventSlug: string,
  filter: OrderFilter,
  cursor: string | undefined,
  limit: number,
): Promise<{ orders: DeskOrder[]; next: string | null }> {
  const event = await loadVisibleEvent(ctx, p, eventSlug);
  const lastId = cursor ? decodeDeskCursor(cursor) : null;
  if (cursor && lastId === null) {
    throw new AppError('unprocessable', 'validation_failed', 'The cursor is not one this server gave out', {
      fields: { after: ['must be a cursor from an earlier page'] },
    });
  }
  const rows = await after(filteredOrders(ctx.db, p.accountId, event, filter), p.accountId, lastId)
    .select(DESK_COLUMNS)
    .orderBy('o.created_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(limit + 1)
    .execute();
  const orders = rows.slice(0, limit).map(deskRow);
  const last = orders.at(-1);
  return { orders, next: rows.length > limit && last ? encodeDeskCursor(last.id) : null };
}

function deskRow(r: Record<string, unknown>): DeskOrder {
  return {
    ...(r as unknown as DeskOrder),
    id: Number(r.id),
    created_at: new Date(r.created_at as string),
    paid_at: r.paid_at ? new Date(r.paid_at as string) : null,
  };
}

/** Every matching order, newest first, in batches (constant memory whatever the count). */
export async function* eachOrderBatch(
  db: Db,
  accountId: number,
  event: { id: number; timezone: string },
  filter: OrderFilter,
  batch = 2000,
): AsyncGenerator<DeskOrder[]> {
  let lastId: number | null = null;
  for (;;) {
    const rows = await after(filteredOrders(db, accountId, event, filter), accountId, lastId)
      .select(DESK_COLUMNS)
      .orderBy('o.created_at', 'desc')
      .orderBy('o.id', 'desc')
      .limit(batch)
      .execute();
    if (!rows.length) return;
    const orders = rows.map(deskRow);
    yield orders;
    lastId = orders.at(-1)!.id;
    if (rows.length < batch) return;
  }
}

/** What the orders desk's filter offers: the event (name, timezone) and its ticket types. */
export async function deskEvent(ctx: AppContext, p: Principal, eventSlug: string) {
  const event = await loadVisibleEvent(ctx, p, eventSlug);
  const ticketTypes = await ctx.db
    .selectFrom('ticket_types')
    .select(['id', 'key', 'name', 'archived'])
    .where('event_id', '=', event.id)
    .orderBy('position')
    .orderBy('id')
    .execute();
  return { event, ticketTypes };
}

export interface FoundOrder extends DeskOrder {
  event_slug: string;
  event_name: string;
}

/**
 * The console header's search: the account's orders, across its events, that an order or ticket
 * reference names exactly, or whose buyer's email starts with the text, or (text without a digit
 * or an @) whose buyer's name holds it; newest first, at most `limit`. References go through
 * their unique indexes; email and name read the account's orders newest first and stop at `limit`.
 */
export async function findAccountOrders(db: Db, accountId: number, text: string, limit: number): Promise<FoundOrder[]> {
  const t = text.trim();
  if (!t) return [];
  const upper = t.toUpperCase();
  const email = t.includes('@');
  const byRef = sql<boolean>`o.id = any(array(
    select r.id from orders r where r.account_id = ${accountId} and r.ref = ${upper}
    union all
    select k.order_id from tickets k where k.account_id = ${accountId} and k.ref = ${upper}))`;
  const rows = await db
    .selectFrom('orders as o')
    .innerJoin('events as e', 'e.id', 'o.event_id')
    .select([...DESK_COLUMNS, 'e.slug as event_slug', 'e.name as event_name'])
    .where('o.account_id', '=', accountId)
    .where((eb) =>
      eb.or([
        byRef,
        ...(email ? [eb(sql<string>`lower(o.email)`, 'like', `${literal(t.toLowerCase())}%`)] : []),
        ...(!email && !/\d/.test(t) ? [eb('o.name', 'ilike', `%${literal(t)}%`)] : []),
      ]),
    )
    .orderBy('o.created_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...deskRow(r), event_slug: r.event_slug, event_name: r.event_name }));
}
