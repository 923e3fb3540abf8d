import type { Db } from '../../platform/db/database.ts';

/**
 * The "someone waits for these units" fact (inventory.waitlisted), kept by the waiting list
 * through these functions. Below the orders module so the order writer can see it without
 * knowing about waiting lists: a waitlisted row is sold out to the public, and only an offer
 * (order-writer's writeOfferOrder) takes its units.
 */

export interface LockedStock {
  id: number;
  capacity: number;
  taken: number;
  waitlisted: boolean;
}

/**
 * The inventory row under its lock (FOR UPDATE), the lock every order writer takes: every write
 * of a type's waiting list takes it first, so a type's entries change one transaction at a time
 * and no order slips between an offer's check and its write. `skipLocked`: null when another
 * transaction holds it (a background pass tries again later instead of queueing behind a sale).
 */
export async function lockStock(trx: Db, inventoryId: number, opts: { skipLocked?: boolean } = {}): Promise<LockedStock | null> {
  let q = trx.selectFrom('inventory').select(['id', 'capacity', 'taken', 'waitlisted']).where('id', '=', inventoryId).forUpdate();
  if (opts.skipLocked) q = q.skipLocked();
  return (await q.executeTakeFirst()) ?? null;
}

/** Sets or clears the flag; call holding the row's lock (lockStock) after counting who still waits. */
export async function setWaitlisted(trx: Db, inventoryId: number, waitlisted: boolean): Promise<void> {
  await trx
    .updateTable('inventory')
    .set({ waitlisted })
    .where('id', '=', inventoryId)
    .where('waitlisted', '!=', waitlisted)
    .execute();
}

/** Rows someone waits for, the background pass's work list (inventory_waitlisted index). */
export async function waitlistedRows(db: Db, limit = 500): Promise<number[]> {
  const rows = await db.selectFrom('inventory').select('id').where('waitlisted', '=', true).orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}
