import type { AppContext } from '../../platform/context.ts';
import type { InvoiceAddress } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { reissueInvoice } from './invoice-register.repo.ts';
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
