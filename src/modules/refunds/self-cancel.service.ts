import type { AppContext } from '../../platform/context.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { lockOrderRights, readOrderRights, type Actor } from '../orders/attendees.service.ts';
import { chargedAmounts } from '../orders/charged-amounts.ts';
import { loadOrderDocument, type OrderDocument } from '../orders/order-document.repo.ts';
import { logOrder, recordPartRefunded } from '../orders/order-state.repo.ts';
import { cancelRefund } from '../orders/self-service.ts';
import { refundOrder } from './refund-order.service.ts';
import { ticketsWithPrices, type RefundableTicket } from './refund-scope.repo.ts';

/**
 * A buyer cancels tickets on the order page (contract section 15), within the event's
 * `cancel_until`: the tickets' share of what was paid, less the fee, goes back through the
 * refund machinery (one pending refund per order, the provider called with a key derived from
 * it, the reconciler finishing one a crash interrupted), and the same transaction that records
 * the refund voids the tickets and frees their places (to the waiting list first). Nothing to
 * give back (a free order, a 100 % fee) voids them at once.
 */

export const SELF_CANCEL_KEY = 'self-cancel:';

export interface CancelOutcome {
  refunded_cents: number;
  fee_cents: number;
  tickets: string[];
}

const closed = (what: string) => new AppError('unprocessable', 'self_service_closed', what);

/** What each ticket was paid for: its line's charged amount (codes spread over lines) shared over its tickets. */
export function ticketCharges(doc: OrderDocument, tickets: readonly RefundableTicket[]): Map<string, number> {
  const charged = chargedAmounts(doc.lines, doc.discounts, doc.order.tax_mode);
  const out = new Map<string, number>();
  doc.lines.forEach((line, i) => {
    const mine = tickets.filter((t) => t.order_line_id === Number(line.id));
    const amount = charged.lines[i]!.charged_cents;
    const q = Math.max(1, line.quantity);
    mine.forEach((t, k) => out.set(t.ref, Math.floor(amount / q) + (k < amount % q ? 1 : 0)));
  });
  return out;
}

/** The refund a choice of tickets would give: for the page, before anything is written. */
export function cancelQuote(
  doc: OrderDocument,
  tickets: readonly RefundableTicket[],
  refs: readonly string[],
  feePercent: number,
) {
  const charges = ticketCharges(doc, tickets);
  const price = refs.reduce((s, r) => s + (charges.get(r) ?? 0), 0);
  return { price, ...cancelRefund(price, feePercent, doc.order.total_cents - doc.order.refunded_cents) };
}

export async function cancelTickets(
  ctx: AppContext,
  order: { id: number; account_id: number; ref: string },
  refs: readonly string[],
  by: Actor,
  key: string,
): Promise<CancelOutcome> {
  const chosen = [...new Set(refs)];
  if (!chosen.length)
    throw new AppError('unprocessable', 'invalid_tickets', 'Choose at least one ticket', {
      fields: { tickets: ['Choose at least one ticket'] },
    });
  const doc = await loadOrderDocument(ctx.db, { id: order.id });
  if (!doc) throw notFound('No such order');
  const all = await ticketsWithPrices(ctx.db, order.id);
  const valid = all.filter((t) => chosen.includes(t.ref) && t.status === 'valid');
  if (valid.length !== chosen.length) {
    // the same form sent again after it went through: answer as before
    if (all.some((t) => chosen.includes(t.ref)) && (await sameCancelDone(ctx, order.id, key)))
      return { refunded_cents: 0, fee_cents: 0, tickets: [] };
    throw new AppError('unprocessable', 'not_refundable', 'Choose tickets of this order that are still valid', {
      fields: { tickets: ['Choose tickets of this order that are still valid'] },
    });
  }
  const now = ctx.clock.now();
  // A plain read: a lock taken here would end with its own transaction, before anything is written.
  // The deadline and the fee are the event's and the clock's, which no order lock holds still; the
  // refund checks again under the order's lock what the write depends on (paid, not refunded,
  // the balance, the chosen tickets still valid), and voiding without a refund takes that lock too.
  const rights = await readOrderRights(ctx.db, order.id, now);
  if (by.kind === 'buyer' && !rights.cancel) throw closed('Tickets of this order can no longer be cancelled');
  if (rights.status !== 'paid') throw closed('Only tickets of a paid order can be cancelled');
  const fee = by.kind === 'buyer' ? rights.feePercent : 0;
  const quote = cancelQuote(doc, all, chosen, fee);
  const actor = by.kind === 'buyer' ? 'buyer' : by.email;
  if (quote.refund > 0) {
    const result = await refundOrder(
      ctx,
      { ...order, by: actor },
      {
        ticket_refs: chosen,
        amount_cents: quote.refund,
        reason: fee ? `Cancelled by the ${by.kind}; fee kept: ${quote.fee} (${fee} %)` : `Cancelled by the ${by.kind}`,
        key: SELF_CANCEL_KEY + key,
      },
    );
    // `already`: this form went through before (answer as then), or the whole order was refunded
    // meanwhile by someone else, when this cancellation returned nothing and must not say it did
    if ('already' in result && !(await sameCancelDone(ctx, order.id, key)))
      throw closed('This order was refunded in full meanwhile');
    return { refunded_cents: quote.refund, fee_cents: quote.fee, tickets: chosen };
  }
  // nothing goes back: the tickets end now, under the order's lock
  await ctx.db.transaction().execute(async (trx) => {
    await lockOrderRights(trx, order.id, now);
    const voided = await recordPartRefunded(
      trx,
      order.id,
      0,
      valid.map((t) => t.id),
    );
    if (voided.length) await logOrder(trx, order, 'tickets_canceled', now, { tickets: voided, refunded_cents: 0, by: actor });
  });
  return { refunded_cents: 0, fee_cents: quote.fee, tickets: chosen };
}

async function sameCancelDone(ctx: AppContext, orderId: number, key: string): Promise<boolean> {
  const r = await ctx.db
    .selectFrom('refunds')
    .select('id')
    .where('order_id', '=', orderId)
    .where('request_key', '=', SELF_CANCEL_KEY + key)
    .executeTakeFirst();
  return Boolean(r);
}
