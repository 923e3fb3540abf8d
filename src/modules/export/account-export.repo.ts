import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';

// Read-only: the export reads every module's tables of one account, in one snapshot, to write them
// as an account file. It writes nothing; each table keeps its one writer.

export async function accountBySlug(db: Db, slug: string) {
  return db.selectFrom('accounts').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function accountTokens(db: Db, accountId: number) {
  return db
    .selectFrom('api_tokens')
    .select(['name', 'token_hash', 'capabilities', 'scopes', 'event_slugs'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

/** The account's people with a password (an invitation not yet taken has none and is not carried). */
export async function accountPeople(db: Db, accountId: number) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.email', 'u.name', 'u.password_hash', 'm.role'])
    .where('m.account_id', '=', accountId)
    .orderBy('u.id')
    .execute();
}

export async function accountSeries(db: Db, accountId: number) {
  return db.selectFrom('series').select(['slug', 'name']).where('account_id', '=', accountId).orderBy('id').execute();
}

export async function accountTemplates(db: Db, accountId: number) {
  return db
    .selectFrom('html_templates')
    .select(['id', 'key', 'name', 'kind', 'channel', 'body'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

export async function accountThemes(db: Db, accountId: number) {
  return db
    .selectFrom('themes')
    .select(['name', 'is_default', 'settings'])
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
}

export async function accountEventIds(db: Db, accountId: number) {
  return db.selectFrom('events').select(['id', 'slug']).where('account_id', '=', accountId).orderBy('id').execute();
}

export async function countOrders(db: Db, accountId: number): Promise<number> {
  const r = await db
    .selectFrom('orders')
    .select(sql<string>`count(*)`.as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** One page of an event's orders after `afterId`, by id (keyset paging: constant memory however many). */
export async function orderPage(db: Db, eventId: number, afterId: number, limit: number) {
  return db
    .selectFrom('orders as o')
    .leftJoin('audiences as a', 'a.id', 'o.audience_id')
    .leftJoin('portals as p', 'p.id', 'o.portal_id')
    .select([
      'o.id',
      'o.ref',
      'o.status',
      'o.currency',
      'o.fx_rate',
      'o.name',
      'o.email',
      'o.answers',
      'o.created_at',
      'o.paid_at',
      'o.canceled_at',
      'o.expires_at',
      'a.key as audience',
      'p.key as portal',
    ])
    .where('o.event_id', '=', eventId)
    .where('o.id', '>', afterId)
    .orderBy('o.id')
    .limit(limit)
    .execute();
}

/** The lines of some orders with their item's key. */
export async function linesOf(db: Db, orderIds: number[]) {
  if (!orderIds.length) return [];
  return db
    .selectFrom('order_lines as l')
    .leftJoin('ticket_types as tt', 'tt.id', 'l.ticket_type_id')
    .leftJoin('goods as g', 'g.id', 'l.good_id')
    .leftJoin('sessions as s', 's.id', 'l.session_id')
    .leftJoin('donations as d', 'd.id', 'l.donation_id')
    .select([
      'l.id',
      'l.order_id',
      'l.kind',
      'l.quantity',
      'l.unit_price_cents',
      'l.tax_cents',
      'l.tax_rate_bp',
      'l.included',
      sql<string>`coalesce(tt.key, g.key, s.key, d.key)`.as('item_key'),
    ])
    .where('l.order_id', 'in', orderIds)
    .orderBy('l.order_id')
    .orderBy('l.position')
    .orderBy('l.id')
    .execute();
}

/** The tickets of some orders with the check-in lists each was admitted to (conflicts are not admissions). */
export async function ticketsOf(db: Db, orderIds: number[]) {
  if (!orderIds.length) return [];
  return db
    .selectFrom('tickets as t')
    .select([
      't.order_line_id',
      't.attendee_name',
      't.position',
      sql<
        string[] | null
      >`(select array_agg(distinct cl.key order by cl.key) from checkins c join checkin_lists cl on cl.id = c.checkin_list_id
        where c.ticket_id = t.id and not c.conflict)`.as('lists'),
    ])
    .where('t.order_id', 'in', orderIds)
    .orderBy('t.order_line_id')
    .orderBy('t.position')
    .execute();
}

export async function discountsOf(db: Db, orderIds: number[]) {
  if (!orderIds.length) return [];
  return db
    .selectFrom('order_discounts')
    .select(['order_id', 'code', 'amount_cents'])
    .where('order_id', 'in', orderIds)
    .orderBy('order_id')
    .orderBy('position')
    .execute();
}

export async function paymentsOf(db: Db, orderIds: number[]) {
  if (!orderIds.length) return [];
  return db
    .selectFrom('payments')
    .select([
      'order_id',
      'rail',
      'amount_cents',
      'succeeded_at',
      'created_at',
      'fee_cents',
      'fee_currency',
      'platform_fee_cents',
      'provider_ref',
    ])
    .where('order_id', 'in', orderIds)
    .where('status', '=', 'succeeded')
    .orderBy('order_id')
    .orderBy('id')
    .execute();
}

export async function refundsOf(db: Db, orderIds: number[]) {
  if (!orderIds.length) return [];
  return db
    .selectFrom('refunds')
    .select(['order_id', 'amount_cents', 'status', 'created_at', 'completed_at'])
    .where('order_id', 'in', orderIds)
    .where('status', 'in', ['succeeded', 'failed'])
    .orderBy('order_id')
    .orderBy('id')
    .execute();
}
