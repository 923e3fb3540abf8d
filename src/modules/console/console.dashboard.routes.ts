import type { FastifyInstance } from 'fastify';
import { DASHBOARD_GROUPS, eventDashboard, type DashboardGroup } from '../reports/dashboard.service.ts';
import { CONSOLE_PAGE, principalOfViewer, requireRole, viewerOf } from './console.http.ts';
import { dashboardPage } from './console.dashboard.view.ts';
import { salesReadiness } from './console-events.service.ts';

/** An event's dashboard in the console: for everyone who may read orders (the page: console.dashboard.view.ts). */

export async function consoleDashboardRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  app.get<{ Params: { account: string; event: string }; Querystring: Record<string, string> }>(
    '/console/a/:account/events/:event/dashboard',
    CONSOLE_PAGE,
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.read');
      const by = (DASHBOARD_GROUPS as readonly string[]).includes(request.query.by ?? '')
        ? (request.query.by as DashboardGroup)
        : 'day';
      const d = await eventDashboard(ctx, principalOfViewer(viewer), request.params.event, by);
      const readiness = d.recent.length ? undefined : await salesReadiness(ctx, viewer.account!, request.params.event);
      return reply.type('text/html; charset=utf-8').send(dashboardPage(viewer, d, by, readiness));
    },
  );
}
