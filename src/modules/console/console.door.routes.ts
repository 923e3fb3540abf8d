import type { FastifyInstance, FastifyRequest } from 'fastify';
import { verifyCsrf } from '../../platform/http/csrf.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { doorEvents, doorList, listConflicts } from '../checkin/door.service.ts';
import { batchBodySchema, batchResponseSchema, syncQuerySchema, syncResponseSchema } from '../checkin/offline.schemas.ts';
import { syncList, uploadScans, type ScanUpload } from '../checkin/offline.service.ts';
import { asset } from './console.assets.ts';
import { CONSOLE_PAGE, principalOfViewer, requireRole, send, viewerOf } from './console.http.ts';
import { conflictsPage, doorListPage, scannerHref, scannerPage } from './console.door.view.ts';

/**
 * Door check-in in the console (contract section 9): the lists to scan on, the scanner itself (a
 * page that keeps working offline: a service worker keeps the page and its script, IndexedDB the
 * list and the queued scans) and the conflicts an offline upload flagged. The scanner talks to the
 * same sync and upload services as the API, here with the person's session instead of a token.
 * The pages themselves are in console.door.view.ts.
 */

type P = { account: string; event: string; list: string };

const jsonSchema = (extra: Record<string, unknown>) =>
  ({
    hide: true,
    params: {
      type: 'object',
      required: ['account', 'event', 'list'],
      properties: {
        account: { type: 'string', maxLength: 200 },
        event: { type: 'string', maxLength: 200 },
        list: { type: 'string', maxLength: 40 },
      },
    },
    ...extra,
  }) as const;

export async function consoleDoorRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  // ---- the lists door staff can scan on: events at the door now or soon (or past ones)
  app.get<{ Params: { account: string } }>('/console/a/:account/door', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'checkin');
    const past = (request.query as Record<string, string>).past === '1';
    const events = await doorEvents(ctx, viewer.account!.id, { past });
    return send(reply, doorListPage(viewer, events, past));
  });

  // ---- the scanner
  app.get<{ Params: P }>('/console/a/:account/door/:event/:list', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'checkin');
    const info = await doorList(ctx, principalOfViewer(viewer), request.params.event, request.params.list);
    return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(scannerPage(viewer, info));
  });

  app.get<{ Params: P }>('/console/a/:account/door/:event/:list/manifest.webmanifest', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'checkin');
    const info = await doorList(ctx, principalOfViewer(viewer), request.params.event, request.params.list);
    const here = scannerHref(viewer, info);
    return reply
      .type('application/manifest+json; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(
        JSON.stringify({
          name: `${info.list.name} · ${info.event.name}`,
          short_name: 'Door scanner',
          id: here,
          start_url: here,
          scope: here,
          display: 'standalone',
          orientation: 'portrait',
          background_color: '#0f172a',
          theme_color: '#0f172a',
          icons: [{ src: asset('icon.svg'), sizes: 'any', type: 'image/svg+xml', purpose: 'any maskable' }],
        }),
      );
  });

  // ---- the scanner's exchange with the server: the session instead of a token
  app.get<{ Params: P }>(
    '/console/a/:account/door/:event/:list/sync',
    {
      schema: jsonSchema({
        querystring: syncQuerySchema,
        response: { 200: syncResponseSchema, ...errorResponses(401, 404, 422, 429, 500) },
      }),
    },
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'checkin');
      // a fresh form token with every download: a page that was opened offline hours ago can still upload
      // and the server's time: the scanner stamps its scans on the server's clock, whatever the device's says
      void reply
        .header('x-csrf-token', viewer.csrf)
        .header('x-server-time', ctx.clock.now().toISOString())
        .header('cache-control', 'no-store');
      return syncList(
        ctx,
        principalOfViewer(viewer),
        request.params.event,
        request.params.list,
        request.query as Record<string, unknown>,
      );
    },
  );

  app.post<{ Params: P }>(
    '/console/a/:account/door/:event/:list/batch',
    {
      config: { validationError: { status: 422, code: 'validation_failed' } },
      schema: jsonSchema({
        headers: { type: 'object', properties: { 'x-csrf-token': { type: 'string', maxLength: 200 } } },
        body: batchBodySchema,
        response: { 200: batchResponseSchema, ...errorResponses(400, 401, 403, 404, 422, 429, 500) },
      }),
    },
    async (request: FastifyRequest<{ Params: P }>) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'checkin');
      await verifyCsrf(ctx, request, `console:${viewer.session.id}`, request.headers['x-csrf-token']);
      return uploadScans(
        ctx,
        principalOfViewer(viewer),
        request.params.event,
        request.params.list,
        request.body as { device: string; checkins: ScanUpload[] },
      );
    },
  );

  // ---- conflicts an offline upload flagged
  app.get<{ Params: P }>('/console/a/:account/door/:event/:list/conflicts', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'checkin');
    const p = principalOfViewer(viewer);
    const info = await doorList(ctx, p, request.params.event, request.params.list);
    const rawPage = Number((request.query as Record<string, string>).page ?? '1');
    const pageNo = Number.isInteger(rawPage) && rawPage >= 1 && rawPage <= 100_000 ? rawPage : 1;
    const conflicts = await listConflicts(ctx, p, request.params.event, request.params.list, pageNo);
    return send(reply, conflictsPage(viewer, info, conflicts, pageNo));
  });
}
