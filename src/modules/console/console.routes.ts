import type { FastifyInstance } from 'fastify';
import { consoleAuthRoutes } from './console.auth.routes.ts';
import { consoleAssetRoutes } from './console.assets.ts';
import { consoleDoorRoutes } from './console.door.routes.ts';
import { consoleOrdersRoutes } from './console.orders.routes.ts';
import { consoleOrderDeskRoutes } from './console.order-desk.routes.ts';
import { consoleDashboardRoutes } from './console.dashboard.routes.ts';
import { consoleReportsRoutes } from './console.reports.routes.ts';
import { consoleEventsRoutes } from './console.events.routes.ts';
import { consoleLifecycleRoutes } from './console.lifecycle.routes.ts';
import { consoleCatalogueRoutes } from './console.catalogue.routes.ts';
import { consoleCodesRoutes } from './console.codes.routes.ts';
import { consoleTeamRoutes } from './console.team.routes.ts';
import { consoleWebhooksRoutes } from './console.webhooks.routes.ts';
import { consoleWaitlistRoutes } from './console.waitlist.routes.ts';
import { consoleMessagesRoutes } from './console.messages.routes.ts';
import { consoleSeatingRoutes } from './console.seating.routes.ts';
import { consoleInvoicesRoutes } from './console.invoices.routes.ts';
import { consoleWalletRoutes } from './console.wallet.routes.ts';
import { speakConsoleLanguages } from './console-lang.ts';

/** The organiser console under /console (contract section 7): server-rendered pages over the same services as the API. */
export async function consoleRoutes(app: FastifyInstance): Promise<void> {
  // before any route: each handler answers in its request's language
  speakConsoleLanguages(app);
  // Console pages show keys, orders and people: no browser or proxy keeps a copy. Assets say
  // their own caching.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
  await app.register(consoleAuthRoutes);
  await app.register(consoleEventsRoutes);
  await app.register(consoleLifecycleRoutes);
  await app.register(consoleCatalogueRoutes);
  await app.register(consoleCodesRoutes);
  await app.register(consoleTeamRoutes);
  await app.register(consoleWebhooksRoutes);
  await app.register(consoleInvoicesRoutes);
  await app.register(consoleWalletRoutes);
  await app.register(consoleOrdersRoutes);
  await app.register(consoleOrderDeskRoutes);
  await app.register(consoleDashboardRoutes);
  await app.register(consoleReportsRoutes);
  await app.register(consoleWaitlistRoutes);
  await app.register(consoleMessagesRoutes);
  await app.register(consoleSeatingRoutes);
  await app.register(consoleDoorRoutes);
  await app.register(consoleAssetRoutes);
}
