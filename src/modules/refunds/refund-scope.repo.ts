import type { Db } from '../../platform/db/database.ts';

/**
 * The tickets a partial refund may choose from, with their prices. Voiding them and releasing
 * their places is the orders module's (order-state.repo `recordPartRefunded`).
 */

export interface RefundableTicket {
  id: number;
  ref: string;
  status: string;
  order_line_id: number;
  /** passed on to another holder: the buyer's page no longer shows its code */
  transferred: boolean;
  /** the ticket's price as sold: its line's unit price */
  price_cents: number;
}

/** The order's tickets with the price each was sold at. */
export async function ticketsWithPrices(db: Db, orderId: number): Promise<RefundableTicket[]> {
  const rows = await db
    .selectFrom('tickets as t')
    .innerJoin('order_lines as l', 'l.id', 't.order_line_id')
    .select(['t.id', 't.ref', 't.status', 't.order_line_id', 't.holder_secret', 'l.unit_price_cents'])
    .where('t.order_id', '=', orderId)
    .orderBy('t.position')
    .orderBy('t.id')
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    ref: r.ref,
    status: r.status,
    order_line_id: Number(r.order_line_id),
    transferred: r.holder_secret !== null,
    price_cents: Number(r.unit_price_cents),
  }));
}
