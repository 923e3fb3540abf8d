import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { t } from './console-lang.ts';
import { plainMessage } from './plain-words.ts';
import { AppError } from '../../platform/errors.ts';
import { randomSecret } from '../../platform/secrets.ts';
import { isFiltered, orderDeskEvent, orderDeskList, parseOrderFilter } from '../orders/order-desk.service.ts';
import { salesReadiness } from './console-events.service.ts';
import { csvKindOf, exportOrdersCsv } from '../orders/orders-csv.service.ts';
import { createCompOrder } from '../orders/orders.service.ts';
import {
  checkForm,
  principalOfViewer,
  requireRole,
  send,
  see,
  viewerOf,
  type Viewer,
  CONSOLE_FORM,
  CONSOLE_PAGE,
} from './console.http.ts';
import type { FieldErrors, Flash } from './console-layout.view.ts';
import { eventBase } from './console.order-desk.view.ts';
import { compOrderPage, ordersListPage } from './console.orders.view.ts';

/**
 * The orders desk's list: find an event's orders (search, filters, keyset pages), export them as
 * CSV, and issue a complimentary order. One order's page and its actions are in
 * console.order-desk.routes.ts.
 */

type P = { account: string; event: string };

const PER_PAGE = 50;

export async function consoleOrdersRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  // ---- the list: search, filters, keyset pages
  app.get<{ Params: P; Querystring: Record<string, string> }>(
    '/console/a/:account/events/:event/orders',
    CONSOLE_PAGE,
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.read');
      const list = await orderDeskList(
        ctx,
        principalOfViewer(viewer),
        request.params.event,
        request.query,
        request.query.after || undefined,
        PER_PAGE,
      );
      const failed = Object.keys(list.errors).length > 0;
      // an event without orders says what it still needs before its first one
      const readiness =
        !list.orders.length && !failed && !isFiltered(list.filter) && !request.query.after
          ? await salesReadiness(ctx, viewer.account!, request.params.event)
          : undefined;
      return send(reply, ordersListPage(viewer, list, request.query, readiness), failed ? 422 : 200);
    },
  );

  // ---- the same set as CSV, with the session
  app.get<{ Params: P; Querystring: Record<string, string> }>(
    '/console/a/:account/events/:event/orders.csv',
    { schema: { hide: true, querystring: CONSOLE_PAGE.schema.querystring } },
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.read');
      const filter = parseOrderFilter(request.query);
      const kind = csvKindOf(request.query.kind);
      const { filename, stream } = await exportOrdersCsv(ctx, principalOfViewer(viewer), request.params.event, kind, filter);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );

  // ---- a complimentary order: tickets at no charge, with a reason; one order however often the form is sent
  const compForm = async (
    request: FastifyRequest<{ Params: P }>,
    reply: FastifyReply,
    viewer: Viewer,
    opts: { form?: Record<string, string>; errors?: FieldErrors; flash?: Flash; status?: number } = {},
  ) => {
    const desk = await orderDeskEvent(ctx, principalOfViewer(viewer), request.params.event);
    const { status, ...shown } = opts;
    return send(reply, compOrderPage(viewer, desk, { ...shown, nonce: randomSecret(16) }), status ?? 200);
  };

  app.get<{ Params: P }>('/console/a/:account/events/:event/orders/new', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.write');
    return compForm(request, reply, viewer);
  });

  app.post<{ Params: P }>('/console/a/:account/events/:event/orders/new', CONSOLE_FORM, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.write');
    const form = await checkForm(ctx, request, viewer);
    const items = Object.entries(form)
      .filter(([k]) => /^qty_\d{1,15}$/.test(k))
      .map(([k, v]) => ({ ticket_type_id: Number(k.slice(4)), quantity: /^\d{1,3}$/.test(v.trim()) ? Number(v.trim()) : -1 }));
    try {
      const { ref } = await createCompOrder(ctx, principalOfViewer(viewer), request.params.event, {
        items,
        name: form.name ?? '',
        email: form.email ?? '',
        reason: form.reason ?? '',
        nonce: `${viewer.account!.id}:${(form.nonce ?? '').slice(0, 64) || randomSecret(16)}`,
      });
      return see(reply, `${eventBase(viewer, request.params.event)}/orders/${encodeURIComponent(ref)}?done=comp`);
    } catch (err) {
      if (!(err instanceof AppError) || err.kind === 'internal' || err.kind === 'not_found') throw err;
      return compForm(request, reply, viewer, {
        form,
        errors: err.fields ?? {},
        flash: { kind: 'bad', text: err.fields ? t().notIssued : plainMessage(err.message) },
        status: err.kind === 'conflict' ? 409 : 422,
      });
    }
  });
}
