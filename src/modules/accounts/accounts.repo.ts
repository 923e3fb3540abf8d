import type { Insertable } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { AccountsTable, InvoicingSettings } from '../../platform/db/schema.ts';

export function findAccountById(db: Db, accountId: number) {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
}

export function findAccountBySlug(db: Db, slug: string) {
  return db.selectFrom('accounts').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function insertAccount(db: Db, row: Insertable<AccountsTable>): Promise<number> {
  const { id } = await db.insertInto('accounts').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** Deletes an account and, through the foreign keys, everything it owns (an import with --replace). */
export async function deleteAccount(db: Db, accountId: number): Promise<void> {
  await db.deleteFrom('accounts').where('id', '=', accountId).execute();
}

export async function findInvoicing(db: Db, accountId: number): Promise<InvoicingSettings | null | undefined> {
  const row = await db.selectFrom('accounts').select('invoicing').where('id', '=', accountId).executeTakeFirst();
  return row?.invoicing;
}

export async function setInvoicing(db: Db, accountId: number, settings: InvoicingSettings): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ invoicing: JSON.stringify(settings) })
    .where('id', '=', accountId)
    .execute();
}
