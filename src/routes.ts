import type { FastifyInstance } from 'fastify';
import type { AppContext } from './platform/context.ts';
import { guardAccountApi, guardMachineApi } from './platform/http/guards.ts';
import { healthRoutes } from './platform/http/health.ts';
import { metricsRoutes } from './platform/http/metrics.routes.ts';
import { accountsRoutes } from './modules/accounts/accounts.routes.ts';
import { eventsRoutes } from './modules/events/events.routes.ts';
import { discountsRoutes } from './modules/discounts/discounts.routes.ts';
import { tokensRoutes } from './modules/tokens/tokens.routes.ts';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.ts';
import { ordersRoutes } from './modules/orders/orders.routes.ts';
import { paymentsRoutes } from './modules/payments/payments.routes.ts';
import { refundsRoutes } from './modules/refunds/refunds.routes.ts';
import { reportsRoutes } from './modules/reports/reports.routes.ts';
import { checkinRoutes } from './modules/checkin/checkin.routes.ts';
import { themesRoutes } from './modules/themes/themes.routes.ts';
import { pagesRoutes } from './modules/pages/pages.routes.ts';
import { imagesRoutes } from './modules/themes/images.routes.ts';
import { mailViewerRoutes } from './platform/mail/mail-viewer.routes.ts';
import { outboxHandlers } from './outbox-handlers.ts';
import { invoiceDownloadRoutes, invoicesApiRoutes } from './modules/invoices/invoices.routes.ts';
import { consoleRoutes } from './modules/console/console.routes.ts';
import { waitlistRoutes } from './modules/waitlist/waitlist.routes.ts';
import { messagesRoutes } from './modules/messages/messages.routes.ts';

/**
 * The route table: which module serves which part of the URL space, behind which guard. The one
 * place that knows every module's routes; modules and the platform know none of it.
 */
export async function routes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  metricsRoutes(app);
  await app.register(healthRoutes);
  await app.register(mailViewerRoutes, { handlers: outboxHandlers });
  await app.register(imagesRoutes);

  // Machine API (A) under /api/v1: bearer token, then the route's capability
  await app.register(
    async (api) => {
      guardMachineApi(api, ctx);
      await api.register(accountsRoutes);
      await api.register(eventsRoutes);
      await api.register(discountsRoutes);
      await api.register(tokensRoutes);
      await api.register(webhooksRoutes);
      await api.register(ordersRoutes);
      await api.register(paymentsRoutes);
      await api.register(refundsRoutes);
      await api.register(invoicesApiRoutes);
      await api.register(reportsRoutes);
      await api.register(waitlistRoutes);
      await api.register(messagesRoutes);
    },
    { prefix: '/api/v1' },
  );

  // Server-rendered buyer pages (event shop, pay page, order page) and the organiser console
  await app.register(pagesRoutes);
  await app.register(invoiceDownloadRoutes);
  await app.register(consoleRoutes);

  // Account-scoped API (B) under /{account_slug}: any token of that account; others get 404
  await app.register(async (b) => {
    guardAccountApi(b, ctx);
    await b.register(checkinRoutes);
    await b.register(themesRoutes);
  });
}
