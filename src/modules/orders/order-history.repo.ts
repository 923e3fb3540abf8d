import type { Insertable } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { OrderDiscountsTable, OrderLinesTable, OrdersTable, TicketsTable } from '../../platform/db/schema.ts';
import { logOrder } from './order-state.repo.ts';

/**
 * Orders that happened elsewhere, written as they were (an account file's history): no pricing,
 * no stock check, no mail. The importer computes the rows; the orders module writes them, so
 * its tables keep one writer.
 */

type OrderRow = Omit<Insertable<OrdersTable>, 'account_id' | 'event_id'>;
type LineRow = Omit<Insertable<OrderLinesTable>, 'account_id' | 'order_id' | 'event_id'>;
type TicketRow = Omit<Insertable<TicketsTable>, 'account_id' | 'order_id' | 'event_id' | 'order_line_id'>;
type DiscountRow = Omit<Insertable<OrderDiscountsTable>, 'account_id' | 'order_id'>;

export interface HistoricalOrder {
  accountId: number;
  eventId: number;
  order: OrderRow;
  lines: Array<{ line: LineRow; tickets: TicketRow[] }>;
  discounts: DiscountRow[];
  importedAt: Date;
}

/** Whether an account already has an order with this ref (refs are unique per account). */
export async function orderRefTaken(db: Db, accountId: number, ref: string): Promise<boolean> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where('account_id', '=', accountId)
    .where('ref', '=', ref)
    .executeTakeFirst();
  return row !== undefined;
}

/** Writes one historical order with its lines, tickets, discounts and an `imported` log entry; returns the ticket ids per line. */
export async function insertHistoricalOrder(db: Db, h: HistoricalOrder): Promise<{ orderId: number; ticketIds: number[][] }> {
  const owner = { account_id: h.accountId, event_id: h.eventId };
  const { id: orderId } = await db
    .insertInto('orders')
    .values({ ...h.order, ...owner })
    .returning('id')
    .executeTakeFirstOrThrow();
  await logOrder(db, { id: orderId, account_id: h.accountId }, 'imported', h.importedAt, { status: h.order.status });
  const ticketIds: number[][] = [];
  for (const { line, tickets } of h.lines) {
    const { id: lineId } = await db
      .insertInto('order_lines')
      .values({ ...line, ...owner, order_id: orderId })
      .returning('id')
      .executeTakeFirstOrThrow();
    const ids: number[] = [];
    for (const t of tickets) {
      const row = await db
        .insertInto('tickets')
        .values({ ...t, ...owner, order_id: orderId, order_line_id: lineId })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.push(row.id);
    }
    ticketIds.push(ids);
  }
  for (const d of h.discounts) {
    await db
      .insertInto('order_discounts')
      .values({ ...d, account_id: h.accountId, order_id: orderId })
      .execute();
  }
  return { orderId, ticketIds };
}
