import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { orderDeskDetail, orderOnDesk } from '../orders/order-desk.service.ts';
import { patchBuyer } from '../orders/orders.service.ts';
import { resendOrderMail } from '../orders/resend.service.ts';
import { cancelOrder } from '../payments/cancel-order.service.ts';
import { refundOrder } from '../refunds/refund-order.service.ts';
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
import { eventBase, orderDeskPage, orderDoneFlash, refundConfirmPage, type OrderPageOptions } from './console.order-desk.view.ts';

/**
 * One order on the orders desk: everything that happened to it, and what the person's role lets
 * them do about it. The actions call the same services as the API, acting as the signed-in person.
 */

type PO = { account: string; event: string; ref: string };

export async function consoleOrderDeskRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  const orderPage = async (
    request: FastifyRequest<{ Params: PO }>,
    reply: FastifyReply,
    viewer: Viewer,
    opts: OrderPageOptions & { status?: number } = {},
  ) => {
    const d = await orderOnDesk(ctx, principalOfViewer(viewer), request.params.event, request.params.ref);
    const { status, ...shown } = opts;
    return send(reply, orderDeskPage(viewer, d, shown), status ?? 200);
  };

  app.get<{ Params: PO }>('/console/a/:account/events/:event/orders/:ref', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.read');
    return orderPage(request, reply, viewer, { flash: orderDoneFlash((request.query as Record<string, string>).done) });
  });

  /** An action's form: the person may write orders, the CSRF token holds; a refusal shows on the order page. */
  const action = (
    path: string,
    run: (request: FastifyRequest<{ Params: PO }>, viewer: Viewer, form: Record<string, string>) => Promise<string>,
  ) =>
    app.post<{ Params: PO }>(`/console/a/:account/events/:event/orders/:ref/${path}`, CONSOLE_FORM, async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.write');
      const form = await checkForm(ctx, request, viewer);
      // the order must be this event's (404 otherwise), whatever the action
      await orderDeskDetail(ctx, principalOfViewer(viewer), request.params.event, request.params.ref);
      try {
        const done = await run(request, viewer, form);
        return see(
          reply,
          `${eventBase(viewer, request.params.event)}/orders/${encodeURIComponent(request.params.ref)}?done=${done}`,
        );
      } catch (err) {
        if (!(err instanceof AppError) || err.kind === 'internal' || err.kind === 'not_found') throw err;
        return orderPage(request, reply, viewer, {
          flash: { kind: 'bad', text: err.message },
          errors: err.fields,
          buyer: path === 'buyer' ? { name: form.name ?? '', email: form.email ?? '' } : undefined,
          status: err.kind === 'upstream' ? 502 : err.kind === 'conflict' ? 409 : 422,
        });
      }
    });

  action('buyer', async (request, viewer, form) => {
    await patchBuyer(ctx, principalOfViewer(viewer), request.params.ref, {
      name: form.name ?? '',
      email: form.email ?? '',
      revoke_link: form.revoke_link === '1',
    });
    return 'buyer';
  });
  action('resend', async (request, viewer) => {
    const r = await resendOrderMail(ctx, viewer.account!.id, request.params.ref, () => true, viewer.session.email);
    return r.sent === 'tickets' ? 'resent-tickets' : 'resent-link';
  });
  action('cancel', async (request, viewer) => {
    await cancelOrder(ctx, principalOfViewer(viewer), request.params.ref);
    return 'canceled';
  });

  // ---- refund: a confirmation page first (money moves), then the refund, idempotent against double clicks
  app.get<{ Params: PO }>('/console/a/:account/events/:event/orders/:ref/refund', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.write');
    const { order, payments } = await orderDeskDetail(ctx, principalOfViewer(viewer), request.params.event, request.params.ref);
    return send(reply, refundConfirmPage(viewer, request.params.event, order, payments));
  });
  action('refund', async (request, viewer) => {
    const p = principalOfViewer(viewer);
    const d = await orderDeskDetail(ctx, p, request.params.event, request.params.ref);
    const result = await refundOrder(ctx, {
      id: d.order.id,
      account_id: d.order.account_id,
      ref: d.order.ref,
      by: viewer.session.email,
    });
    return 'already' in result ? 'already-refunded' : 'refunded';
  });
}
