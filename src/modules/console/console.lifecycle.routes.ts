import type { FastifyInstance } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { shopPreviewPage } from '../pages/shop-preview.ts';
import { fromLocalInput } from './catalogue-form.ts';
import { checkForm, CONSOLE_FORM, CONSOLE_PAGE, requireRole, see, send, viewerOf } from './console.http.ts';
import { changeLifecycle, eventHasOrders, loadEventConfig, removeEvent, type LifecycleChange } from './console-events.service.ts';
import { accountBase } from './console-events.view.ts';
import { deleteConfirmPage } from './console-lifecycle.view.ts';

type P = { account: string; event: string };

/** The one-button lifecycle actions and the document change each makes. */
const ACTIONS: Record<string, { change: LifecycleChange; done: string }> = {
  publish: { change: { status: 'published' }, done: 'published' },
  draft: { change: { status: 'draft' }, done: 'drafted' },
  archive: { change: { archived: true }, done: 'archived' },
  unarchive: { change: { archived: false }, done: 'unarchived' },
  unschedule: { change: { sales_start_at: null }, done: 'unscheduled' },
};

/**
 * An event's lifecycle in the console (contract section 11): publish and back to draft, the sales
 * start, archive, delete (with a confirmation page), and the buyer page's preview for staff.
 * Every change is a CSRF form answered by a redirect to the event's page, which says what became
 * of it (`?lifecycle=`).
 */
export async function consoleLifecycleRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  app.post<{ Params: P }>('/console/a/:account/events/:event/lifecycle', CONSOLE_FORM, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const form = await checkForm(ctx, request, viewer);
    const { document } = await loadEventConfig(ctx, viewer.account!.id, request.params.event);
    const back = (outcome: string) => see(reply, `${accountBase(viewer)}/events/${document.slug}?lifecycle=${outcome}#lifecycle`);
    let step = ACTIONS[form.action ?? ''];
    if (form.action === 'schedule') {
      const raw = (form.sales_start_at ?? '').trim();
      const at = raw ? fromLocalInput(raw, document.timezone) : null;
      if (raw && !at) return back('bad-sales-start');
      step = at
        ? { change: { sales_start_at: at }, done: 'scheduled' }
        : { change: { sales_start_at: null }, done: 'unscheduled' };
    }
    if (!step) throw new AppError('bad_request', 'bad_request', 'Unknown action');
    try {
      await changeLifecycle(ctx, viewer.account!.id, document.slug, form.etag ?? '', step.change);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.kind === 'precondition_failed') return back('stale');
      if (err.kind === 'conflict') return back('has-orders');
      if (err.kind === 'unprocessable') return back('bad-sales-start');
      throw err;
    }
    return back(step.done);
  });

  app.get<{ Params: P }>('/console/a/:account/events/:event/delete', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const { document } = await loadEventConfig(ctx, viewer.account!.id, request.params.event);
    const hasOrders = await eventHasOrders(ctx, viewer.account!.id, document.slug);
    return send(reply, deleteConfirmPage({ viewer, doc: document, hasOrders }));
  });

  app.post<{ Params: P }>('/console/a/:account/events/:event/delete', CONSOLE_FORM, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    await checkForm(ctx, request, viewer);
    const { document } = await loadEventConfig(ctx, viewer.account!.id, request.params.event);
    try {
      await removeEvent(ctx, viewer.account!.id, document.slug);
    } catch (err) {
      if (err instanceof AppError && err.kind === 'conflict') {
        return see(reply, `${accountBase(viewer)}/events/${document.slug}?lifecycle=has-orders#lifecycle`);
      }
      throw err;
    }
    return see(reply, `${accountBase(viewer)}/events?done=event-deleted`);
  });

  // what buyers would see, drafts included: for anyone who may read the account's events
  app.get<{ Params: P }>('/console/a/:account/events/:event/preview', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.read');
    const { document } = await loadEventConfig(ctx, viewer.account!.id, request.params.event);
    return send(reply, await shopPreviewPage(ctx, request, viewer.account!.slug, document.slug));
  });
}
