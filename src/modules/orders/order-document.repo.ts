import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import { ticketSeatJson } from './orders.repo.ts';

/**
 * Everything the buyer-facing views of one order need (pay page, order page, mails), loaded in
 * a fixed handful of queries.
 */
export async function loadOrderDocument(db: Db, where: { id: number } | { secret: string }) {
  let q = db
    .selectFrom('orders as o')
    .innerJoin('events as e', 'e.id', 'o.event_id')
    .innerJoin('accounts as a', 'a.id', 'o.account_id')
    .selectAll('o')
    .select([
      'e.name as event_name',
      'e.slug as event_slug',
      'e.timezone',
      'e.starts_at as event_starts_at',
      'e.ends_at as event_ends_at',
      'e.venue',
      'e.tax_mode',
      'e.locale as event_locale',
      'e.description as event_description',
      'e.self_service',
      'a.slug as account_slug',
      'a.name as account_name',
      'a.payments_mode',
      'a.payments_provider',
      'a.invoicing',
    ]);
  q = 'id' in where ? q.where('o.id', '=', where.id) : q.where('o.access_secret', '=', where.secret);
  const order = await q.executeTakeFirst();
  if (!order) return null;
  const [lines, discounts, tickets, payments, refunds] = await Promise.all([
    db.selectFrom('order_lines').selectAll().where('order_id', '=', order.id).orderBy('position').execute(),
    // a code's types say which lines it discounted (charged-amounts.ts spreads it over them)
    db
      .selectFrom('order_discounts as d')
      .leftJoin('discount_codes as c', 'c.id', 'd.discount_code_id')
      .select(['d.code', 'd.amount_cents', 'c.ticket_type_ids'])
      .where('d.order_id', '=', order.id)
      .orderBy('d.position')
      .execute(),
    db
      .selectFrom('tickets as t')
      .innerJoin('ticket_types as tt', 'tt.id', 't.ticket_type_id')
      .select([
        't.id',
        't.ref',
        't.attendee_name',
        't.attendee_email',
        't.qr_token',
        // passed on: its QR code is its holder's (their own page), not the buyer's to show
        sql<boolean>`t.holder_secret is not null`.as('transferred'),
        't.status',
        'tt.name as type_name',
        ticketSeatJson('t').as('seat'),
      ])
      .where('t.order_id', '=', order.id)
      .orderBy('t.position')
      .execute(),
    db
      .selectFrom('payments')
      .select(['rail', 'status', 'amount_cents', 'currency', 'simulated', 'succeeded_at', 'created_at'])
      .where('order_id', '=', order.id)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('refunds')
      .select(['status', 'amount_cents', 'currency', 'simulated', 'completed_at', 'created_at'])
      .where('order_id', '=', order.id)
      .orderBy('id')
      .execute(),
  ]);
  return { order, lines, discounts, tickets, payments, refunds };
}

export type OrderDocument = NonNullable<Awaited<ReturnType<typeof loadOrderDocument>>>;

/**
 * The order document as a transferred ticket's holder sees it: that ticket only, theirs to show.
 * Null when the holder's link is unknown or was replaced by a later transfer.
 */
export async function loadHolderDocument(db: Db, holderSecret: string): Promise<OrderDocument | null> {
  const t = await db
    .selectFrom('tickets')
    .select(['order_id', 'ref'])
    .where('holder_secret', '=', holderSecret)
    .executeTakeFirst();
  if (!t) return null;
  const doc = await loadOrderDocument(db, { id: Number(t.order_id) });
  if (!doc) return null;
  return { ...doc, tickets: doc.tickets.filter((x) => x.ref === t.ref).map((x) => ({ ...x, transferred: false })) };
}
