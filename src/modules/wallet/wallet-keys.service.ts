import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError } from '../../platform/errors.ts';
import { seal, unseal } from '../../platform/sealed-box.ts';
import { deleteWalletKey, putWalletKey, walletKeyRows, type WalletPlatform } from './wallet-keys.repo.ts';
import {
  appleKeyProblems,
  googleKeyProblems,
  type AppleKeys,
  type GoogleKeys,
  type KeyProblems,
  type WalletKeys,
} from './wallet-keys.ts';

/**
 * An account's wallet keys: uploaded (console) or imported (account file), checked, sealed, and
 * read back only to sign a pass. What the console may show is `walletStatus`: who issues and
 * when the keys came, never the keys.
 */
const PURPOSE = (platform: WalletPlatform, accountId: number) => `wallet:${platform}:${accountId}`;

export interface WalletStatus {
  apple?: { pass_type_id: string; team_id: string; uploaded_at: Date };
  google?: { issuer_id: string; service_account_email: string; uploaded_at: Date };
}

/** Keys checked and sealed, ready to be written (in the caller's transaction). */
export interface SealedWalletKey {
  platform: WalletPlatform;
  identity: Record<string, string>;
  sealed: string;
}

/** 422 `invalid_wallet_keys`, the problems by field (the console shows them next to the fields). */
function refused(problems: KeyProblems): AppError {
  const list = Object.entries(problems).map(([f, p]) => `${f}: ${p}`);
  return new AppError('unprocessable', 'invalid_wallet_keys', `Wallet keys refused (${list.join(', ')})`, {
    fields: Object.fromEntries(Object.entries(problems).map(([f, p]) => [f, [p]])),
  });
}

const trimmedApple = (k: AppleKeys): AppleKeys => ({
  pass_type_id: k.pass_type_id.trim(),
  team_id: k.team_id.trim(),
  certificate_pem: k.certificate_pem.trim(),
  key_pem: k.key_pem.trim(),
  wwdr_pem: k.wwdr_pem.trim(),
});

const trimmedGoogle = (k: GoogleKeys): GoogleKeys => ({
  issuer_id: k.issuer_id.trim(),
  service_account_email: k.service_account_email.trim(),
  private_key_pem: k.private_key_pem.trim(),
});

/** Checks and seals; throws 422 with the problems by field. Seals through ctx.db: call it before a transaction. */
export async function sealAppleKeys(ctx: AppContext, accountId: number, keys: AppleKeys): Promise<SealedWalletKey> {
  const problems = appleKeyProblems(keys);
  if (Object.keys(problems).length) throw refused(problems);
  const k = trimmedApple(keys);
  const secret = JSON.stringify({ certificate_pem: k.certificate_pem, key_pem: k.key_pem, wwdr_pem: k.wwdr_pem });
  return {
    platform: 'apple',
    identity: { pass_type_id: k.pass_type_id, team_id: k.team_id },
    sealed: await seal(ctx, PURPOSE('apple', accountId), secret),
  };
}

export async function sealGoogleKeys(ctx: AppContext, accountId: number, keys: GoogleKeys): Promise<SealedWalletKey> {
  const problems = googleKeyProblems(keys);
  if (Object.keys(problems).length) throw refused(problems);
  const k = trimmedGoogle(keys);
  return {
    platform: 'google',
    identity: { issuer_id: k.issuer_id, service_account_email: k.service_account_email },
    sealed: await seal(ctx, PURPOSE('google', accountId), JSON.stringify({ private_key_pem: k.private_key_pem })),
  };
}

export async function writeWalletKeys(db: Db, accountId: number, keys: SealedWalletKey[], at: Date): Promise<void> {
  for (const k of keys) await putWalletKey(db, accountId, k.platform, k.identity, k.sealed, at);
}

/**
 * An account file's `account.wallet`, checked before the import's transaction, and the sealing
 * key made then (on PGlite's one connection, creating it inside the transaction would wait for
 * the transaction itself). The blob is bound to the account id, which the import knows only
 * inside its transaction: the writer returned seals there, from the keys held in this closure.
 */
export async function prepareImportedWallet(ctx: AppContext, wallet: WalletKeys | undefined) {
  const problems: KeyProblems = {};
  if (wallet?.apple) for (const [f, p] of Object.entries(appleKeyProblems(wallet.apple))) problems[`apple.${f}`] = p;
  if (wallet?.google) for (const [f, p] of Object.entries(googleKeyProblems(wallet.google))) problems[`google.${f}`] = p;
  if (Object.keys(problems).length) {
    const list = Object.entries(problems).map(([f, p]) => `$.account.wallet.${f}: ${p}`);
    throw new AppError('unprocessable', 'invalid_account_file', `The account file is invalid:\n${list.join('\n')}`);
  }
  if (wallet?.apple || wallet?.google) await seal(ctx, 'warm', '');
  return async (db: Db, accountId: number, at: Date) => {
    const sealed: SealedWalletKey[] = [];
    if (wallet?.apple) sealed.push(await sealAppleKeys(ctx, accountId, wallet.apple));
    if (wallet?.google) sealed.push(await sealGoogleKeys(ctx, accountId, wallet.google));
    await writeWalletKeys(db, accountId, sealed, at);
  };
}

export async function saveAppleKeys(ctx: AppContext, accountId: number, keys: AppleKeys): Promise<void> {
  await writeWalletKeys(ctx.db, accountId, [await sealAppleKeys(ctx, accountId, keys)], ctx.clock.now());
}

export async function saveGoogleKeys(ctx: AppContext, accountId: number, keys: GoogleKeys): Promise<void> {
  await writeWalletKeys(ctx.db, accountId, [await sealGoogleKeys(ctx, accountId, keys)], ctx.clock.now());
}

export function removeWalletKeys(ctx: AppContext, accountId: number, platform: WalletPlatform): Promise<boolean> {
  return deleteWalletKey(ctx.db, accountId, platform);
}

export async function walletStatus(ctx: AppContext, accountId: number): Promise<WalletStatus> {
  const status: WalletStatus = {};
  for (const r of await walletKeyRows(ctx.db, accountId)) {
    if (r.platform === 'apple')
      status.apple = {
        pass_type_id: r.identity.pass_type_id ?? '',
        team_id: r.identity.team_id ?? '',
        uploaded_at: r.uploaded_at,
      };
    else
      status.google = {
        issuer_id: r.identity.issuer_id ?? '',
        service_account_email: r.identity.service_account_email ?? '',
        uploaded_at: r.uploaded_at,
      };
  }
  return status;
}

/**
 * The keys to sign with. A blob that no longer opens (ADMIT_SECRETS_KEY changed) counts as not
 * configured, logged once per read: the account uploads its keys again.
 */
export async function loadWalletKeys(ctx: AppContext, accountId: number): Promise<WalletKeys> {
  const keys: WalletKeys = {};
  for (const r of await walletKeyRows(ctx.db, accountId)) {
    const plain = await unseal(ctx, PURPOSE(r.platform, accountId), r.sealed);
    if (plain === null) {
      ctx.log.warn({ accountId, platform: r.platform }, 'wallet keys do not open with the current sealing key');
      continue;
    }
    const secret = JSON.parse(plain) as Record<string, string>;
    if (r.platform === 'apple')
      keys.apple = {
        ...(r.identity as Pick<AppleKeys, 'pass_type_id' | 'team_id'>),
        ...(secret as Omit<AppleKeys, 'pass_type_id' | 'team_id'>),
      };
    else
      keys.google = {
        ...(r.identity as Pick<GoogleKeys, 'issuer_id' | 'service_account_email'>),
        ...(secret as Pick<GoogleKeys, 'private_key_pem'>),
      };
  }
  return keys;
}
