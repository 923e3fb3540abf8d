import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import type { Role } from '../../platform/db/schema.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { limitAlways } from '../../platform/http/rate-limit.ts';
import { enqueue } from '../../platform/jobs/outbox.ts';
import { randomSecret } from '../../platform/secrets.ts';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import {
  addUser,
  EMAIL,
  findUserByEmail,
  invalid,
  normaliseEmail,
  ROLES,
  sha256,
  SIGN_IN_PER_ADDRESS,
  SIGN_IN_PER_EMAIL,
} from './users.service.ts';

/*
 * How a person proves who they are and gets in: password checks (one throttle for all of them),
 * password changes, and the two secret-bearing links, invitations and password resets.
 */

const INVITE_MS = 7 * 24 * 60 * 60 * 1000;
const RESET_MS = 60 * 60 * 1000;

/** A new password for a person; every session of theirs ends. */
export async function setPassword(db: Db, email: string, password: string): Promise<void> {
  const weak = passwordProblem(password);
  if (weak) throw invalid({ password: [weak] });
  const user = await findUserByEmail(db, email);
  if (!user) throw notFound(`No person with email ${email}`);
  const hash = await hashPassword(password);
  await db.transaction().execute((trx) => storePassword(trx, user.id, hash, new Date()));
}

/**
 * Stores a new password hash. A password set ends every reset link still out for that person
 * (the one used and any other mailed before it) and every session but `keepSession`: whoever
 * held the old password or an older link is out.
 */
async function storePassword(db: Db, userId: number, hash: string, now: Date, keepSession?: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash, password_changed_at: now }).where('id', '=', userId).execute();
  await db
    .updateTable('password_resets')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
  let sessions = db.deleteFrom('console_sessions').where('user_id', '=', userId);
  if (keepSession) sessions = sessions.where('id', '!=', keepSession);
  await sessions.execute();
}

/**
 * The signed-in person changes their own password: the current one is checked under sign-in's
 * throttle; reset links still out and every other session end (this one stays signed in).
 */
export async function changePassword(
  ctx: AppContext,
  session: { id: string; userId: number },
  input: { current: string; next: string },
  ip: string,
): Promise<void> {
  if (!(await isOwnPassword(ctx, session.userId, input.current, ip))) throw invalid({ current: ['That is not your password'] });
  const weak = passwordProblem(input.next);
  if (weak) throw invalid({ password: [weak] });
  const hash = await hashPassword(input.next);
  await ctx.db.transaction().execute((trx) => storePassword(trx, session.userId, hash, ctx.clock.now(), session.id));
}

/**
 * Checks an email and password, throttled per client address and per email (per minute, shared
 * by every instance). The answer never says whether the email exists: a wrong email and a wrong
 * password get the same message and take the same time.
 */
export async function checkPassword(ctx: AppContext, email: string, password: string, ip: string) {
  await throttlePasswordCheck(ctx, email, ip);
  const user = await findUserByEmail(ctx.db, email);
  const ok = await verifyPassword(password, user?.password_hash ?? null);
  if (!user || !ok) throw new AppError('unauthorized', 'invalid_credentials', 'That email and password do not match.');
  return user;
}

/**
 * Every check of a password, wherever it happens (sign-in, turning off two-step sign-in,
 * accepting an invitation as a known person), counts against the same per-address and
 * per-email budgets: otherwise the one form without a throttle becomes the guessing oracle.
 */
async function throttlePasswordCheck(ctx: AppContext, email: string, ip: string): Promise<void> {
  try {
    await limitAlways(ctx, `signin:ip:${ip}`, SIGN_IN_PER_ADDRESS);
    await limitAlways(ctx, `signin:email:${sha256(normaliseEmail(email))}`, SIGN_IN_PER_EMAIL);
  } catch (err) {
    if (err instanceof AppError && err.kind === 'rate_limited') {
      throw new AppError('rate_limited', 'rate_limited', 'Too many sign-in attempts. Wait a minute, then try again.', {
        extra: err.extra,
      });
    }
    throw err;
  }
}

/** Whether this is the signed-in person's own password, under sign-in's throttle. */
export async function isOwnPassword(ctx: AppContext, userId: number, password: string, ip: string): Promise<boolean> {
  const user = await ctx.db
    .selectFrom('users')
    .select(['email', 'password_hash'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  await throttlePasswordCheck(ctx, user.email, ip);
  return verifyPassword(password, user.password_hash);
}

// ---- Invitations and password resets, by mail through the outbox

export async function invite(
  ctx: AppContext,
  input: { accountId: number; email: string; role: Role; invitedBy: number },
): Promise<void> {
  const fields: Record<string, string[]> = {};
  if (!EMAIL.test(input.email.trim())) fields.email = ['is not an email address'];
  if (!ROLES.includes(input.role)) fields.role = [`must be one of ${ROLES.join(', ')}`];
  if (Object.keys(fields).length) throw invalid(fields);
  const token = randomSecret(32);
  await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('invitations')
      .values({
        account_id: input.accountId,
        email: input.email.trim(),
        role: input.role,
        token_hash: sha256(token),
        invited_by: input.invitedBy,
        expires_at: new Date(ctx.clock.now().getTime() + INVITE_MS),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    // the link's secret travels in the outbox row until the mail is sent (as in any mail queue)
    await enqueue(trx, { accountId: input.accountId, kind: 'mail.invitation', payload: { invitation_id: row.id, token } });
  });
}

export async function findInvitation(ctx: AppContext, token: string) {
  const row = await ctx.db
    .selectFrom('invitations as i')
    .innerJoin('accounts as a', 'a.id', 'i.account_id')
    .select(['i.id', 'i.account_id', 'i.email', 'i.role', 'i.expires_at', 'i.accepted_at', 'a.name as account_name', 'a.slug'])
    .where('i.token_hash', '=', sha256(token))
    .executeTakeFirst();
  if (!row || row.accepted_at || new Date(row.expires_at) <= ctx.clock.now()) return null;
  return row;
}

/** Accepts an invitation: a new person sets a name and password; a known one signs in with theirs. */
export async function acceptInvitation(
  ctx: AppContext,
  token: string,
  input: { name: string; password: string },
  ip: string,
): Promise<number> {
  const inv = await findInvitation(ctx, token);
  if (!inv) throw notFound('This invitation has expired or was already used');
  const existing = await findUserByEmail(ctx.db, inv.email);
  if (existing?.password_hash) {
    await throttlePasswordCheck(ctx, inv.email, ip);
    if (!(await verifyPassword(input.password, existing.password_hash)))
      throw new AppError('unauthorized', 'invalid_credentials', 'You have an account already: enter its password to accept.');
  }
  return ctx.db.transaction().execute(async (trx) => {
    // taken once: two tabs accepting the same link make one membership, the second gets 404
    const taken = await trx
      .updateTable('invitations')
      .set({ accepted_at: ctx.clock.now() })
      .where('id', '=', inv.id)
      .where('accepted_at', 'is', null)
      .executeTakeFirst();
    if (taken.numUpdatedRows === 0n) throw notFound('This invitation has expired or was already used');
    const userId = await addUser(trx, {
      accountId: inv.account_id,
      email: inv.email,
      name: input.name,
      role: inv.role,
      password: existing?.password_hash ? null : input.password,
    });
    if (input.name.trim() && !existing?.name) {
      await trx.updateTable('users').set({ name: input.name.trim() }).where('id', '=', userId).execute();
    }
    return userId;
  });
}

/**
 * How long a reset request takes at least, known email or not (real time, not the app's clock):
 * a known email costs a transaction more (~1.5 ms), which would otherwise tell who has an
 * account. The floor sits far above that work, so both answers leave at the same time.
 */
export const RESET_ANSWER_FLOOR_MS = 200;

/** Mails a reset link when the email belongs to someone; answers the same, at the same time, either way. */
export async function requestPasswordReset(ctx: AppContext, email: string, ip: string): Promise<void> {
  await limitAlways(ctx, `reset:ip:${ip}`, SIGN_IN_PER_ADDRESS);
  await limitAlways(ctx, `reset:email:${sha256(normaliseEmail(email))}`, 3);
  const started = performance.now();
  try {
    const user = await findUserByEmail(ctx.db, email);
    if (!user) return;
    const token = randomSecret(32);
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('password_resets')
        .values({ token_hash: sha256(token), user_id: user.id, expires_at: new Date(ctx.clock.now().getTime() + RESET_MS) })
        .execute();
      await enqueue(trx, { accountId: null, kind: 'mail.password_reset', payload: { user_id: user.id, token } });
    });
  } finally {
    const left = RESET_ANSWER_FLOOR_MS - (performance.now() - started);
    if (left > 0) await new Promise((r) => setTimeout(r, left));
  }
}

export async function resetPassword(ctx: AppContext, token: string, password: string): Promise<void> {
  const weak = passwordProblem(password);
  if (weak) throw invalid({ password: [weak] });
  await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('password_resets')
      .selectAll()
      .where('token_hash', '=', sha256(token))
      .forUpdate()
      .executeTakeFirst();
    if (!row || row.used_at || new Date(row.expires_at) <= ctx.clock.now()) {
      throw notFound('This reset link has expired or was already used; ask for a new one');
    }
    // hashed only once the link is known good: an unknown token costs no scrypt
    await storePassword(trx, row.user_id, await hashPassword(password), ctx.clock.now());
  });
}

export async function resetTokenValid(ctx: AppContext, token: string): Promise<boolean> {
  const row = await ctx.db.selectFrom('password_resets').selectAll().where('token_hash', '=', sha256(token)).executeTakeFirst();
  return Boolean(row && !row.used_at && new Date(row.expires_at) > ctx.clock.now());
}
