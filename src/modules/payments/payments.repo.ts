import type { Insertable } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { PaymentsTable } from '../../platform/db/schema.ts';

/** The writes of `payments`: money that landed, a card payment opened, a terminal payment voided. */

export type PaymentRow = Insertable<PaymentsTable>;

export async function insertPayment(db: Db, row: PaymentRow): Promise<number> {
  const { id } = await db.insertInto('payments').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** A payment opened earlier (a card PaymentIntent) and now succeeded takes the landed values. */
export async function completePayment(db: Db, id: number, values: Partial<PaymentRow>): Promise<void> {
  await db.updateTable('payments').set(values).where('id', '=', id).execute();
}

export async function setProviderRef(db: Db, id: number, ref: string): Promise<void> {
  await db.updateTable('payments').set({ provider_ref: ref }).where('id', '=', id).execute();
}

export async function markPaymentsCanceled(db: Db, ids: number[]): Promise<void> {
  if (ids.length) await db.updateTable('payments').set({ status: 'canceled' }).where('id', 'in', ids).execute();
}

/** Fills the processor's fee once it is known; a fee already recorded is kept. */
export async function fillFee(db: Db, id: number, fee: { fee_cents: number; currency: string }): Promise<void> {
  await db
    .updateTable('payments')
    .set({ fee_cents: fee.fee_cents, fee_currency: fee.currency })
    .where('id', '=', id)
    .where('fee_cents', 'is', null)
    .execute();
}
