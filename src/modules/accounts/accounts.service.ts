import type { AppContext } from '../../platform/context.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { CAPABILITIES, SCOPES, generateToken, hashToken } from '../../platform/http/auth.ts';
import { findAccountById, findAccountBySlug, insertToken } from './accounts.repo.ts';

export interface AccountView {
  slug: string;
  name: string;
  region?: string;
}

export async function getAccount(ctx: AppContext, accountId: number): Promise<AccountView> {
  const a = await findAccountById(ctx.db, accountId);
  if (!a) throw notFound('No such account');
  return { slug: a.slug, name: a.name, ...(a.region ? { region: a.region } : {}) };
}

export interface CreateTokenInput {
  account: string;
  name: string;
  capabilities: string[];
  scopes: string[];
  events: string[];
}

/** Issues a token and returns its secret; only the hash is stored, so this is the one sighting. */
export async function createToken(ctx: AppContext, input: CreateTokenInput): Promise<string> {
  const account = await findAccountBySlug(ctx.db, input.account);
  if (!account) throw new AppError('not_found', 'not_found', `No account with slug "${input.account}"`);
  for (const c of input.capabilities) {
    if (!(CAPABILITIES as readonly string[]).includes(c)) {
      throw new AppError('bad_request', 'bad_request', `Unknown capability "${c}" (known: ${CAPABILITIES.join(', ')})`);
    }
  }
  for (const s of input.scopes) {
    if (!(SCOPES as readonly string[]).includes(s)) {
      throw new AppError('bad_request', 'bad_request', `Unknown scope "${s}" (known: ${SCOPES.join(', ')})`);
    }
  }
  if (!input.name.trim()) throw new AppError('bad_request', 'bad_request', 'A token needs a name');
  const secret = generateToken();
  await insertToken(ctx.db, {
    accountId: account.id,
    name: input.name,
    hash: hashToken(secret),
    capabilities: [...new Set(input.capabilities)],
    scopes: [...new Set(input.scopes)],
    eventSlugs: input.events.length ? [...new Set(input.events)] : null,
  });
  return secret;
}
