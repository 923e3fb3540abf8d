import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { DB, MessageFilter, OrderStatus } from '../../platform/db/schema.ts';
import { logOrder } from '../orders/order-state.repo.ts';

/**
 * The messages module's tables: `messages` and `message_deliveries` (migration 0031). Orders are
 * read here to pick recipients; the one write to the orders module's tables, the order's log line,
 * goes through its `logOrder`.
 */

export const MESSAGE_MAIL = 'mail.message';

/** Without a status in the filter a message goes to the holders of paid orders. */
export const DEFAULT_STATUSES: OrderStatus[] = ['paid'];

export type MessageRow = Awaited<ReturnType<typeof listMessageRows>>[number];

/** Ticket types of the event by key (archived ones too: their orders still hold them). */
export function ticketTypesByKey(db: Db, eventId: number, keys: string[]) {
  if (!keys.length) return Promise.resolve([]);
  return db.selectFrom('ticket_types').select(['id', 'key']).where('event_id', '=', eventId).where('key', 'in', keys).execute();
}

/** The orders a filter picks: of the event, with an email address, in the statuses asked for. */
function matching(eb: ExpressionBuilder<DB, 'orders'>, eventId: number, f: MessageFilter) {
  const conditions = [
    eb('orders.event_id', '=', eventId),
    eb('orders.email', 'is not', null),
    eb('orders.email', '<>', ''),
    eb('orders.status', 'in', f.status?.length ? f.status : DEFAULT_STATUSES),
  ];
  if (f.ticket_type_ids?.length) {
    const ids = f.ticket_type_ids;
    conditions.push(
      eb.exists(
        eb
          .selectFrom('order_lines as l')
          .select(sql`1`.as('one'))
          .whereRef('l.order_id', '=', 'orders.id')
          .where('l.ticket_type_id', 'in', ids),
      ),
    );
  }
  if (f.checked_in !== undefined) {
    // checked in: one of its tickets was admitted on some list (a refused scan does not count)
    const admitted = eb.exists(
      eb
        .selectFrom('tickets as t')
        .innerJoin('checkins as c', 'c.ticket_id', 't.id')
        .select(sql`1`.as('one'))
        .whereRef('t.order_id', '=', 'orders.id')
        .where('c.conflict', '=', false),
    );
    conditions.push(f.checked_in ? admitted : eb.not(admitted));
  }
  return eb.and(conditions);
}

export async function countRecipients(db: Db, eventId: number, f: MessageFilter): Promise<number> {
  const row = await db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where((eb) => matching(eb, eventId, f))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The first order the filter picks (the console's preview renders the mail with it). */
export async function firstRecipient(db: Db, eventId: number, f: MessageFilter): Promise<number | null> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where((eb) => matching(eb, eventId, f))
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}

export function orderRefAndEmail(db: Db, orderId: number) {
  return db.selectFrom('orders').select(['ref', 'email']).where('id', '=', orderId).executeTakeFirst();
}

export function insertMessage(
  db: Db,
  m: {
    account_id: number;
    event_id: number;
    subject: string;
    body: string;
    recipient_filter: MessageFilter;
    send_at: Date;
    state: 'scheduled' | 'sending';
    created_by: string;
    created_at: Date;
    recipients: number;
  },
) {
  return db
    .insertInto('messages')
    .values({ ...m, recipient_filter: JSON.stringify(m.recipient_filter) })
    .returning(['id'])
    .executeTakeFirstOrThrow();
}

/**
 * Queues one mail per matching order in two statements whatever their number: the deliveries
 * and their outbox rows by one INSERT ... SELECT (a delivery already there queues nothing again),
 * then the message's count and state. Runs in the caller's transaction, the one that wrote the
 * message or moved it out of `scheduled`, so the message and its mails commit together.
 */
export async function queueRecipients(
  trx: Db,
  msg: { id: number; account_id: number; event_id: number; recipient_filter: MessageFilter },
  at: Date,
): Promise<number> {
  const result = await trx
    .with('d', (qc) =>
      qc
        .insertInto('message_deliveries')
        .columns(['message_id', 'order_id', 'account_id'])
        .expression((eb) =>
          eb
            .selectFrom('orders')
            .select([sql<number>`${msg.id}::bigint`.as('message_id'), 'orders.id as order_id', 'orders.account_id'])
            .where((w) => matching(w, msg.event_id, msg.recipient_filter))
            .orderBy('orders.id'),
        )
        .onConflict((oc) => oc.doNothing())
        .returning(['order_id']),
    )
    .insertInto('outbox')
    .columns(['account_id', 'kind', 'payload'])
    .expression((eb) =>
      eb
        .selectFrom('d')
        .select([
          sql<number>`${msg.account_id}::bigint`.as('account_id'),
          sql<string>`${MESSAGE_MAIL}::text`.as('kind'),
          sql<string>`jsonb_build_object('message_id', ${msg.id}::bigint, 'order_id', d.order_id)`.as('payload'),
        ])
        .orderBy('d.order_id'),
    )
    .executeTakeFirst();
  const n = Number(result.numInsertedOrUpdatedRows ?? 0n);
  await trx
    .updateTable('messages')
    .set({ recipients: n, state: n === 0 ? 'sent' : 'sending', queued_at: at })
    .where('id', '=', msg.id)
    .execute();
  return n;
}

/** Scheduled messages whose time has come, locked for this transaction; others skip them. */
export function claimDueMessages(trx: Db, now: Date, limit: number) {
  return trx
    .selectFrom('messages')
    .select(['id', 'account_id', 'event_id', 'recipient_filter'])
    .where('state', '=', 'scheduled')
    .where('send_at', '<=', now)
    .orderBy('send_at')
    .orderBy('id')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export function listMessageRows(db: Db, eventId: number, opts: { limit: number; before?: number }) {
  let q = db.selectFrom('messages').selectAll().where('event_id', '=', eventId);
  if (opts.before !== undefined) q = q.where('id', '<', opts.before);
  return q.orderBy('id', 'desc').limit(opts.limit).execute();
}

/** One delivery with what its mail says: the message, the order, its event. */
export function deliveryForMail(db: Db, messageId: number, orderId: number) {
  return db
    .selectFrom('message_deliveries as d')
    .innerJoin('messages as m', 'm.id', 'd.message_id')
    .select(['d.status', 'm.subject', 'm.body', 'm.account_id'])
    .where('d.message_id', '=', messageId)
    .where('d.order_id', '=', orderId)
    .executeTakeFirst();
}

export async function deliveryStatus(db: Db, messageId: number, orderId: number) {
  const row = await db
    .selectFrom('message_deliveries')
    .select('status')
    .where('message_id', '=', messageId)
    .where('order_id', '=', orderId)
    .executeTakeFirst();
  return row?.status ?? null;
}

/**
 * A delivery's end, once: the delivery leaves `queued`, the message counts it (and is `sent` when
 * it was the last), and a sent mail goes into the order's activity. A second call changes nothing.
 */
export async function finishDelivery(
  db: Db,
  key: { messageId: number; orderId: number },
  outcome: { status: 'sent' | 'failed'; at: Date; error?: string },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const done = await trx
      .updateTable('message_deliveries')
      .set({ status: outcome.status, sent_at: outcome.status === 'sent' ? outcome.at : null, error: outcome.error ?? null })
      .where('message_id', '=', key.messageId)
      .where('order_id', '=', key.orderId)
      .where('status', '=', 'queued')
      .returning(['account_id'])
      .executeTakeFirst();
    if (!done) return false;
    const counter = outcome.status === 'sent' ? 'sent_count' : 'failed_count';
    const msg = await trx
      .updateTable('messages')
      .set({
        [counter]: sql`${sql.ref(counter)} + 1`,
        state: sql`case when sent_count + failed_count + 1 >= recipients then 'sent' else state end`,
      })
      .where('id', '=', key.messageId)
      .returning(['subject'])
      .executeTakeFirstOrThrow();
    if (outcome.status === 'sent') {
      await logOrder(trx, { id: key.orderId, account_id: done.account_id }, 'message_sent', outcome.at, {
        message_id: key.messageId,
        subject: msg.subject,
      });
    }
    return true;
  });
}
