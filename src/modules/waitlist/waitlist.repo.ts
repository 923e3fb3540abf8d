import { sql, type Selectable } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { WaitingListEntriesTable } from '../../platform/db/schema.ts';

/**
 * The waiting list's table, `waiting_list_entries`, written only here. Every write of a type's
 * entries runs holding the lock of the type's inventory row (waitlist-flag.repo's lockStock),
 * which the callers in waitlist.service and offer.service take first.
 */

export type EntryRow = Selectable<WaitingListEntriesTable>;
export type EntryStatus = EntryRow['status'];

/** An entry as the API and the console show it: with its place in the queue and its order's ref. */
export interface ListedEntry extends EntryRow {
  /** 1 for the next to be offered, among the type's waiting entries; null when not waiting */
  position: number | null;
  order_ref: string | null;
}

/** A ticket type the list can queue for: its event, stock row and per-order cap. */
export interface QueueableType {
  id: number;
  event_id: number;
  name: string;
  inventory_id: number | null;
  max_per_order: number | null;
  requires_session: boolean;
  archived: boolean;
}

export function readTicketType(db: Db, eventId: number, typeId: number): Promise<QueueableType | undefined> {
  return db
    .selectFrom('ticket_types')
    .select(['id', 'event_id', 'name', 'inventory_id', 'max_per_order', 'requires_session', 'archived'])
    .where('event_id', '=', eventId)
    .where('id', '=', typeId)
    .executeTakeFirst();
}

/** The entries of an event, oldest first, with their positions (paged by id). */
export async function listEntries(
  db: Db,
  eventId: number,
  opts: { after?: number; limit?: number; status?: EntryStatus } = {},
): Promise<ListedEntry[]> {
  let q = db
    .selectFrom('waiting_list_entries as e')
    .leftJoin('orders as o', 'o.id', 'e.order_id')
    .selectAll('e')
    .select('o.ref as order_ref')
    .select(
      sql<number | null>`case when e.status = 'waiting' then (select count(*)::int from waiting_list_entries w
        where w.ticket_type_id = e.ticket_type_id and w.status = 'waiting' and w.id <= e.id) end`.as('position'),
    )
    .where('e.event_id', '=', eventId)
    .orderBy('e.id');
  if (opts.after !== undefined) q = q.where('e.id', '>', opts.after);
  if (opts.status) q = q.where('e.status', '=', opts.status);
  if (opts.limit !== undefined) q = q.limit(opts.limit);
  return q.execute();
}

export function findEntry(db: Db, eventId: number, id: number, lock = false) {
  let q = db.selectFrom('waiting_list_entries').selectAll().where('event_id', '=', eventId).where('id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export function findEntryBySecret(db: Db, secret: string) {
  return db.selectFrom('waiting_list_entries').selectAll().where('leave_secret', '=', secret).executeTakeFirst();
}

export async function insertEntry(
  trx: Db,
  row: Omit<EntryRow, 'id' | 'status' | 'order_id' | 'offered_at' | 'expires_at' | 'updated_at'>,
): Promise<EntryRow> {
  return trx
    .insertInto('waiting_list_entries')
    .values({ ...row, updated_at: row.created_at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Moves an entry on only from the statuses given (the guard that makes every move happen once). */
export async function moveEntry(
  trx: Db,
  id: number,
  from: EntryStatus[],
  to: { status: EntryStatus; at: Date; order_id?: number; offered_at?: Date; expires_at?: Date | null },
): Promise<boolean> {
  const r = await trx
    .updateTable('waiting_list_entries')
    .set({
      status: to.status,
      updated_at: to.at,
      ...(to.order_id !== undefined ? { order_id: to.order_id } : {}),
      ...(to.offered_at !== undefined ? { offered_at: to.offered_at } : {}),
      ...(to.expires_at !== undefined ? { expires_at: to.expires_at } : {}),
    })
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

/** Whether anyone still waits for the type (what inventory.waitlisted must say). */
export async function anyoneWaiting(trx: Db, ticketTypeId: number): Promise<boolean> {
  const r = await trx
    .selectFrom('waiting_list_entries')
    .select('id')
    .where('ticket_type_id', '=', ticketTypeId)
    .where('status', '=', 'waiting')
    .limit(1)
    .executeTakeFirst();
  return r !== undefined;
}

/**
 * The first waiting entry (arrival order) whose quantity fits in `free` units, locked; entries a
 * concurrent remover holds are waited for (every writer holds the type's stock lock first, so
 * none holds an entry while waiting on that lock).
 */
export function firstFitting(trx: Db, ticketTypeId: number, free: number, skip: number[] = []) {
  let q = trx
    .selectFrom('waiting_list_entries')
    .selectAll()
    .where('ticket_type_id', '=', ticketTypeId)
    .where('status', '=', 'waiting')
    .where('quantity', '<=', free);
  if (skip.length) q = q.where('id', 'not in', skip);
  return q.orderBy('id').limit(1).forUpdate().executeTakeFirst();
}

/** Offered entries of a type with their order's status now (null: the order is gone). */
export function offeredEntries(trx: Db, ticketTypeId: number) {
  return trx
    .selectFrom('waiting_list_entries as e')
    .leftJoin('orders as o', 'o.id', 'e.order_id')
    .select(['e.id', 'e.order_id', 'o.status as order_status'])
    .where('e.ticket_type_id', '=', ticketTypeId)
    .where('e.status', '=', 'offered')
    .orderBy('e.id')
    .forUpdate('e')
    .execute();
}

/** The ticket types with someone waiting or an open offer: the background pass's work list. */
export async function typesWithWork(db: Db, limit = 500) {
  return db
    .selectFrom('waiting_list_entries as e')
    .innerJoin('ticket_types as t', 't.id', 'e.ticket_type_id')
    .innerJoin('events as ev', 'ev.id', 'e.event_id')
    .select(['t.id as ticket_type_id', 't.inventory_id', 'e.account_id', 'ev.slug as event_slug'])
    .where('e.status', 'in', ['waiting', 'offered'])
    .groupBy(['t.id', 't.inventory_id', 'e.account_id', 'ev.slug'])
    .orderBy('t.id')
    .limit(limit)
    .execute();
}

/** An entry with what its mails say: the event, the type, the sender and the offer's order. */
export function entryForMail(db: Db, id: number) {
  return db
    .selectFrom('waiting_list_entries as w')
    .innerJoin('events as e', 'e.id', 'w.event_id')
    .innerJoin('ticket_types as t', 't.id', 'w.ticket_type_id')
    .innerJoin('accounts as a', 'a.id', 'w.account_id')
    .leftJoin('orders as o', 'o.id', 'w.order_id')
    .selectAll('w')
    .select([
      'e.name as event_name',
      'e.slug as event_slug',
      'e.timezone',
      'e.starts_at as event_starts_at',
      'e.locale as event_locale',
      't.name as type_name',
      'a.name as account_name',
      'a.slug as account_slug',
      'o.access_secret as order_secret',
      'o.status as order_status',
      'o.total_cents as order_total_cents',
      'o.currency as order_currency',
      'o.expires_at as order_expires_at',
    ])
    .where('w.id', '=', id)
    .executeTakeFirst();
}
