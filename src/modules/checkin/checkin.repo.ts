import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import { ticketSeatJson, type SeatView } from '../orders/orders.repo.ts';

export interface CheckinListRow {
  id: number;
  event_id: number;
  name: string;
  ticket_type_ids: number[] | null;
  checked_in_count: number;
  created_at: Date;
  updated_at: Date;
}

const LIST_COLUMNS = ['id', 'event_id', 'name', 'ticket_type_ids', 'checked_in_count', 'created_at', 'updated_at'] as const;

/** Escapes LIKE wildcards so a search for "50%" means the text "50%". */
function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function listCheckinLists(
  db: Db,
  accountId: number,
  eventId: number,
  q: string | null,
  limit: number,
  offset: number,
): Promise<{ rows: CheckinListRow[]; count: number }> {
  let base = db
    .selectFrom('checkin_lists')
    .where('account_id', '=', accountId)
    .where('event_id', '=', eventId)
    .where('archived_at', 'is', null);
  if (q) base = base.where('name', 'ilike', likePattern(q));
  const [rows, total] = await Promise.all([
    base.select(LIST_COLUMNS).orderBy('name').orderBy('id').limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.n) };
}

export function findCheckinList(db: Db, accountId: number, eventId: number, id: number): Promise<CheckinListRow | undefined> {
  return db
    .selectFrom('checkin_lists')
    .select(LIST_COLUMNS)
    .where('account_id', '=', accountId)
    .where('event_id', '=', eventId)
    .where('id', '=', id)
    .where('archived_at', 'is', null)
    .executeTakeFirst();
}

export interface CheckinRow {
  id: number;
  created_at: Date;
  qr_code_scanned: boolean;
  online: boolean;
  ticket_id: number;
  ticket_ref: string;
  attendee_name: string | null;
}

/** Most recent first; the id breaks ties so paging is stable. */
export async function listCheckins(
  db: Db,
  accountId: number,
  listId: number,
  limit: number,
  offset: number,
): Promise<{ rows: CheckinRow[]; count: number }> {
  const base = db.selectFrom('checkins as c').where('c.account_id', '=', accountId).where('c.checkin_list_id', '=', listId);
  const [rows, total] = await Promise.all([
    base
      .innerJoin('tickets as t', 't.id', 'c.ticket_id')
      .select([
        'c.id',
        'c.created_at',
        'c.qr_code_scanned',
        'c.online',
        't.id as ticket_id',
        't.ref as ticket_ref',
        't.attendee_name',
      ])
      .orderBy('c.created_at', 'desc')
      .orderBy('c.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.n) };
}

/** Tickets that can be checked in to a list: valid, of a paid order, of a type the list takes. */
function checkableTickets(db: Db, accountId: number, list: Pick<CheckinListRow, 'event_id' | 'ticket_type_ids'>) {
  let q = db
    .selectFrom('tickets as t')
    .innerJoin('orders as o', 'o.id', 't.order_id')
    .innerJoin('ticket_types as tt', 'tt.id', 't.ticket_type_id')
    .where('t.account_id', '=', accountId)
    .where('t.event_id', '=', list.event_id)
    .where('t.status', '=', 'valid')
    .where('o.status', '=', 'paid');
  if (list.ticket_type_ids) {
    if (list.ticket_type_ids.length === 0) q = q.where(sql<boolean>`false`);
    else q = q.where('t.ticket_type_id', 'in', list.ticket_type_ids);
  }
  return q;
}

export async function countCheckableTickets(
  db: Db,
  accountId: number,
  list: Pick<CheckinListRow, 'event_id' | 'ticket_type_ids'>,
): Promise<number> {
  const row = await checkableTickets(db, accountId, list)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface CheckableTicketRow {
  id: number;
  ref: string;
  qr_token: string;
  ticket_type_name: string;
  seat: SeatView | null;
}

export async function listCheckableTickets(
  db: Db,
  accountId: number,
  list: CheckinListRow,
  limit: number,
  offset: number,
): Promise<{ rows: CheckableTicketRow[]; count: number }> {
  const base = checkableTickets(db, accountId, list);
  const [rows, total] = await Promise.all([
    base
      .select(['t.id', 't.ref', 't.qr_token', 'tt.name as ticket_type_name', ticketSeatJson('t').as('seat')])
      .orderBy('t.id')
      .limit(limit)
      .offset(offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.n) };
}

export interface CheckableOrderRow {
  id: number;
  ref: string;
  qr_token: string;
  ticket_types: Record<string, number>;
}

export async function listCheckableOrders(
  db: Db,
  accountId: number,
  list: CheckinListRow,
  limit: number,
  offset: number,
): Promise<{ rows: CheckableOrderRow[]; count: number }> {
  const base = checkableTickets(db, accountId, list);
  const [orders, total] = await Promise.all([
    base.select(['o.id', 'o.ref', 'o.qr_token']).distinct().orderBy('o.id').limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.count<number>('o.id').distinct().as('n')).executeTakeFirstOrThrow(),
  ]);
  const counts = orders.length
    ? await base
        .where(
          'o.id',
          'in',
          orders.map((o) => o.id),
        )
        .select(['o.id', 'tt.key', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy(['o.id', 'tt.key'])
        .execute()
    : [];
  const rows = orders.map((o) => {
    const ticket_types: Record<string, number> = {};
    for (const c of counts) if (Number(c.id) === Number(o.id)) ticket_types[c.key] = Number(c.n);
    return { id: o.id, ref: o.ref, qr_token: o.qr_token, ticket_types };
  });
  return { rows, count: Number(total.n) };
}

export interface ScannedTicket {
  id: number;
  ref: string;
  attendee_name: string | null;
  event_id: number;
  order_id: number;
  ticket_type_id: number;
  status: 'valid' | 'voided';
  order_status: string;
  seat: SeatView | null;
}

export function findTicketByQr(db: Db, accountId: number, qrToken: string): Promise<ScannedTicket | undefined> {
  return db
    .selectFrom('tickets as t')
    .innerJoin('orders as o', 'o.id', 't.order_id')
    .select([
      't.id',
      't.ref',
      't.attendee_name',
      't.event_id',
      't.order_id',
      't.ticket_type_id',
      't.status',
      'o.status as order_status',
      ticketSeatJson('t').as('seat'),
    ])
    .where('t.account_id', '=', accountId)
    .where('t.qr_token', '=', qrToken)
    .executeTakeFirst();
}

export function findOrderByQr(
  db: Db,
  accountId: number,
  qrToken: string,
): Promise<{ id: number; event_id: number; status: string } | undefined> {
  return db
    .selectFrom('orders')
    .select(['id', 'event_id', 'status'])
    .where('account_id', '=', accountId)
    .where('qr_token', '=', qrToken)
    .executeTakeFirst();
}

export interface OrderTicketRow {
  id: number;
  ref: string;
  status: 'valid' | 'voided';
  ticket_type_id: number;
  type_key: string;
  checked_in_at: Date | null;
}

/** The order's tickets in order, with when each was checked in to this list (null: not yet). */
export function orderTicketsForList(db: Db, accountId: number, orderId: number, listId: number): Promise<OrderTicketRow[]> {
  return db
    .selectFrom('tickets as t')
    .innerJoin('ticket_types as tt', 'tt.id', 't.ticket_type_id')
    .leftJoin('checkins as c', (j) =>
      j.onRef('c.ticket_id', '=', 't.id').on('c.checkin_list_id', '=', listId).on('c.conflict', '=', false),
    )
    .select(['t.id', 't.ref', 't.status', 't.ticket_type_id', 'tt.key as type_key', 'c.created_at as checked_in_at'])
    .where('t.account_id', '=', accountId)
    .where('t.order_id', '=', orderId)
    .orderBy('t.position')
    .orderBy('t.id')
    .execute();
}

/**
 * Locks tickets before their check-ins are written, in id order: an online check-in and an
 * offline upload of the same ticket then take their locks in one order and never deadlock.
 */
export async function lockTickets(db: Db, ticketIds: number[]): Promise<void> {
  if (!ticketIds.length) return;
  await db.selectFrom('tickets').select('id').where('id', 'in', ticketIds).orderBy('id').forUpdate().execute();
}

/** Serialises check-ins of one order (two doors scanning the same order QR). */
export async function lockOrder(db: Db, orderId: number): Promise<void> {
  await db.selectFrom('orders').select('id').where('id', '=', orderId).forUpdate().execute();
}

/**
 * Inserts the check-in unless the (list, ticket) pair exists: of two concurrent scans exactly
 * one gets a row back; the list counter moves only for that one, in the same transaction.
 */
export async function insertCheckin(
  db: Db,
  c: { accountId: number; listId: number; ticketId: number; qrCodeScanned: boolean; online: boolean; at: Date },
): Promise<{ id: number; created_at: Date } | undefined> {
  const row = await db
    .insertInto('checkins')
    .values({
      account_id: c.accountId,
      checkin_list_id: c.listId,
      ticket_id: c.ticketId,
      qr_code_scanned: c.qrCodeScanned,
      online: c.online,
      created_at: c.at,
    })
    // the admission: one per ticket and list (scans recorded as conflicts do not count)
    .onConflict((oc) =>
      oc
        .columns(['checkin_list_id', 'ticket_id'])
        .where(sql<boolean>`not conflict`)
        .doNothing(),
    )
    .returning(['id', 'created_at'])
    .executeTakeFirst();
  if (row) {
    await db
      .updateTable('checkin_lists')
      .set((eb) => ({ checked_in_count: eb('checked_in_count', '+', 1), updated_at: c.at }))
      .where('id', '=', c.listId)
      .where('account_id', '=', c.accountId)
      .execute();
  }
  return row;
}

export function findCheckin(db: Db, listId: number, ticketId: number): Promise<{ id: number; created_at: Date } | undefined> {
  return db
    .selectFrom('checkins')
    .select(['id', 'created_at'])
    .where('checkin_list_id', '=', listId)
    .where('ticket_id', '=', ticketId)
    .where('conflict', '=', false)
    .executeTakeFirst();
}
