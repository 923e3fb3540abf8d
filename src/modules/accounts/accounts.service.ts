import type { AppContext } from '../../platform/context.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { createToken as createTokenFor } from '../tokens/tokens.service.ts';
import { findAccountById, findAccountBySlug } from './accounts.repo.ts';

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

/** The account a public path names, or undefined. */
export function findAccount(ctx: AppContext, slug: string) {
  return findAccountBySlug(ctx.db, slug);
}

export interface CreateTokenInput {
  account: string;
  name: string;
  capabilities: string[];
  scopes: string[];
  events: string[];
}

/** Issues a token (the CLI: it may grant anything) and returns its secret, shown this once. */
export async function createToken(ctx: AppContext, input: CreateTokenInput): Promise<string> {
  const account = await findAccountBySlug(ctx.db, input.account);
  if (!account) throw new AppError('not_found', 'not_found', `No account with slug "${input.account}"`);
  const made = await createTokenFor(
    ctx,
    account.id,
    { capabilities: 'all', scopes: 'all', events: null },
    {
      name: input.name,
      capabilities: input.capabilities,
      scopes: input.scopes,
      events: input.events.length ? input.events : null,
    },
  );
  return made.secret;
}
