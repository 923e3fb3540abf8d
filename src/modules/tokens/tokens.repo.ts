import type { Insertable } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { ApiTokensTable } from '../../platform/db/schema.ts';

/** The writes of `api_tokens` (the platform's authentication stamps `last_used_at` only). */

export async function tokenHashTaken(db: Db, hash: string): Promise<boolean> {
  return (await db.selectFrom('api_tokens').select('id').where('token_hash', '=', hash).executeTakeFirst()) !== undefined;
}

/** What a token's listing shows: never its hash. */
export const TOKEN_COLUMNS = ['id', 'name', 'capabilities', 'scopes', 'event_slugs', 'created_at', 'last_used_at'] as const;

export function insertToken(db: Db, row: Insertable<ApiTokensTable>) {
  return db.insertInto('api_tokens').values(row).returning(TOKEN_COLUMNS).executeTakeFirstOrThrow();
}

export async function deleteToken(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('api_tokens').where('account_id', '=', accountId).where('id', '=', id).execute();
}
