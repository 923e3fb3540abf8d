import { cacheOf, forgetAccounts } from '../../platform/cache.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError, forbidden, notFound } from '../../platform/errors.ts';
import { CAPABILITIES, SCOPES, generateToken, hashToken } from '../../platform/http/auth.ts';
import { iso } from '../../platform/time.ts';
import { deleteToken, insertToken, TOKEN_COLUMNS } from './tokens.repo.ts';

/** An API token as the management API and the console show it: never its secret. */
export interface TokenView {
  id: number;
  name: string;
  capabilities: string[];
  scopes: string[];
  /** null: every event of the account */
  events: string[] | null;
  created_at: string;
  last_used_at: string | null;
}

export interface TokenGrant {
  name: string;
  capabilities: string[];
  scopes?: string[];
  events?: string[] | null;
}

/** What the granting party holds: a token (its grants), or a person whose role allows everything. */
export interface Grantor {
  capabilities: ReadonlySet<string> | 'all';
  scopes: ReadonlySet<string> | 'all';
  /** null: every event */
  events: ReadonlySet<string> | null;
}

type Row = {
  id: number;
  name: string;
  capabilities: string[];
  scopes: string[];
  event_slugs: string[] | null;
  created_at: Date | string;
  last_used_at: Date | string | null;
};

function present(r: Row): TokenView {
  return {
    id: Number(r.id),
    name: r.name,
    capabilities: r.capabilities,
    scopes: r.scopes,
    events: r.event_slugs,
    created_at: iso(r.created_at)!,
    last_used_at: iso(r.last_used_at),
  };
}

/**
 * The account's tokens; for a reader limited to some events (`within`), only tokens limited to
 * those events: the others would name events the reader may not know exist.
 */
export async function listTokens(db: Db, accountId: number, within: ReadonlySet<string> | null = null): Promise<TokenView[]> {
  const rows = await db
    .selectFrom('api_tokens')
    .select(TOKEN_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows
    .filter((r) => within === null || (r.event_slugs !== null && r.event_slugs.every((e) => within.has(e))))
    .map(present);
}

const failed = (fields: Record<string, string[]>) =>
  new AppError(
    'unprocessable',
    'validation_failed',
    `Invalid token: ${Object.entries(fields)
      .map(([k, v]) => `${k} ${v.join(', ')}`)
      .join('; ')}`,
    { fields },
  );

/** What a token of these grants holds that the grantor does not (empty: the grantor covers it). */
function notHeld(
  grantor: Grantor,
  capabilities: readonly string[],
  scopes: readonly string[],
  events: readonly string[] | null,
): string[] {
  const more: string[] = [];
  if (grantor.capabilities !== 'all')
    more.push(...capabilities.filter((c) => !(grantor.capabilities as ReadonlySet<string>).has(c)));
  if (grantor.scopes !== 'all') more.push(...scopes.filter((s) => !(grantor.scopes as ReadonlySet<string>).has(s)));
  if (grantor.events !== null) {
    if (events === null) more.push('every event');
    else more.push(...events.filter((e) => !grantor.events!.has(e)).map((e) => `event ${e}`));
  }
  return more;
}

/**
 * Issues a token that grants at most what the grantor holds (capabilities, scopes and events);
 * asking for more is 403. Returns the view and the secret, which is shown this once only.
 */
export async function createToken(
  ctx: AppContext,
  accountId: number,
  grantor: Grantor,
  grant: TokenGrant,
): Promise<{ token: TokenView; secret: string }> {
  const capabilities = [...new Set(grant.capabilities)];
  const scopes = [...new Set(grant.scopes ?? [])];
  const events = grant.events === undefined || grant.events === null ? null : [...new Set(grant.events)];
  const fields: Record<string, string[]> = {};
  capabilities.forEach((c, i) => {
    if (!(CAPABILITIES as readonly string[]).includes(c))
      fields[`capabilities.${i}`] = [`unknown capability "${c}" (known: ${CAPABILITIES.join(', ')})`];
  });
  scopes.forEach((s, i) => {
    if (!(SCOPES as readonly string[]).includes(s))
      fields[`scopes.${i}`] = [`unknown scope "${s}" (known: ${SCOPES.join(', ')})`];
  });
  if (!grant.name.trim()) fields.name = ['must not be empty'];
  if (events) {
    const known = new Set(
      (await ctx.db.selectFrom('events').select('slug').where('account_id', '=', accountId).execute()).map((e) => e.slug),
    );
    events.forEach((slug, i) => {
      if (!known.has(slug)) fields[`events.${i}`] = [`no event "${slug}" in this account`];
    });
  }
  if (Object.keys(fields).length) throw failed(fields);

  const more = notHeld(grantor, capabilities, scopes, events);
  if (more.length) throw forbidden(`A token can only grant what its maker holds; not held: ${more.join(', ')}`);

  const secret = generateToken();
  const row = await insertToken(ctx.db, {
    account_id: accountId,
    name: grant.name.trim(),
    token_hash: hashToken(secret),
    capabilities,
    scopes,
    event_slugs: events,
  });
  return { token: present(row), secret };
}

/**
 * Revokes a token of this account, if the revoker holds everything that token holds (the same
 * rule as for minting: a weaker token cannot take a stronger one away; 403 otherwise). This
 * instance forgets it at once; other instances when their change feed sees the delete (about a
 * quarter of a second), or after `tokenCacheMs` (5 s by default) while their feed is not live.
 */
export async function revokeToken(ctx: AppContext, accountId: number, revoker: Grantor, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('api_tokens')
      .select(['capabilities', 'scopes', 'event_slugs'])
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw notFound(`No token ${id} in this account`);
    const more = notHeld(revoker, row.capabilities, row.scopes, row.event_slugs);
    if (more.length) throw forbidden(`A token can only revoke what its revoker holds; not held: ${more.join(', ')}`);
    await deleteToken(trx, accountId, id);
  });
  cacheOf(ctx.db, 'tokens', ctx.config.tokenCacheMs).clear();
  forgetAccounts(ctx.db, [accountId]);
}
