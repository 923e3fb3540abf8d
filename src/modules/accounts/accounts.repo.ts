import type { Db } from '../../platform/db/database.ts';

export function findAccountById(db: Db, accountId: number) {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
}

export function findAccountBySlug(db: Db, slug: string) {
  return db.selectFrom('accounts').selectAll().where('slug', '=', slug).executeTakeFirst();
}
