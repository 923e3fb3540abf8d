import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import type { Role } from '../../platform/db/schema.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { limitAlways } from '../../platform/http/rate-limit.ts';
import { randomSecret } from '../../platform/secrets.ts';
import { hashPassword, isPasswordHash, passwordProblem } from './passwords.ts';

export const ROLES = ['owner', 'manager', 'door', 'viewer'] as const satisfies readonly Role[];

/**
 * What each role may do (contract section 7). Checked on the server for every page and form;
 * the pages also leave out what a role may not do.
 */
export type Action =
  | 'events.read'
  | 'events.write'
  | 'orders.read'
  | 'orders.write'
  | 'checkin'
  | 'team.manage'
  | 'tokens.manage'
  | 'webhooks.manage'
  | 'invoicing.manage'
  | 'wallet.manage';
const ALLOWED: Record<Role, ReadonlySet<Action>> = {
  owner: new Set([
    'events.read',
    'events.write',
    'orders.read',
    'orders.write',
    'checkin',
    'team.manage',
    'tokens.manage',
    'webhooks.manage',
    'invoicing.manage',
    'wallet.manage',
  ]),
  manager: new Set(['events.read', 'events.write', 'orders.read', 'orders.write', 'checkin']),
  door: new Set(['checkin']),
  viewer: new Set(['events.read', 'orders.read']),
};
export function roleCan(role: Role, action: Action): boolean {
  return ALLOWED[role].has(action);
}

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;

export const invalid = (fields: Record<string, string[]>) =>
  new AppError(
    'unprocessable',
    'validation_failed',
    Object.entries(fields)
      .map(([k, v]) => `${k} ${v.join(', ')}`)
      .join('; '),
    { fields },
  );

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function findUserByEmail(db: Db, email: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', normaliseEmail(email))
    .executeTakeFirst();
}

/** A person with a role in an account: made, or given the role when they exist (then the password is kept). */
export async function addUser(
  db: Db,
  input: { accountId: number; email: string; name?: string; role: Role; password?: string | null; passwordHash?: string | null },
): Promise<number> {
  const fields: Record<string, string[]> = {};
  if (!EMAIL.test(input.email.trim())) fields.email = ['is not an email address'];
  if (!ROLES.includes(input.role)) fields.role = [`must be one of ${ROLES.join(', ')}`];
  const weak = input.password ? passwordProblem(input.password) : null;
  if (weak) fields.password = [weak];
  // an exported person's stored hash is taken as it is, if it is one this server can check
  if (input.passwordHash && !isPasswordHash(input.passwordHash))
    fields.password_hash = ['is not a password hash this server reads'];
  if (Object.keys(fields).length) throw invalid(fields);
  const existing = await findUserByEmail(db, input.email);
  let userId: number;
  if (existing) {
    userId = existing.id;
    if ((input.password || input.passwordHash) && !existing.password_hash) {
      await db
        .updateTable('users')
        .set({ password_hash: input.passwordHash || (await hashPassword(input.password!)), password_changed_at: new Date() })
        .where('id', '=', userId)
        .execute();
    }
  } else {
    const row = await db
      .insertInto('users')
      .values({
        email: input.email.trim(),
        name: input.name?.trim() ?? '',
        password_hash: input.passwordHash || (input.password ? await hashPassword(input.password) : null),
        password_changed_at: input.password || input.passwordHash ? new Date() : null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    userId = row.id;
  }
  await db
    .insertInto('memberships')
    .values({ user_id: userId, account_id: input.accountId, role: input.role })
    .onConflict((oc) => oc.columns(['account_id', 'user_id']).doUpdateSet({ role: input.role }))
    .execute();
  return userId;
}

/** Sign-in attempts per minute, per client address and per email (shared by every instance). */
export const SIGN_IN_PER_ADDRESS = 20;
export const SIGN_IN_PER_EMAIL = 5;

export interface ConsoleSession {
  id: string;
  userId: number;
  email: string;
  name: string;
  pendingTotp: boolean;
  totpEnabled: boolean;
  /** the console language the person chose ("en", "de"); null follows the browser */
  language: string | null;
}

/** Starts a session; returns the cookie value (only its hash is stored). */
export async function startSession(ctx: AppContext, userId: number, pendingTotp: boolean): Promise<string> {
  const value = randomSecret(32);
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('console_sessions')
    .values({
      id: sha256(value),
      user_id: userId,
      pending_totp: pendingTotp,
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + SESSION_IDLE_MS),
    })
    .execute();
  if (Math.random() < 0.05) await ctx.db.deleteFrom('console_sessions').where('expires_at', '<', now).execute();
  return value;
}

/** The session behind a cookie value, sliding its idle expiry (written at most every 5 minutes). */
export async function sessionFor(ctx: AppContext, value: string | undefined): Promise<ConsoleSession | null> {
  if (!value || value.length > 100) return null;
  const now = ctx.clock.now();
  const row = await ctx.db
    .selectFrom('console_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([
      's.id',
      's.user_id',
      's.pending_totp',
      's.created_at',
      's.last_seen_at',
      's.expires_at',
      'u.email',
      'u.name',
      'u.totp_enabled',
      'u.language',
    ])
    .where('s.id', '=', sha256(value))
    .executeTakeFirst();
  if (!row) return null;
  if (new Date(row.expires_at) <= now || now.getTime() - new Date(row.created_at).getTime() > SESSION_MAX_MS) {
    await ctx.db.deleteFrom('console_sessions').where('id', '=', row.id).execute();
    return null;
  }
  if (now.getTime() - new Date(row.last_seen_at).getTime() > 5 * 60 * 1000) {
    await ctx.db
      .updateTable('console_sessions')
      .set({ last_seen_at: now, expires_at: new Date(now.getTime() + SESSION_IDLE_MS) })
      .where('id', '=', row.id)
      .execute();
  }
  return {
    id: row.id,
    userId: row.user_id,
    email: row.email,
    name: row.name,
    pendingTotp: row.pending_totp,
    totpEnabled: row.totp_enabled,
    language: row.language,
  };
}

/** The person's console language: one of `languages`, or null to follow the browser. */
export async function setUserLanguage(
  db: Db,
  userId: number,
  language: string | null,
  languages: readonly string[],
): Promise<void> {
  if (language !== null && !languages.includes(language))
    throw invalid({ language: ['must be equal to one of the allowed values'] });
  await db.updateTable('users').set({ language }).where('id', '=', userId).execute();
}

export async function endSession(db: Db, sessionId: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id', '=', sessionId).execute();
}

export async function memberships(db: Db, userId: number) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['a.id as account_id', 'a.slug', 'a.name', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('a.name')
    .execute();
}

// ---- TOTP second factor (RFC 6238: SHA-1, 6 digits, 30 s, one step of drift either way)

function totpOf(secret: string, label: string): TOTP {
  return new TOTP({ issuer: 'admit', label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
}

export function totpValid(secret: string, code: string, now: Date): boolean {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return false;
  return totpOf(secret, '').validate({ token, timestamp: now.getTime(), window: 1 }) !== null;
}

/** A new (not yet active) TOTP secret for a person; returns the otpauth:// URI for the app. */
export async function beginTotp(db: Db, userId: number, email: string): Promise<string> {
  const secret = new Secret({ size: 20 }).base32;
  await db.updateTable('users').set({ totp_secret: secret, totp_enabled: false }).where('id', '=', userId).execute();
  return totpOf(secret, email).toString();
}

export async function totpUri(db: Db, userId: number): Promise<string | null> {
  const u = await db.selectFrom('users').select(['totp_secret', 'email']).where('id', '=', userId).executeTakeFirstOrThrow();
  return u.totp_secret ? totpOf(u.totp_secret, u.email).toString() : null;
}

/** Whether the person's sign-in asks for a code (a session they start waits for it). */
export async function totpEnabled(db: Db, userId: number): Promise<boolean> {
  const u = await db.selectFrom('users').select('totp_enabled').where('id', '=', userId).executeTakeFirstOrThrow();
  return u.totp_enabled;
}

export async function confirmTotp(ctx: AppContext, userId: number, code: string): Promise<boolean> {
  const u = await ctx.db.selectFrom('users').select('totp_secret').where('id', '=', userId).executeTakeFirstOrThrow();
  if (!u.totp_secret || !totpValid(u.totp_secret, code, ctx.clock.now())) return false;
  await ctx.db.updateTable('users').set({ totp_enabled: true }).where('id', '=', userId).execute();
  return true;
}

export async function disableTotp(db: Db, userId: number): Promise<void> {
  await db.updateTable('users').set({ totp_enabled: false, totp_secret: null }).where('id', '=', userId).execute();
}

/** The second step of signing in: the code of the person's authenticator app. */
export async function completeTotp(ctx: AppContext, session: ConsoleSession, code: string, ip: string): Promise<void> {
  await limitAlways(ctx, `totp:${session.userId}`, SIGN_IN_PER_EMAIL);
  await limitAlways(ctx, `signin:ip:${ip}`, SIGN_IN_PER_ADDRESS);
  const u = await ctx.db.selectFrom('users').select('totp_secret').where('id', '=', session.userId).executeTakeFirstOrThrow();
  if (!u.totp_secret || !totpValid(u.totp_secret, code, ctx.clock.now())) {
    throw new AppError('unauthorized', 'invalid_code', 'That code is not right. Codes change every 30 seconds.');
  }
  await ctx.db.updateTable('console_sessions').set({ pending_totp: false }).where('id', '=', session.id).execute();
}

// ---- Team

export async function teamOf(db: Db, accountId: number) {
  const [members, pending] = await Promise.all([
    db
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.email', 'u.name', 'm.role', 'u.totp_enabled'])
      .where('m.account_id', '=', accountId)
      .orderBy('u.email')
      .execute(),
    db
      .selectFrom('invitations')
      .select(['id', 'email', 'role', 'expires_at'])
      .where('account_id', '=', accountId)
      .where('accepted_at', 'is', null)
      .where('expires_at', '>', new Date())
      .orderBy('id')
      .execute(),
  ]);
  return { members, pending };
}

/** Changes a member's role or removes them; the last owner stays (an account always has one). */
export async function changeMember(db: Db, accountId: number, userId: number, role: Role | null): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const owners = await trx
      .selectFrom('memberships')
      .select('user_id')
      .where('account_id', '=', accountId)
      .where('role', '=', 'owner')
      .forUpdate()
      .execute();
    const current = await trx
      .selectFrom('memberships')
      .select('role')
      .where('account_id', '=', accountId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!current) throw notFound('No such member');
    if (current.role === 'owner' && role !== 'owner' && owners.length === 1) {
      throw new AppError('conflict', 'last_owner', 'An account needs an owner: make someone else owner first');
    }
    if (role === null)
      await trx.deleteFrom('memberships').where('account_id', '=', accountId).where('user_id', '=', userId).execute();
    else
      await trx
        .updateTable('memberships')
        .set({ role })
        .where('account_id', '=', accountId)
        .where('user_id', '=', userId)
        .execute();
  });
}
