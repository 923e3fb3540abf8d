import type { Db } from '../../platform/db/database.ts';

/**
 * A code's uses counted by an order written outside the checkout (an account file's history). The
 * checkout's batch writer counts uses itself, under the code rows' locks, in its one statement.
 */
export async function addCodeUses(db: Db, codeId: number, n: number): Promise<void> {
  await db
    .updateTable('discount_codes')
    .set((eb) => ({ uses: eb('uses', '+', n) }))
    .where('id', '=', codeId)
    .execute();
}
