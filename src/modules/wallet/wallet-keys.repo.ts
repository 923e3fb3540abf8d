import type { Db } from '../../platform/db/database.ts';

/** The only writer of `wallet_keys` (migration 0032). */
export type WalletPlatform = 'apple' | 'google';

export interface WalletKeyRow {
  platform: WalletPlatform;
  identity: Record<string, string>;
  sealed: string;
  uploaded_at: Date;
}

export async function putWalletKey(
  db: Db,
  accountId: number,
  platform: WalletPlatform,
  identity: Record<string, string>,
  sealed: string,
  at: Date,
): Promise<void> {
  await db
    .insertInto('wallet_keys')
    .values({ account_id: accountId, platform, identity: JSON.stringify(identity), sealed, uploaded_at: at })
    .onConflict((oc) =>
      oc.columns(['account_id', 'platform']).doUpdateSet({ identity: JSON.stringify(identity), sealed, uploaded_at: at }),
    )
    .execute();
}

export async function deleteWalletKey(db: Db, accountId: number, platform: WalletPlatform): Promise<boolean> {
  const r = await db
    .deleteFrom('wallet_keys')
    .where('account_id', '=', accountId)
    .where('platform', '=', platform)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function walletKeyRows(db: Db, accountId: number): Promise<WalletKeyRow[]> {
  const rows = await db
    .selectFrom('wallet_keys')
    .select(['platform', 'identity', 'sealed', 'uploaded_at'])
    .where('account_id', '=', accountId)
    .orderBy('platform')
    .execute();
  return rows.map((r) => ({ ...r, uploaded_at: new Date(r.uploaded_at) }));
}
