import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { duplicateEvent, putEventConfig, type EventDocument } from '../events/event-config.service.ts';
import { getEventSummaries } from '../events/events.service.ts';
import { fromLocalInput } from './catalogue-form.ts';
import { can, checkForm, requireRole, viewerOf, type Viewer, CONSOLE_FORM, CONSOLE_PAGE, send, see } from './console.http.ts';
import { documentProblems, eventHasOrders, freeEventSlug, loadEventConfig } from './console-events.service.ts';
import { lifecycleCard, lifecycleFlash } from './console-lifecycle.view.ts';
import { accountBase, eventDetailsPage, eventListPage, newEventPage, STALE } from './console-events.view.ts';
import { flashOf, type FieldErrors, type Flash } from './console-layout.view.ts';
import { EVENT_SLUG, eventErrors, readEventForm } from './event-form.ts';
import { t } from './console-lang.ts';
import { plainMessage } from './plain-words.ts';
import { renderDescription } from '../events/description.ts';
import { verifyCsrf } from '../../platform/http/csrf.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { SafeHtml } from '../../platform/http/html.ts';

/** The event document's description is at most this long (its JSON schema); the console's form fields too. */
const DESCRIPTION_MAX = 20_000;
/** 20,000 characters as JSON: up to 6 bytes each when escaped, with room for the braces and key. */
const PREVIEW_BODY_LIMIT = 6 * DESCRIPTION_MAX + 1024;

const page = CONSOLE_PAGE;
const form = CONSOLE_FORM;

type P = { account: string; event: string };

/** The console's events: the list, a new event, one event's details, duplicating it. */
export async function consoleEventsRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  app.get<{ Params: { account: string } }>('/console/a/:account/events', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.read');
    const archived = (request.query as Record<string, string | undefined>).show === 'archived';
    const events = (await getEventSummaries(ctx, viewer.account!.id)).filter((e) => e.archived === archived);
    return send(reply, eventListPage({ viewer, events, archived, flash: flashOf(request.query) }));
  });

  app.get<{ Params: { account: string } }>('/console/a/:account/events/new', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    return send(reply, newEventPage({ viewer, doc: {} }));
  });

  app.post<{ Params: { account: string } }>('/console/a/:account/events/new', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const form = await checkForm(ctx, request, viewer);
    const { doc, errors } = readEventForm(form, {});
    // the Preview button: the form again with its description rendered, nothing saved
    if (form.intent === 'preview') return send(reply, newEventPage({ viewer, doc, preview: renderDescription(doc.description) }));
    const again = (errs: FieldErrors, status: number) => send(reply, newEventPage({ viewer, doc, errors: errs }), status);
    // the address is made from the name unless the organiser gave one
    const derived = !doc.slug;
    if (derived && doc.name) doc.slug = await freeEventSlug(ctx, viewer.account!.id, doc.name);
    if (!derived && !EVENT_SLUG.test(doc.slug!)) errors.slug = ['use lowercase letters, digits and dashes'];
    // a new event starts as a draft: buyers see it once it is published (contract section 11)
    const draft = { ...doc, status: 'draft' as const, ticket_types: [] };
    if (Object.keys(errors).length) {
      const slug = doc.slug && EVENT_SLUG.test(doc.slug) ? doc.slug : 'event';
      const more = eventErrors(await documentProblems(ctx, viewer.account!.id, slug, { ...draft, slug }));
      if (derived) delete doc.slug;
      return again({ ...more, ...errors }, 422);
    }
    try {
      await putEventConfig(ctx, viewer.account!.id, doc.slug!, draft, undefined, { createOnly: true });
    } catch (err) {
      if (err instanceof AppError && err.fields) return again(eventErrors(err.fields), err.kind === 'conflict' ? 409 : 422);
      throw err;
    }
    return see(reply, `${accountBase(viewer)}/events/${doc.slug}/ticket-types?done=event-created`);
  });

  /** The details page, read again from the event (a form sent back shows `doc` and `errors` over it). */
  const details = async (
    request: FastifyRequest<{ Params: P }>,
    reply: FastifyReply,
    viewer: Viewer,
    opts: {
      doc?: Partial<EventDocument>;
      errors?: FieldErrors;
      flash?: Flash | null;
      status?: number;
      preview?: SafeHtml | null;
      etag?: string;
    } = {},
  ) => {
    const config = await loadEventConfig(ctx, viewer.account!.id, request.params.event);
    const publicUrl = `${ctx.config.baseUrl}/e/${viewer.account!.slug}/${config.document.slug}`;
    const lifecycle = can(viewer, 'events.write')
      ? lifecycleCard({
          viewer,
          doc: config.document,
          etag: config.etag,
          hasOrders: await eventHasOrders(ctx, viewer.account!.id, config.document.slug),
        })
      : undefined;
    return send(
      reply,
      eventDetailsPage({
        viewer,
        config,
        publicUrl,
        lifecycle,
        doc: opts.doc ?? config.document,
        errors: opts.errors,
        flash: opts.flash ?? flashOf(request.query) ?? lifecycleFlash(request.query),
        ...(opts.preview !== undefined ? { preview: opts.preview, etag: opts.etag } : {}),
      }),
      opts.status ?? 200,
    );
  };

  app.get<{ Params: P }>('/console/a/:account/events/:event', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.read');
    return details(request, reply, viewer);
  });

  app.post<{ Params: P }>('/console/a/:account/events/:event', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const form = await checkForm(ctx, request, viewer);
    const current = await loadEventConfig(ctx, viewer.account!.id, request.params.event);
    const { doc, errors } = readEventForm(form, current.document);
    if (form.intent === 'preview') {
      // nothing saved; the form keeps the version it was read with, so Save still notices a change made since
      return details(request, reply, viewer, { doc, preview: renderDescription(doc.description), etag: form.etag ?? '' });
    }
    if (Object.keys(errors).length) {
      const more = eventErrors(await documentProblems(ctx, viewer.account!.id, current.document.slug, doc));
      return details(request, reply, viewer, { doc, errors: { ...more, ...errors }, status: 422 });
    }
    try {
      await putEventConfig(ctx, viewer.account!.id, current.document.slug, doc, form.etag ?? '');
    } catch (err) {
      if (err instanceof AppError && err.kind === 'precondition_failed') {
        return details(request, reply, viewer, { flash: STALE, status: 412 });
      }
      if (err instanceof AppError && err.fields) {
        return details(request, reply, viewer, {
          doc,
          errors: eventErrors(err.fields),
          status: err.kind === 'conflict' ? 409 : 422,
        });
      }
      throw err;
    }
    return see(reply, `${accountBase(viewer)}/events/${current.document.slug}?done=event-saved`);
  });

  // ---- the description's preview as the organiser types (description-preview.js): the buyer page's HTML
  app.post<{ Params: { account: string }; Body: { markdown: string } }>(
    '/console/a/:account/markdown-preview',
    {
      bodyLimit: PREVIEW_BODY_LIMIT,
      config: { validationError: { status: 422, code: 'validation_failed' } },
      schema: {
        hide: true,
        params: { type: 'object', required: ['account'], properties: { account: { type: 'string', maxLength: 300 } } },
        headers: { type: 'object', properties: { 'x-csrf-token': { type: 'string', maxLength: 200 } } },
        body: {
          type: 'object',
          required: ['markdown'],
          additionalProperties: false,
          properties: { markdown: { type: 'string', maxLength: DESCRIPTION_MAX } },
        },
        response: {
          200: { type: 'object', required: ['html'], additionalProperties: false, properties: { html: { type: 'string' } } },
          ...errorResponses(400, 401, 403, 404, 413, 415, 422),
        },
      },
    },
    async (request) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'events.write');
      await verifyCsrf(ctx, request, `console:${viewer.session.id}`, request.headers['x-csrf-token']);
      return { html: renderDescription(request.body.markdown)?.value ?? '' };
    },
  );

  app.post<{ Params: P }>('/console/a/:account/events/:event/duplicate', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const form = await checkForm(ctx, request, viewer);
    const current = await loadEventConfig(ctx, viewer.account!.id, request.params.event);
    const name = form.name?.trim() || current.document.name;
    let slug = (form.slug ?? '').trim();
    if (!slug) slug = await freeEventSlug(ctx, viewer.account!.id, name);
    const fail = (msg: string, status: number) =>
      details(request, reply, viewer, {
        errors: { dup: [msg] },
        flash: { kind: 'bad', text: t().notDuplicated(plainMessage(msg)) },
        status,
      });
    if (!EVENT_SLUG.test(slug)) return fail('use lowercase letters, digits and dashes for the slug', 422);
    const starts = form.starts_at ? fromLocalInput(form.starts_at, current.document.timezone) : current.document.starts_at;
    if (!starts) return fail('the start is not a date and time', 422);
    try {
      await duplicateEvent(ctx, viewer.account!.id, current.document.slug, {
        slug,
        name,
        starts_at: starts,
        status: 'draft',
      });
    } catch (err) {
      if (err instanceof AppError && (err.kind === 'conflict' || err.kind === 'unprocessable')) return fail(err.message, 409);
      throw err;
    }
    return see(reply, `${accountBase(viewer)}/events/${slug}?done=event-duplicated`);
  });
}
