import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { Role } from '../../platform/db/schema.ts';
import type { Principal } from '../../platform/http/auth.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { csrfToken, verifyCsrf } from '../../platform/http/csrf.ts';
import { readCookie } from '../../platform/http/cookies.ts';
import { useChosenLanguage } from './console-lang.ts';
import { memberships, roleCan, sessionFor, type Action, type ConsoleSession } from '../users/users.service.ts';

export const SESSION_COOKIE = 'admit_session';

export { readCookie };

/** The session cookie: HttpOnly, SameSite=Lax, Path=/console, Secure when BASE_URL is https. */
export function setSessionCookie(ctx: AppContext, reply: FastifyReply, value: string | null): void {
  const secure = ctx.config.baseUrl.startsWith('https:') ? '; Secure' : '';
  const body = value === null ? `${SESSION_COOKIE}=; Max-Age=0` : `${SESSION_COOKIE}=${value}`;
  void reply.header('set-cookie', `${body}; Path=/console; HttpOnly; SameSite=Lax${secure}`);
}

/** A console page's viewer: the person, and for account pages the account and their role in it. */
export interface Viewer {
  session: ConsoleSession;
  accounts: Array<{ account_id: number; slug: string; name: string; role: Role }>;
  account?: { id: number; slug: string; name: string; role: Role };
  csrf: string;
}

const redirectToSignIn = (request: FastifyRequest) => {
  const next = request.url.startsWith('/console') && request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
  return new AppError('unauthorized', 'sign_in', 'Please sign in', { extra: { location: `/console/sign-in${next}` } });
};

/** The signed-in person (second factor done), or a redirect to the sign-in page. */
export async function viewerOf(ctx: AppContext, request: FastifyRequest, accountSlug?: string): Promise<Viewer> {
  const session = await sessionFor(ctx, readCookie(request, SESSION_COOKIE));
  if (!session || session.pendingTotp) throw redirectToSignIn(request);
  useChosenLanguage(session.language);
  const accounts = await memberships(ctx.db, session.userId);
  const viewer: Viewer = { session, accounts, csrf: await csrfToken(ctx, `console:${session.id}`) };
  // pages outside an account (your sign-in) keep the navigation of a person's only account
  const only = accountSlug === undefined && accounts.length === 1 ? accounts[0] : undefined;
  if (only) viewer.account = { id: only.account_id, slug: only.slug, name: only.name, role: only.role };
  if (accountSlug !== undefined) {
    const m = accounts.find((a) => a.slug === accountSlug);
    // not a member: the account does not exist as far as this person can tell
    if (!m) throw notFound('No such account');
    viewer.account = { id: m.account_id, slug: m.slug, name: m.name, role: m.role };
  }
  return viewer;
}

/** A page or form this role may not use answers 404 (it is not shown either). */
export function requireRole(viewer: Viewer, action: Action): void {
  if (!viewer.account || !roleCan(viewer.account.role, action)) throw notFound('This page does not exist');
}

export function can(viewer: Viewer, action: Action): boolean {
  return Boolean(viewer.account && roleCan(viewer.account.role, action));
}

/** Every console form carries the session's CSRF token (and a same-origin Origin when sent). */
export async function checkForm(ctx: AppContext, request: FastifyRequest, viewer: Viewer): Promise<Record<string, string>> {
  const body = formOf(request);
  await verifyCsrf(ctx, request, `console:${viewer.session.id}`, body.csrf);
  return body;
}

/** Forms without a session (sign-in, reset, invitation) are bound to what they act on. */
export async function checkAnonymousForm(
  ctx: AppContext,
  request: FastifyRequest,
  scope: string,
): Promise<Record<string, string>> {
  const body = formOf(request);
  await verifyCsrf(ctx, request, `console-anon:${scope}`, body.csrf);
  return body;
}

export function anonymousCsrf(ctx: AppContext, scope: string): Promise<string> {
  return csrfToken(ctx, `console-anon:${scope}`);
}

export const tokenScope = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 32);

/** The form body as strings (a repeated field keeps its last value; see formList for lists). */
export function formOf(request: FastifyRequest): Record<string, string> {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) out[k] = Array.isArray(v) ? String(v.at(-1) ?? '') : String(v ?? '');
  return out;
}

export function formList(request: FastifyRequest, name: string): string[] {
  const v = ((request.body ?? {}) as Record<string, unknown>)[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

/** Only local console paths are followed after sign-in (no open redirect). */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/console(\/[\w\-./%?=&]*)?$/.test(next) && !next.startsWith('//') ? next : '/console';
}

/**
 * The console routes' schemas: pages are HTML (hidden from the API document), but every route still
 * bounds what it reads: path segments and query values are strings, form fields strings or lists of
 * strings (a repeated field), with sizes capped.
 */
const pageSchema = {
  hide: true,
  params: { type: 'object', additionalProperties: { type: 'string', maxLength: 300 } },
  querystring: { type: 'object', additionalProperties: { type: 'string', maxLength: 500 } },
  response: {
    '2xx': { type: 'string' },
    303: { type: 'null' },
    '4xx': { type: 'string' },
  },
} as const;

/** A console page (GET). */
export const CONSOLE_PAGE = { config: { html: true }, schema: pageSchema } as const;

/** A console form (POST). */
export const CONSOLE_FORM = {
  config: { html: true },
  schema: {
    ...pageSchema,
    body: {
      type: 'object',
      maxProperties: 100,
      additionalProperties: {
        anyOf: [
          { type: 'string', maxLength: 20_000 },
          { type: 'array', maxItems: 1_000, items: { type: 'string', maxLength: 300 } },
        ],
      },
    },
  },
} as const;

/** The services' view of a signed-in person acting in their account (named by email in order logs). */
export function principalOfViewer(viewer: Viewer): Principal {
  const account = viewer.account;
  if (!account) throw notFound('No such account');
  return {
    tokenId: 0,
    accountId: account.id,
    accountSlug: account.slug,
    capabilities: new Set(),
    scopes: new Set(),
    eventSlugs: null,
    actor: viewer.session.email,
  };
}

/** An HTML page of the console, with its status. */
export const send = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);
/** 303 See Other: a form's answer (post, then redirect). */
export const see = (reply: FastifyReply, location: string) => reply.code(303).header('location', location).send();
