import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { AppContext } from './context.ts';
import { appSecret } from './secrets.ts';

/**
 * Secrets the service must read back (an account's wallet signing keys), sealed with AES-256-GCM
 * before they reach a table. The key is ADMIT_SECRETS_KEY when set (then a copy of the database
 * alone does not reveal them); otherwise a random key kept in `app_secrets`, which still keeps the
 * plain PEMs out of the table, its exports and anything that reads rows without this function.
 * `purpose` is bound as associated data: a blob sealed for one use does not open for another.
 */
const VERSION = 'v1';
async function sealingKey(ctx: AppContext): Promise<Buffer> {
  const key = ctx.config.secretsKey || (await appSecret(ctx.db, 'sealing-key'));
  return createHash('sha256').update(key).digest();
}

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export async function seal(ctx: AppContext, purpose: string, plain: string): Promise<string> {
  const key = await sealingKey(ctx);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(purpose));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** The plain text, or null when the blob does not open (another key, another purpose, tampered). */
export async function unseal(ctx: AppContext, purpose: string, sealed: string): Promise<string | null> {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || body === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', await sealingKey(ctx), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
