import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { enqueue } from '../../platform/jobs/outbox.ts';
import { randomSecret } from '../../platform/secrets.ts';

export interface FulfilTarget {
  id: number;
  account_id: number;
  event_id: number;
  ref: string;
}

/**
 * Makes an order paid: status and paid_at, one ticket per ticket unit (each with an unguessable
 * QR token), an order_log entry, and the ticket mail queued in the outbox. Call it inside the
 * transaction that records why the order is paid (zero total, a payment that landed); the
 * caller has already checked the order may become paid. Stock stays taken: the hold becomes sold.
 */
export async function fulfilOrder(trx: Db, ctx: AppContext, order: FulfilTarget, at: Date, reason: string): Promise<void> {
  await trx
    .updateTable('orders')
    .set({ status: 'paid', paid_at: at, expires_at: null, canceled_at: null })
    .where('id', '=', order.id)
    .execute();
  await mintTickets(trx, order, at);
  await trx
    .insertInto('order_log')
    .values({
      account_id: order.account_id,
      order_id: order.id,
      action: 'paid',
      data: JSON.stringify({ reason }),
      created_at: ctx.clock.now(),
    })
    .execute();
  await enqueue(trx, { accountId: order.account_id, kind: 'mail.tickets', payload: { order_id: order.id } });
}

/**
 * Tickets written by one insert: a statement carries at most 65,535 parameters, ten a ticket, and
 * one order can hold a hundred lines of up to MAX_LINE_QUANTITY tickets (platform/limits.ts).
 */
const MINT_SLICE = 2_000;

/** One ticket per unit of each ticket line, refs `<order ref>-<n>`; idempotent per order. */
export async function mintTickets(trx: Db, order: FulfilTarget, at: Date): Promise<void> {
  const existing = await trx.selectFrom('tickets').select('id').where('order_id', '=', order.id).limit(1).executeTakeFirst();
  if (existing) return;
  const lines = await trx
    .selectFrom('order_lines')
    // a ticket line's session_id is the session chosen for it (its `sessions` line holds the stock)
    .select(['id', 'ticket_type_id', 'session_id', 'quantity'])
    .where('order_id', '=', order.id)
    .where('kind', '=', 'tickets')
    .orderBy('position')
    .execute();
  const rows = [];
  let n = 0;
  for (const l of lines) {
    for (let i = 0; i < l.quantity; i++) {
      n++;
      rows.push({
        account_id: order.account_id,
        event_id: order.event_id,
        order_id: order.id,
        order_line_id: l.id,
        ticket_type_id: l.ticket_type_id!,
        session_id: l.session_id,
        ref: `${order.ref}-${n}`,
        qr_token: randomSecret(),
        position: n,
        created_at: at,
      });
    }
  }
  for (let i = 0; i < rows.length; i += MINT_SLICE) {
    await trx
      .insertInto('tickets')
      .values(rows.slice(i, i + MINT_SLICE))
      .execute();
  }
}
