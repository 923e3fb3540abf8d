import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, requireAllEvents, requireCapability, type Capability, type Principal } from './auth.ts';
import { notFound } from '../errors.ts';
import { accountsRoutes } from '../../modules/accounts/accounts.routes.ts';
import { eventsRoutes } from '../../modules/events/events.routes.ts';
import { discountsRoutes } from '../../modules/discounts/discounts.routes.ts';
import { tokensRoutes } from '../../modules/tokens/tokens.routes.ts';
import { webhooksRoutes } from '../../modules/webhooks/webhooks.routes.ts';
import { ordersRoutes } from '../../modules/orders/orders.routes.ts';
import { refundsRoutes } from '../../modules/refunds/refunds.routes.ts';
import { reportsRoutes } from '../../modules/reports/reports.routes.ts';
import { checkinRoutes } from '../../modules/checkin/checkin.routes.ts';
import { themesRoutes } from '../../modules/themes/themes.routes.ts';
import { pagesRoutes } from '../../modules/pages/pages.routes.ts';
import { healthRoutes } from './health.ts';
import { imagesRoutes } from '../../modules/themes/images.routes.ts';
import { mailViewerRoutes } from '../../modules/pages/mail-viewer.routes.ts';
import { consoleRoutes } from '../../modules/console/console.routes.ts';
import { rateLimit } from './rate-limit.ts';

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

/** The authenticated principal of a request that passed the auth hook. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is missing the auth hook');
  return request.principal;
}

/** Machine API (A) under /api/v1: bearer token, then the route's capability. */
export async function machineApi(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async (request) => {
    const principal = await authenticate(app.ctx.db, request, app.ctx.config.tokenCacheMs);
    await rateLimit(app.ctx, request, principal);
    const cap = request.routeOptions.config.capability;
    if (cap) requireCapability(principal, cap);
    if (request.routeOptions.config.allEvents) requireAllEvents(principal);
    request.principal = principal;
  });
  await app.register(accountsRoutes);
  await app.register(eventsRoutes);
  await app.register(discountsRoutes);
  await app.register(tokensRoutes);
  await app.register(webhooksRoutes);
  await app.register(ordersRoutes);
  await app.register(refundsRoutes);
  await app.register(reportsRoutes);
}

/** Account-scoped API (B) under /{account_slug}: any token of that account; others get 404. */
export async function accountApi(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async (request) => {
    const principal = await authenticate(app.ctx.db, request, app.ctx.config.tokenCacheMs);
    await rateLimit(app.ctx, request, principal);
    const { account } = request.params as { account?: string };
    if (account !== principal.accountSlug) throw notFound('No such account');
    request.principal = principal;
  });
  await app.register(checkinRoutes);
  await app.register(themesRoutes);
}

/** Server-rendered buyer pages: event shop, pay page, order page. */
export async function buyerPages(app: FastifyInstance): Promise<void> {
  await app.register(pagesRoutes);
}

/** The organiser console: sessions by cookie, roles per account (modules/console). */
export async function consolePages(app: FastifyInstance): Promise<void> {
  await app.register(consoleRoutes);
}

export async function publicRoutes(app: FastifyInstance): Promise<void> {
  await app.register(healthRoutes);
  await app.register(mailViewerRoutes);
  await app.register(imagesRoutes);
}
