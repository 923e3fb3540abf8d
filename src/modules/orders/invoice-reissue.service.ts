import type { AppContext } from '../../platform/context.ts';
import type { InvoiceAddress } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { hasStandingInvoice, issueInvoice, reissueInvoice } from './invoice-register.repo.ts';
import { logOrder, setInvoiceAddress } from './order-state.repo.ts';

/**
 * An invoice address corrected after the invoice was issued: the address is changed, the
 * standing invoice cancelled by a credit note and a new invoice issued, numbered in the same
 * transaction (contract section 14: an issued invoice is never edited). Refused (409
 * `invoice_credited`) while a refund has credited part of the invoice.
 */
export async function reissueWithAddress(
  ctx: AppContext,
  order: { id: number; account_id: number },
  address: InvoiceAddress | null,
  by: string,
): Promise<{ credit: string | null; invoice: string | null }> {
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    const paid = await trx.selectFrom('orders').select('status').where('id', '=', order.id).forUpdate().executeTakeFirstOrThrow();
    if (paid.status !== 'paid') throw new AppError('conflict', 'not_invoiced', 'Only a paid order has an invoice to issue again');
    await setInvoiceAddress(trx, order.id, address);
    const done = await reissueInvoice(trx, order.id, now);
    if (done === 'credited')
      throw new AppError('conflict', 'invoice_credited', 'A refund has credited part of this invoice; it cannot be issued again');
    const out = { credit: done.credit?.number ?? null, invoice: done.invoice?.number ?? null };
    await logOrder(trx, order, 'invoice_reissued', now, { by, ...out });
    return out;
  });
}

/**
 * An invoice asked for after the order was paid (contract section 14: a free order gets one only
 * on request; so does an order paid before the account issued invoices): the address given, if
 * any, is kept, and the invoice numbered now, in one transaction under the order's row lock, so
 * two requests at once give one invoice. Refused when the order is not paid (409 `not_invoiced`),
 * has an invoice already (409 `already_invoiced`), or the account issues it none (422
 * `invoice_unavailable`: invoicing off, or only to businesses and no address given).
 */
export async function requestInvoice(
  ctx: AppContext,
  order: { id: number; account_id: number },
  address: InvoiceAddress | null,
  by: string,
): Promise<string> {
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    const row = await trx.selectFrom('orders').select('status').where('id', '=', order.id).forUpdate().executeTakeFirstOrThrow();
    if (row.status !== 'paid') throw new AppError('conflict', 'not_invoiced', 'Only a paid order can be invoiced');
    if (await hasStandingInvoice(trx, order.id))
      throw new AppError('conflict', 'already_invoiced', 'This order has its invoice already');
    if (address) await setInvoiceAddress(trx, order.id, address);
    const issued = await issueInvoice(trx, order.id, now, { onRequest: true });
    if (!issued)
      throw new AppError(
        'unprocessable',
        'invoice_unavailable',
        'The organiser issues no invoice for this order (invoices are off, or only for businesses that give an invoice address)',
      );
    await logOrder(trx, order, 'invoice_requested', now, { by, invoice: issued.number });
    return issued.number;
  });
}
