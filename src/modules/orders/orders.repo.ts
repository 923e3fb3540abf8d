import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import { readScattered } from '../../platform/db/scattered-reads.ts';
import type { OrdersTable } from '../../platform/db/schema.ts';

export type OrderRecord = Selectable<OrdersTable> & {
  event_slug: string;
  audience_key: string | null;
  portal_key: string | null;
};

function orderQuery(db: Db, accountId: number) {
  return db
    .selectFrom('orders as o')
    .innerJoin('events as e', 'e.id', 'o.event_id')
    .leftJoin('audiences as au', 'au.id', 'o.audience_id')
    .leftJoin('portals as po', 'po.id', 'o.portal_id')
    .selectAll('o')
    .select(['e.slug as event_slug', 'au.key as audience_key', 'po.key as portal_key'])
    .where('o.account_id', '=', accountId);
}

export function findOrderByRef(db: Db, accountId: number, ref: string): Promise<OrderRecord | undefined> {
  return orderQuery(db, accountId).where('o.ref', '=', ref).executeTakeFirst();
}

export function findOrderById(db: Db, accountId: number, id: number): Promise<OrderRecord | undefined> {
  return orderQuery(db, accountId).where('o.id', '=', id).executeTakeFirst();
}

export function findOrdersByIds(db: Db, accountId: number, ids: number[]): Promise<OrderRecord[]> {
  if (!ids.length) return Promise.resolve([]);
  return orderQuery(db, accountId).where('o.id', 'in', ids).execute();
}

/** Newest first; `after` is the (created_at, id) of the order the previous page ended on. */
export function listOrders(
  db: Db,
  accountId: number,
  eventId: number,
  limit: number,
  after: { created_at: Date; id: number } | null,
): Promise<OrderRecord[]> {
  let q = orderQuery(db, accountId).where('o.event_id', '=', eventId);
  if (after) {
    q = q.where((eb) =>
      eb.or([
        eb('o.created_at', '<', after.created_at),
        eb.and([eb('o.created_at', '=', after.created_at), eb('o.id', '<', after.id)]),
      ]),
    );
  }
  return q.orderBy('o.created_at', 'desc').orderBy('o.id', 'desc').limit(limit).execute();
}

export function linesOf(db: Db, orderIds: number[]) {
  if (orderIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('order_lines')
    .select([
      'order_id',
      'kind',
      'ticket_type_id',
      'name',
      'quantity',
      'unit_price_cents',
      'total_cents',
      'tax_cents',
      'tax_rate_bp',
    ])
    .where('order_id', 'in', orderIds)
    .orderBy('order_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export function discountsOf(db: Db, orderIds: number[]) {
  if (orderIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('order_discounts')
    .select(['order_id', 'code', 'amount_cents'])
    .where('order_id', 'in', orderIds)
    .orderBy('order_id')
    .orderBy('position')
    .execute();
}

/** A seat as every read of an order or ticket shows it (contract section 12). */
export interface SeatView {
  seat_guid: string;
  zone: string;
  row: string;
  number: string;
  label: string;
}

/**
 * A ticket's seat as a JSON value (null when it has none), for a query over `tickets` named
 * `alias`: what check-in reads, the door sync, exports and pages show of it.
 */
export function ticketSeatJson(alias: string) {
  const t = (c: string) => sql.ref(`${alias}.${c}`);
  return sql<SeatView | null>`(select json_build_object('seat_guid', s.seat_guid, 'zone', s.zone, 'row', s.row_number,
    'number', s.seat_number, 'label', s.label) from event_seats s
    where s.event_id = ${t('event_id')} and s.seat_guid = ${t('seat_guid')})`;
}

/**
 * The seats an order holds or bought, in the order of its lines and choice, each with the ref of
 * the ticket that admits to it (null while the order is pending). A seat the plan no longer has
 * (only possible once released) is shown by its guid.
 */
export async function seatsOfOrder(db: Db, orderId: number): Promise<Array<SeatView & { ticket: string | null }>> {
  const rows = await db
    .selectFrom('order_seats as os')
    .leftJoin('tickets as t', (j) => j.onRef('t.order_id', '=', 'os.order_id').onRef('t.seat_guid', '=', 'os.seat_guid'))
    .leftJoin('event_seats as s', (j) => j.onRef('s.event_id', '=', 'os.event_id').onRef('s.seat_guid', '=', 'os.seat_guid'))
    .select(['t.ref as ticket', 'os.seat_guid', 's.zone', 's.row_number', 's.seat_number', 's.label'])
    .where('os.order_id', '=', orderId)
    .where('os.released_at', 'is', null)
    .orderBy('os.line_position')
    .orderBy('os.id')
    .execute();
  return rows.map((r) => ({
    ticket: r.ticket,
    seat_guid: r.seat_guid,
    zone: r.zone ?? '',
    row: r.row_number ?? '',
    number: r.seat_number ?? '',
    label: r.label ?? r.seat_guid,
  }));
}

export function ticketRefsOf(db: Db, orderId: number) {
  return db.selectFrom('tickets').select('ref').where('order_id', '=', orderId).orderBy('position').orderBy('id').execute();
}

/** A ticket by the token in its QR code, with what a phone that scanned it is shown. */
export function findTicketByQrToken(db: Db, qrToken: string) {
  return db
    .selectFrom('tickets as t')
    .innerJoin('events as e', 'e.id', 't.event_id')
    .innerJoin('ticket_types as tt', 'tt.id', 't.ticket_type_id')
    .innerJoin('orders as o', 'o.id', 't.order_id')
    .select([
      't.ref',
      't.status',
      't.account_id',
      'o.status as order_status',
      'e.name as event',
      'e.starts_at',
      'e.timezone',
      'e.locale',
      'tt.name as type',
    ])
    .where('t.qr_token', '=', qrToken)
    .executeTakeFirst();
}

/** An order by the token in its QR code, with its event. */
export function findOrderByQrToken(db: Db, qrToken: string) {
  return db
    .selectFrom('orders as o')
    .innerJoin('events as e', 'e.id', 'o.event_id')
    .select([
      'o.id',
      'o.ref',
      'o.status',
      'o.account_id',
      'o.locale',
      'e.name as event',
      'e.starts_at',
      'e.timezone',
      'e.locale as event_locale',
    ])
    .where('o.qr_token', '=', qrToken)
    .executeTakeFirst();
}

export function ticketStatusesOf(db: Db, orderId: number) {
  return db.selectFrom('tickets').select('status').where('order_id', '=', orderId).execute();
}

/**
 * Buyers' names and order statuses by order id, for a door's ticket list. A page of a large
 * event's tickets belongs to thousands of orders written over months, each on its own page: read
 * in one bitmap scan the database prefetches (readScattered), a cold page of 5,000 tickets took
 * 59 ms instead of 228 one order page at a time.
 */
export async function orderNamesAndStatuses(
  db: Db,
  accountId: number,
  orderIds: readonly number[],
): Promise<Map<number, { name: string | null; status: string }>> {
  if (orderIds.length === 0) return new Map();
  const rows = await readScattered(db, (trx) =>
    trx
      .selectFrom('orders')
      .select(['id', 'name', 'status'])
      .where('account_id', '=', accountId)
      .where('id', '=', sql<number>`any(${sql.val([...new Set(orderIds)])}::bigint[])`)
      .execute(),
  );
  return new Map(rows.map((r) => [Number(r.id), { name: r.name, status: r.status }]));
}
