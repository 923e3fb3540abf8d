import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { loadVisibleEvent, getTicketTypes } from '../events/events.service.ts';
import { allEntries, offerNow, removeEntry, waitingListCsv } from '../waitlist/waitlist.service.ts';
import {
  can,
  checkForm,
  principalOfViewer,
  requireRole,
  viewerOf,
  send,
  see,
  type Viewer,
  CONSOLE_FORM,
  CONSOLE_PAGE,
} from './console.http.ts';
import type { FieldErrors, Flash } from './console-layout.view.ts';
import { changeWaitingList, loadEventConfig } from './console-events.service.ts';
import { STALE } from './console-events.view.ts';
import { eventBase } from './console.order-desk.view.ts';
import { waitingListPage } from './console.waitlist.view.ts';
import { t } from './console-lang.ts';
import { plainMessage } from './plain-words.ts';
import type { ConsoleMessages } from '../i18n/i18n.ts';

type P = { account: string; event: string };
type E = P & { id: string };

const DONE: Record<string, (m: ConsoleMessages) => string> = {
  offered: (m) => m.wlDoneOffered,
  removed: (m) => m.wlDoneRemoved,
  settings: (m) => m.wlDoneSettings,
};

/** An event's waiting list in the console: the list, offer now, remove, and the CSV. */
export async function consoleWaitlistRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  const show = async (
    reply: FastifyReply,
    viewer: Viewer,
    slug: string,
    flash: Flash | null,
    status = 200,
    refused?: { sent: Record<string, string>; errors: FieldErrors },
  ) => {
    const p = principalOfViewer(viewer);
    const event = await loadVisibleEvent(ctx, p, slug);
    const [entries, types] = await Promise.all([allEntries(ctx, event), getTicketTypes(ctx, p, slug)]);
    // the settings form keeps the version a refused save was read with
    const settings = can(viewer, 'events.write')
      ? { etag: refused?.sent.etag ?? (await loadEventConfig(ctx, viewer.account!.id, event.slug)).etag, ...refused }
      : undefined;
    return send(
      reply,
      waitingListPage({ viewer, event, entries, types: new Map(types.map((t) => [t.id, t.name])), flash, settings }),
      status,
    );
  };

  app.get<{ Params: P; Querystring: Record<string, string> }>(
    '/console/a/:account/events/:event/waiting-list',
    CONSOLE_PAGE,
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.read');
      const done = Object.hasOwn(DONE, request.query.done ?? '') ? DONE[request.query.done!] : undefined;
      if (request.query.done === 'stale') return show(reply, viewer, request.params.event, STALE);
      return show(reply, viewer, request.params.event, done ? { kind: 'ok', text: done(t()) } : null);
    },
  );

  app.get<{ Params: P }>(
    '/console/a/:account/events/:event/waiting-list.csv',
    { schema: { hide: true } },
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.read');
      const event = await loadVisibleEvent(ctx, principalOfViewer(viewer), request.params.event);
      const { filename, body } = await waitingListCsv(ctx, event);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .send(body);
    },
  );

  // ---- the settings: on or off, and how long an offer holds its places
  app.post<{ Params: P }>('/console/a/:account/events/:event/waiting-list/settings', CONSOLE_FORM, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const form = await checkForm(ctx, request, viewer);
    const event = await loadVisibleEvent(ctx, principalOfViewer(viewer), request.params.event);
    const here = `${eventBase(viewer, event.slug)}/waiting-list`;
    const m = t();
    const minutes = Number((form.offer_minutes ?? '').trim().replace(/[.,\s]/g, ''));
    const refuse = (errors: FieldErrors, status = 422) =>
      show(reply, viewer, event.slug, { kind: 'bad', text: m.wlSettingsRefused }, status, { sent: form, errors });
    if (!Number.isInteger(minutes) || minutes < 5 || minutes > 20_160) return refuse({ offer_minutes: [m.wlOfferMinutesBad] });
    try {
      await changeWaitingList(ctx, viewer.account!.id, event.slug, form.etag ?? '', {
        enabled: form.enabled === '1',
        offer_minutes: minutes,
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.kind === 'precondition_failed') return see(reply, `${here}?done=stale#wl-settings`);
      if (err.fields) return refuse({ offer_minutes: Object.values(err.fields).flat().map(plainMessage) });
      throw err;
    }
    return see(reply, `${here}?done=settings`);
  });

  for (const action of ['offer', 'remove'] as const) {
    app.post<{ Params: E }>(
      `/console/a/:account/events/:event/waiting-list/:id/${action}`,
      CONSOLE_FORM,
      async (request, reply) => {
        const viewer = await viewerOf(ctx, request, request.params.account);
        requireRole(viewer, 'orders.write');
        await checkForm(ctx, request, viewer);
        const event = await loadVisibleEvent(ctx, principalOfViewer(viewer), request.params.event);
        const id = /^[1-9][0-9]{0,14}$/.test(request.params.id) ? Number(request.params.id) : 0;
        try {
          if (action === 'offer') await offerNow(ctx, event, id);
          else await removeEntry(ctx, event, id, viewer.session.email);
        } catch (err) {
          if (!(err instanceof AppError) || err.kind !== 'conflict') throw err;
          return show(reply, viewer, event.slug, { kind: 'bad', text: plainMessage(err.message) }, 409);
        }
        return see(reply, `${eventBase(viewer, event.slug)}/waiting-list?done=${action === 'offer' ? 'offered' : 'removed'}`);
      },
    );
  }
}
