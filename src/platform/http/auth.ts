import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { batcherOf, type Batcher } from '../batch.ts';
import { cacheOf, changeFeedOf, followedCacheOf, perDb, type TtlCache } from '../cache.ts';
import type { Db } from '../db/database.ts';
import { forbidden, notFound, unauthorized } from '../errors.ts';
import { LruCache } from '../lru.ts';

export const CAPABILITIES = [
  'events.view',
  'orders.view',
  'orders.manage',
  'refund',
  'events.manage',
  'tokens.manage',
  'webhooks.manage',
] as const;
export type Capability = (typeof CAPABILITIES)[number];
export const SCOPES = ['invitations.view'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Principal {
  tokenId: number;
  accountId: number;
  accountSlug: string;
  capabilities: ReadonlySet<string>;
  scopes: ReadonlySet<string>;
  /** null: every event of the account */
  eventSlugs: ReadonlySet<string> | null;
  /** who acts, for order activity logs: a console person's email (tokens are named by id) */
  actor?: string;
}

/** How the order activity log names whoever acted: a person's email, or the API token. */
export function actorOf(p: Principal): string {
  return p.actor ?? `API token #${p.tokenId}`;
}

/** `adm_` and 43 URL-safe characters (256 bits). */
export function generateToken(): string {
  return `adm_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

/**
 * Resolves the bearer token to its principal. Tokens are stored as SHA-256 hashes: the lookup
 * is by hash, then the stored hash is compared in constant time before it is trusted.
 *
 * Lookups are cached, keyed by the token itself (so a cached request skips the hash too; the cache
 * lives in this process's memory only, as the request's own header does). A token first seen is
 * looked up through a cache kept `cacheMs` (a few seconds), which also makes concurrent first
 * requests share one lookup. What that lookup found, and every later lookup, is also kept in a
 * followed cache under `<account id>/<token>` (see firstLookup): the change feed forgets it when the
 * account's tokens change (migration 0038), so a revoked token stops working on every instance
 * within about a poll, and a busy integration's token is looked up every few minutes, not every
 * few seconds. Without a live feed the followed cache keeps it `cacheMs` too.
 */
export async function authenticate(db: Db, request: FastifyRequest, cacheMs = 0): Promise<Principal> {
  const header = request.headers.authorization;
  const m = typeof header === 'string' ? BEARER.exec(header.trim()) : null;
  if (!m) throw unauthorized();
  const token = m[1]!;
  if (cacheMs <= 0) return lookupToken(db, hashToken(token));
  const accounts = tokenAccountsOf(db);
  const account = accounts.get(token);
  const followed = followedCacheOf<Principal>(db, 'tokens', cacheMs);
  if (account === undefined) {
    const principal = await cacheOf<Principal>(db, 'tokens', cacheMs).get(token, () => firstLookup(db, token, followed));
    accounts.set(token, principal.accountId, 64 + token.length);
    return stampUse(db, principal);
  }
  // what the first lookup found must not answer again once this one is not the token it was
  const relearn = () => {
    accounts.delete(token);
    cacheOf<Principal>(db, 'tokens', cacheMs).delete(token);
  };
  let principal: Principal;
  try {
    principal = await followed.get(`${account}/${token}`, () => lookupToken(db, hashToken(token)));
  } catch (err) {
    relearn();
    throw err;
  }
  if (principal.accountId !== account) {
    // the token is another account's now (an account imported again): kept under the wrong
    // account, a revoke would not reach it, so that entry goes and the next request learns anew
    followed.forget(new Set([`${account}/`]));
    relearn();
  }
  return stampUse(db, principal);
}

/**
 * A token's first lookup in this process, before its account is known. Kept in the followed cache
 * too, under its account, unless the feed forgot something while it ran: the lookup may have read
 * the token before a revoke whose forget has already passed, and would then answer for minutes.
 * Otherwise the feed forgets it like any followed entry, as it would had the followed cache loaded
 * it. Shared by concurrent first requests, so it is decided once, when the lookup ends.
 */
async function firstLookup(db: Db, token: string, followed: TtlCache<Principal>): Promise<Principal> {
  const feed = changeFeedOf(db);
  const forgets = feed.forgets;
  const principal = await lookupToken(db, hashToken(token));
  if (feed.forgets === forgets) followed.put(`${principal.accountId}/${token}`, principal);
  return principal;
}

/** Which account each token seen by this process belongs to, most recent first (checked on every lookup). */
const tokenAccounts = new WeakMap<Db, LruCache<string, number>>();
function tokenAccountsOf(db: Db): LruCache<string, number> {
  return perDb(tokenAccounts, db, () => new LruCache<string, number>(2 * 1024 * 1024));
}

/** When each cached principal's token was last stamped as used (`last_used_at`, to the minute). */
const stamped = new WeakMap<Principal, number>();
const STAMP_MS = 60_000;

/**
 * Stamps the token's `last_used_at` when it is older than a minute; never awaited. Stamps asked
 * for while others are written go together in one statement (a Batcher): an instance meeting a
 * thousand integrations in its first seconds wrote a thousand one-row transactions, each a commit
 * and a connection of the pool, among the orders it was taking.
 */
function stampUse(db: Db, principal: Principal): Principal {
  const now = Date.now();
  if (now - (stamped.get(principal) ?? 0) <= STAMP_MS) return principal;
  stamped.set(principal, now);
  batcherOf(stampBatchers, db, stampTokens)
    .load(principal.tokenId)
    .catch(() => undefined);
  return principal;
}

const stampBatchers = new WeakMap<Db, Batcher<number, undefined>>();

async function stampTokens(db: Db, ids: number[]): Promise<undefined[]> {
  await db
    .updateTable('api_tokens')
    .set({ last_used_at: sql`now()` })
    .where('id', '=', sql<number>`any(${sql.val([...new Set(ids)])}::bigint[])`)
    .execute();
  return ids.map(() => undefined);
}

async function lookupToken(db: Db, hash: string): Promise<Principal> {
  const row = await batcherOf(tokenBatchers, db, tokenRows).load(hash);
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(hash, 'hex'))) {
    throw unauthorized('The bearer token is not valid');
  }
  const principal: Principal = {
    tokenId: row.id,
    accountId: row.account_id,
    accountSlug: row.slug,
    capabilities: new Set(row.capabilities),
    scopes: new Set(row.scopes),
    eventSlugs: row.event_slugs ? new Set(row.event_slugs) : null,
  };
  if (row.last_used_at) stamped.set(principal, new Date(row.last_used_at).getTime());
  return stampUse(db, principal);
}

type TokenRow = Awaited<ReturnType<typeof tokenQuery>>[number];

function tokenQuery(db: Db, hashes: string[]) {
  return db
    .selectFrom('api_tokens as t')
    .innerJoin('accounts as a', 'a.id', 't.account_id')
    .select(['t.id', 't.account_id', 't.token_hash', 't.capabilities', 't.scopes', 't.event_slugs', 't.last_used_at', 'a.slug'])
    .where('t.token_hash', 'in', hashes)
    .execute();
}

/** Tokens by hash, one row or undefined per hash in order: concurrent first lookups read together. */
async function tokenRows(db: Db, hashes: string[]): Promise<Array<TokenRow | undefined>> {
  const rows = await tokenQuery(db, [...new Set(hashes)]);
  const byHash = new Map(rows.map((r) => [r.token_hash, r]));
  return hashes.map((h) => byHash.get(h));
}
const tokenBatchers = new WeakMap<Db, Batcher<string, TokenRow | undefined>>();

export function requireCapability(p: Principal, cap: Capability): void {
  if (!p.capabilities.has(cap)) throw forbidden(`This token lacks the ${cap} capability`);
}

export function canSeeEvent(p: Principal, slug: string): boolean {
  return p.eventSlugs === null || p.eventSlugs.has(slug);
}

/** An event-limited token gets 404 for events outside its list, exactly like an unknown slug. */
export function assertEventVisible(p: Principal, slug: string): void {
  if (!canSeeEvent(p, slug)) throw notFound('No such event');
}

export function requireAllEvents(p: Principal): void {
  if (p.eventSlugs !== null) throw forbidden('This needs a token with access to all events');
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Machine API: the capability this route needs (spec section 5). */
    capability?: Capability;
    /** Machine API: the route acts on the whole account, so an event-limited token gets 403. */
    allEvents?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** The authenticated principal of a request that passed one of the guards below. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is missing the auth hook');
  return request.principal;
}
