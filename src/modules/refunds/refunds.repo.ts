import type { Insertable } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { RefundsTable } from '../../platform/db/schema.ts';

/** The refunds module's writes of `refunds` that other modules need (the importer's history). */
export async function insertRefund(db: Db, row: Insertable<RefundsTable>): Promise<number> {
  const { id } = await db.insertInto('refunds').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}
