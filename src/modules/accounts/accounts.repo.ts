import type { Db } from '../../platform/db/database.ts';

export function findAccountById(db: Db, accountId: number) {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
}

export function findAccountBySlug(db: Db, slug: string) {
  return db.selectFrom('accounts').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function insertToken(
  db: Db,
  t: { accountId: number; name: string; hash: string; capabilities: string[]; scopes: string[]; eventSlugs: string[] | null },
): Promise<number> {
  const row = await db
    .insertInto('api_tokens')
    .values({
      account_id: t.accountId,
      name: t.name,
      token_hash: t.hash,
      capabilities: t.capabilities,
      scopes: t.scopes,
      event_slugs: t.eventSlugs,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
