import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { t } from './console-lang.ts';
import { plainMessage } from './plain-words.ts';
import { AppError } from '../../platform/errors.ts';
import { canRefund, findOrdersAcrossEvents, orderDeskDetail, orderOnDesk } from '../orders/order-desk.service.ts';
import { patchBuyer } from '../orders/orders.service.ts';
import { renameAttendee, transferTicket } from '../orders/attendees.service.ts';
import { resendOrderMail } from '../orders/resend.service.ts';
import { cancelOrder } from '../payments/cancel-order.service.ts';
import { refundOrder } from '../refunds/refund-order.service.ts';
import {
  checkForm,
  formList,
  principalOfViewer,
  requireRole,
  send,
  see,
  viewerOf,
  type Viewer,
  CONSOLE_FORM,
  CONSOLE_PAGE,
} from './console.http.ts';
import { eventBase, orderDeskPage, orderDoneFlash, type OrderPageOptions } from './console.order-desk.view.ts';
import { refundPage } from './console.refund.view.ts';
import { orderSearchPage } from './console.order-search.view.ts';
import { readRefundForm } from './refund-form.ts';
import type { Flash } from './console-layout.view.ts';
import { randomSecret } from '../../platform/secrets.ts';

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

  // the header's search: the account's orders across its events
  app.get<{ Params: { account: string } }>('/console/a/:account/orders', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.read');
    const q = String((request.query as Record<string, string>).q ?? '');
    const found = q.trim() ? await findOrdersAcrossEvents(ctx, principalOfViewer(viewer), q) : [];
    return send(reply, orderSearchPage(viewer, q, found));
  });

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
          flash: { kind: 'bad', text: plainMessage(err.message) },
          errors: err.fields,
          buyer: path === 'buyer' ? { name: form.name ?? '', email: form.email ?? '' } : undefined,
          attendee:
            path === 'attendee' || path === 'transfer'
              ? { ticket: form.ticket ?? '', name: form.name ?? '', email: form.email ?? '' }
              : undefined,
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
  // staff name attendees and pass tickets on whatever the event's self-service rules say
  const staff = (viewer: Viewer) => ({ kind: 'staff' as const, email: viewer.session.email });
  action('attendee', async (request, viewer, form) => {
    const d = await orderDeskDetail(ctx, principalOfViewer(viewer), request.params.event, request.params.ref);
    const input = { name: form.name ?? '', email: form.email ?? '' };
    await renameAttendee(ctx, d.order, form.ticket ?? '', input, staff(viewer));
    return 'attendee';
  });
  action('transfer', async (request, viewer, form) => {
    const d = await orderDeskDetail(ctx, principalOfViewer(viewer), request.params.event, request.params.ref);
    await transferTicket(ctx, d.order, form.ticket ?? '', { name: form.name ?? '', email: form.email ?? '' }, staff(viewer));
    return 'transferred';
  });
  action('resend', async (request, viewer) => {
    const r = await resendOrderMail(ctx, viewer.account!.id, request.params.ref, () => true, viewer.session.email);
    return r.sent === 'tickets' ? 'resent-tickets' : 'resent-link';
  });
  action('cancel', async (request, viewer) => {
    await cancelOrder(ctx, principalOfViewer(viewer), request.params.ref);
    return 'canceled';
  });

  // ---- refund: a form of its own first (money moves), then the refund, once however often it is sent
  app.get<{ Params: PO }>('/console/a/:account/events/:event/orders/:ref/refund', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.write');
    const d = await orderDeskDetail(ctx, principalOfViewer(viewer), request.params.event, request.params.ref);
    // nothing to give back (not paid, refunded, or free): the order's own page says where it stands
    if (!canRefund(d)) return see(reply, `${eventBase(viewer, request.params.event)}/orders/${encodeURIComponent(d.order.ref)}`);
    return send(reply, refundPage(viewer, request.params.event, d, { nonce: randomSecret(16) }));
  });
  app.post<{ Params: PO }>('/console/a/:account/events/:event/orders/:ref/refund', CONSOLE_FORM, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.write');
    const form = await checkForm(ctx, request, viewer);
    const p = principalOfViewer(viewer);
    const d = await orderDeskDetail(ctx, p, request.params.event, request.params.ref);
    const read = readRefundForm(form, formList(request, 'tickets'), d.order.currency);
    const nonce = (form.nonce ?? '').slice(0, 64);
    const again = (errors: Record<string, string[]> | undefined, flash: Flash | null, status: number) =>
      send(
        reply,
        refundPage(viewer, request.params.event, d, { nonce: nonce || randomSecret(16), form: read.form, errors, flash }),
        status,
      );
    if (read.errors) return again(read.errors, { kind: 'bad', text: t().checkFields }, 422);
    try {
      const result = await refundOrder(
        ctx,
        { id: d.order.id, account_id: d.order.account_id, ref: d.order.ref, by: viewer.session.email },
        { ...read.ask, key: nonce ? `console:${nonce}` : undefined },
      );
      const after = await orderDeskDetail(ctx, p, request.params.event, request.params.ref);
      const done = 'already' in result ? 'already-refunded' : after.order.status === 'refunded' ? 'refunded' : 'partly-refunded';
      return see(reply, `${eventBase(viewer, request.params.event)}/orders/${encodeURIComponent(d.order.ref)}?done=${done}`);
    } catch (err) {
      if (!(err instanceof AppError) || err.kind === 'internal' || err.kind === 'not_found') throw err;
      const status = err.kind === 'upstream' ? 502 : err.kind === 'conflict' ? 409 : err.kind === 'unavailable' ? 503 : 422;
      return again(err.fields, { kind: 'bad', text: err.fields ? t().checkFields : plainMessage(err.message) }, status);
    }
  });
}
