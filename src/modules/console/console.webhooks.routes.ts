import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import {
  createEndpoint,
  deleteEndpoint,
  deliveryAttempts,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  redeliverFailed,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from '../webhooks/webhooks.service.ts';
import { fromLocalInput } from './catalogue-form.ts';
import { checkForm, CONSOLE_FORM, CONSOLE_PAGE, formList, requireRole, viewerOf, type Viewer } from './console.http.ts';
import { send, see } from './console.http.ts';
import { flashOf, type FieldErrors, type Flash } from './console-layout.view.ts';
import { deliveryLogPage, webhooksBase, webhooksListPage } from './console.webhooks.view.ts';
import { t } from './console-lang.ts';
import { count } from './formats.ts';
import { plainList } from './plain-words.ts';

const page = CONSOLE_PAGE;
const form = CONSOLE_FORM;

/** Webhooks (owners): endpoints, secrets shown once, a delivery log with every attempt, redelivery. */
export async function consoleWebhooksRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  const listPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    viewer: Viewer,
    opts: { secret?: { url: string; secret: string }; errors?: FieldErrors; flash?: Flash | null; status?: number } = {},
  ) => {
    const endpoints = await listEndpoints(ctx.db, viewer.account!.id);
    const flash = opts.flash ?? flashOf(request.query);
    return send(
      reply,
      webhooksListPage({ viewer, endpoints, flash, secret: opts.secret, errors: opts.errors }),
      opts.status ?? 200,
    );
  };

  const guard = async (request: FastifyRequest<{ Params: { account: string } }>) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'webhooks.manage');
    return viewer;
  };

  app.get<{ Params: { account: string } }>('/console/a/:account/webhooks', page, async (request, reply) =>
    listPage(request, reply, await guard(request)),
  );

  app.post<{ Params: { account: string } }>('/console/a/:account/webhooks', form, async (request, reply) => {
    const viewer = await guard(request);
    const body = await checkForm(ctx, request, viewer);
    try {
      const made = await createEndpoint(ctx, viewer.account!.id, {
        url: body.url ?? '',
        description: body.description ?? '',
        events: formList(request, 'events'),
      });
      return listPage(request, reply, viewer, {
        secret: made,
        flash: { kind: 'ok', text: t().whAdded },
        status: 201,
      });
    } catch (err) {
      if (err instanceof AppError && err.fields) return listPage(request, reply, viewer, { errors: err.fields, status: 422 });
      throw err;
    }
  });

  type E = { Params: { account: string; id: string } };
  const endpointId = (request: FastifyRequest<E>) => Number(request.params.id) || 0;

  app.post<E>('/console/a/:account/webhooks/:id', form, async (request, reply) => {
    const viewer = await guard(request);
    const body = await checkForm(ctx, request, viewer);
    try {
      await updateEndpoint(ctx, viewer.account!.id, endpointId(request), {
        url: body.url ?? '',
        description: body.description ?? '',
        events: formList(request, 'events'),
        enabled: body.enabled === '1',
      });
    } catch (err) {
      if (err instanceof AppError && err.fields) {
        // the endpoint's own form folds away with the page: its problems go into the message
        const text = t().whNotSaved(plainList(Object.values(err.fields).flat()));
        return listPage(request, reply, viewer, { flash: { kind: 'bad', text }, status: 422 });
      }
      throw err;
    }
    return see(reply, `${webhooksBase(viewer)}?done=saved`);
  });

  app.post<E>('/console/a/:account/webhooks/:id/rotate', form, async (request, reply) => {
    const viewer = await guard(request);
    await checkForm(ctx, request, viewer);
    const rotated = await rotateSecret(ctx, viewer.account!.id, endpointId(request));
    return listPage(request, reply, viewer, {
      secret: rotated,
      flash: { kind: 'ok', text: t().whRotated },
    });
  });

  app.post<E>('/console/a/:account/webhooks/:id/delete', form, async (request, reply) => {
    const viewer = await guard(request);
    await checkForm(ctx, request, viewer);
    await deleteEndpoint(ctx.db, viewer.account!.id, endpointId(request));
    return see(reply, `${webhooksBase(viewer)}?done=removed`);
  });

  app.post<E>('/console/a/:account/webhooks/:id/test', form, async (request, reply) => {
    const viewer = await guard(request);
    await checkForm(ctx, request, viewer);
    await sendTestEvent(ctx, viewer.account!.id, endpointId(request));
    return see(reply, `${webhooksBase(viewer)}/${endpointId(request)}?done=queued`);
  });

  // ---- The delivery log of one endpoint
  const logPage = async (request: FastifyRequest<E>, reply: FastifyReply, viewer: Viewer, flash?: Flash, status = 200) => {
    const id = endpointId(request);
    const endpoint = await getEndpoint(ctx.db, viewer.account!.id, id);
    const q = request.query as { after?: string };
    const { deliveries, next_after } = await listDeliveries(ctx.db, viewer.account!.id, id, { limit: '50', after: q.after });
    const attempts = await Promise.all(deliveries.map((d) => deliveryAttempts(ctx.db, viewer.account!.id, id, d.id)));
    const flashed = flash ?? flashOf(request.query);
    return send(reply, deliveryLogPage({ viewer, endpoint, deliveries, next_after, attempts, flash: flashed }), status);
  };

  app.get<E>('/console/a/:account/webhooks/:id', page, async (request, reply) => logPage(request, reply, await guard(request)));

  app.post<{ Params: { account: string; id: string; delivery: string } }>(
    '/console/a/:account/webhooks/:id/deliveries/:delivery/redeliver',
    form,
    async (request, reply) => {
      const viewer = await guard(request);
      await checkForm(ctx, request, viewer);
      await redeliver(ctx, viewer.account!.id, Number(request.params.id) || 0, Number(request.params.delivery) || 0);
      return see(reply, `${webhooksBase(viewer)}/${Number(request.params.id)}?done=queued`);
    },
  );

  app.post<E>('/console/a/:account/webhooks/:id/redeliver-failed', form, async (request, reply) => {
    const viewer = await guard(request);
    const body = await checkForm(ctx, request, viewer);
    const since = fromLocalInput(body.since ?? '', 'UTC');
    if (!since) return logPage(request, reply, viewer, { kind: 'bad', text: t().whGiveMoment }, 422);
    const n = await redeliverFailed(ctx, viewer.account!.id, endpointId(request), new Date(since));
    return logPage(request, reply, viewer, { kind: 'ok', text: t().whRedelivering(count(n)) });
  });
}
