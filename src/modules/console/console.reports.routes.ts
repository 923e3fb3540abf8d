import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import type { ReportQuery } from '../reports/orders-report.service.ts';
import {
  deleteSavedReport,
  getIncome,
  getOrdersReport,
  getSavedReports,
  reportQueryString,
  saveReport,
} from '../reports/reports.service.ts';
import { checkForm, principalOfViewer, requireRole, viewerOf, type Viewer, CONSOLE_FORM, CONSOLE_PAGE } from './console.http.ts';
import { send, see } from './console.http.ts';
import { flashOf, type FieldErrors, type Flash } from './console-layout.view.ts';
import { eventBase } from './console.order-desk.view.ts';
import { incomePage, ordersReportPage } from './console.reports.view.ts';
import { vatOnInvoices } from '../invoices/invoices.service.ts';
import { t } from './console-lang.ts';
import { eventHasOrders, salesReadiness } from './console-events.service.ts';

/**
 * Reports in the console: the income report with its month table and the orders report
 * with every grouping, range and filter of spec 4.1, and the event's saved reports. The same
 * report services as the API; the forms are GET forms, so a report is a link that can be shared.
 */

type P = { account: string; event: string };

export async function consoleReportsRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  /** For an event without any order: what it lacks before its first (the reports say it first). */
  const ifNoOrders = async (viewer: Viewer, slug: string) =>
    (await eventHasOrders(ctx, viewer.account!.id, slug)) ? undefined : salesReadiness(ctx, viewer.account!, slug);

  // ---- income: figures, and the month table
  app.get<{ Params: P; Querystring: Record<string, string> }>(
    '/console/a/:account/events/:event/reports',
    CONSOLE_PAGE,
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.read');
      const r = await getIncome(ctx, principalOfViewer(viewer), request.params.event, request.query as ReportQuery);
      const vat = await vatOnInvoices(ctx.db, viewer.account!.id, request.params.event);
      return send(
        reply,
        incomePage(viewer, request.params.event, request.query, r, vat, await ifNoOrders(viewer, request.params.event)),
      );
    },
  );

  // ---- the orders report, and saved reports
  const showOrdersReport = async (
    request: FastifyRequest<{ Params: P; Querystring: Record<string, string> }>,
    reply: FastifyReply,
    viewer: Viewer,
    opts: { flash?: Flash | null; errors?: FieldErrors; name?: string; status?: number } = {},
  ) => {
    const p = principalOfViewer(viewer);
    const q = request.query as ReportQuery;
    const [report, saved, readiness] = await Promise.all([
      getOrdersReport(ctx, p, request.params.event, q),
      getSavedReports(ctx, p, request.params.event),
      ifNoOrders(viewer, request.params.event),
    ]);
    const page = ordersReportPage({
      viewer,
      event: request.params.event,
      query: request.query,
      report,
      saved,
      savedQuery: reportQueryString(q),
      flash: opts.flash ?? flashOf(request.query),
      errors: opts.errors,
      name: opts.name,
      readiness,
    });
    return send(reply, page, opts.status ?? 200);
  };

  app.get<{ Params: P; Querystring: Record<string, string> }>(
    '/console/a/:account/events/:event/reports/orders',
    CONSOLE_PAGE,
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.read');
      return showOrdersReport(request, reply, viewer);
    },
  );

  app.post<{ Params: P; Querystring: Record<string, string> }>(
    '/console/a/:account/events/:event/reports/saved',
    CONSOLE_FORM,
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'events.write');
      const form = await checkForm(ctx, request, viewer);
      const query = Object.fromEntries(new URLSearchParams(form.query ?? '')) as ReportQuery;
      const base = eventBase(viewer, request.params.event);
      try {
        await saveReport(ctx, principalOfViewer(viewer), request.params.event, form.name ?? '', query);
      } catch (err) {
        if (!(err instanceof AppError) || !err.fields) throw err;
        (request as { query: unknown }).query = query;
        return showOrdersReport(request, reply, viewer, {
          flash: { kind: 'bad', text: t().rpNotSaved },
          errors: err.fields,
          name: form.name,
          status: 422,
        });
      }
      const qs = reportQueryString(query);
      return see(reply, `${base}/reports/orders?${qs ? `${qs}&` : ''}done=saved`);
    },
  );

  app.post<{ Params: P & { id: string } }>(
    '/console/a/:account/events/:event/reports/saved/:id/delete',
    CONSOLE_FORM,
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'events.write');
      await checkForm(ctx, request, viewer);
      const id = /^[1-9]\d{0,15}$/.test(request.params.id) ? Number(request.params.id) : 0;
      await deleteSavedReport(ctx, principalOfViewer(viewer), request.params.event, id);
      return see(reply, `${eventBase(viewer, request.params.event)}/reports/orders?done=report-deleted`);
    },
  );
}
