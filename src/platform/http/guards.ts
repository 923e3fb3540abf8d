import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { authenticate, requireAllEvents, requireCapability } from './auth.ts';
import { rateLimit } from './rate-limit.ts';

/**
 * The machine API's guard (API A, under /api/v1): bearer token, rate limit, then the route's
 * capability and, for account-wide routes, access to every event. Registered on the plugin that
 * holds the machine API's routes.
 */
export function guardMachineApi(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onRequest', async (request) => {
    const principal = await authenticate(ctx.db, request, ctx.config.tokenCacheMs);
    await rateLimit(ctx, request, principal);
    const cap = request.routeOptions.config.capability;
    if (cap) requireCapability(principal, cap);
    if (request.routeOptions.config.allEvents) requireAllEvents(principal);
    request.principal = principal;
  });
}

/** The account-scoped API's guard (API B, under /{account_slug}): any token of that account; others get 404. */
export function guardAccountApi(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onRequest', async (request) => {
    const principal = await authenticate(ctx.db, request, ctx.config.tokenCacheMs);
    await rateLimit(ctx, request, principal);
    const { account } = request.params as { account?: string };
    if (account !== principal.accountSlug) throw notFound('No such account');
    request.principal = principal;
  });
}
