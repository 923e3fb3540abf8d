import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { seatCodes, seatMap } from '../events/seat-map.service.ts';
import { getEventId } from '../events/events.service.ts';
import { checkForm, CONSOLE_FORM, CONSOLE_PAGE, requireRole, send, see, viewerOf, type Viewer } from './console.http.ts';
import { changeSeating, loadEventConfig } from './console-events.service.ts';
import type { FieldErrors, Flash } from './console-layout.view.ts';
import { t } from './console-lang.ts';
import { seatingPage, type SeatingPageView } from './console-seating.view.ts';

type P = { account: string; event: string };
type Form = Record<string, string | undefined>;

/**
 * The seating form: a plan is large (pretix's export of a 20,000-seat hall is a few MB), so its
 * field and the request may be larger than other console forms'; blocked seats a long list.
 */
const SEATING_FORM = {
  ...CONSOLE_FORM,
  bodyLimit: 16 * 1024 * 1024,
  schema: {
    ...CONSOLE_FORM.schema,
    body: {
      ...CONSOLE_FORM.schema.body,
      maxProperties: 500,
      properties: { plan: { type: 'string', maxLength: 12_000_000 }, blocked: { type: 'string', maxLength: 400_000 } },
    },
  },
} as const;

/** An event's seating in the console: the sold map, the categories' types, blocked seats, the plan. */
export async function consoleSeatingRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  const show = async (
    reply: FastifyReply,
    viewer: Viewer,
    slug: string,
    opts: { flash?: Flash | null; errors?: FieldErrors; sent?: Form; status?: number } = {},
  ) => {
    const accountId = viewer.account!.id;
    const { document, etag } = await loadEventConfig(ctx, accountId, slug);
    const eventId = await getEventId(ctx, accountId, document.slug);
    const [map, { codes }] = await Promise.all([seatMap(ctx, eventId), seatCodes(ctx, eventId)]);
    const stored = document.seating;
    const form: SeatingPageView['form'] = opts.sent
      ? {
          plan: opts.sent.plan ?? '',
          blocked: opts.sent.blocked ?? '',
          categories: Object.fromEntries(sentCategories(opts.sent).map(([c, k]) => [c, k])),
        }
      : {
          plan: stored ? JSON.stringify(stored.plan, null, 2) : '',
          blocked: (stored?.blocked ?? []).join(', '),
          categories: { ...(stored?.categories ?? {}) },
        };
    const categories = planCategories(form.plan) ?? map?.categories.map((c) => c.name) ?? [];
    return send(
      reply,
      seatingPage({
        viewer,
        event: { slug: document.slug, name: document.name, etag },
        types: (document.ticket_types ?? []).map((ty) => ({ key: ty.key, name: ty.name })),
        map,
        codes,
        form,
        categories,
        ...(opts.errors ? { errors: opts.errors } : {}),
        flash: opts.flash ?? null,
      }),
      opts.status ?? 200,
    );
  };

  app.get<{ Params: P; Querystring: { done?: string } }>(
    '/console/a/:account/events/:event/seating',
    CONSOLE_PAGE,
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'events.read');
      const m = t();
      const done = { saved: m.seatingSaved, removed: m.seatingRemoved, stale: m.seatingStale }[request.query.done ?? ''];
      return show(reply, viewer, request.params.event, {
        flash: done ? { kind: request.query.done === 'stale' ? 'bad' : 'ok', text: done } : null,
      });
    },
  );

  app.post<{ Params: P }>('/console/a/:account/events/:event/seating', SEATING_FORM, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const form = (await checkForm(ctx, request, viewer)) as Form;
    const m = t();
    const here = `/console/a/${encodeURIComponent(viewer.account!.slug)}/events/${encodeURIComponent(request.params.event)}/seating`;
    const refuse = (errors: FieldErrors, status = 422) =>
      show(reply, viewer, request.params.event, { errors, sent: form, status, flash: { kind: 'bad', text: m.seatingRefused } });
    let seating: Parameters<typeof changeSeating>[4] = null;
    if (form.action !== 'remove') {
      let plan: unknown;
      try {
        plan = JSON.parse(form.plan ?? '');
      } catch {
        return refuse({ plan: [m.seatingBadJson] });
      }
      const blocked = (form.blocked ?? '').split(/[\s,]+/).filter(Boolean);
      const categories = Object.fromEntries(sentCategories(form).filter(([, key]) => key !== ''));
      seating = { plan: plan as Record<string, unknown>, categories, ...(blocked.length ? { blocked } : {}) };
    }
    try {
      await changeSeating(ctx, viewer.account!.id, request.params.event, form.etag ?? '', seating);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.kind === 'precondition_failed') return see(reply, `${here}?done=stale`);
      if (err.kind === 'conflict' || err.kind === 'unprocessable' || err.kind === 'bad_request')
        return refuse(fieldsOf(err), err.kind === 'conflict' ? 409 : 422);
      throw err;
    }
    return see(reply, `${here}?done=${seating ? 'saved' : 'removed'}`);
  });
}

/** The form's category choices: `catname_<i>` names the plan's category, `cat_<i>` its type's key. */
function sentCategories(form: Form): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < 200 && form[`catname_${i}`] !== undefined; i++) out.push([form[`catname_${i}`]!, form[`cat_${i}`] ?? '']);
  return out;
}

/** The categories of a plan typed into the form, when it reads as one. */
function planCategories(text: string): string[] | null {
  try {
    const plan = JSON.parse(text) as { categories?: Array<{ name?: unknown }> };
    return Array.isArray(plan.categories)
      ? plan.categories.map((c) => c?.name).filter((n): n is string => typeof n === 'string' && n !== '')
      : null;
  } catch {
    return null;
  }
}

/**
 * The document's problems put beside the form's fields: the plan's own under "plan", blocked
 * seats under "blocked", the rest (categories, held or sold seats) under "plan" too, in the
 * writer's words, which name the paths and seats.
 */
function fieldsOf(err: AppError): FieldErrors {
  const out: Record<string, string[]> = {};
  const add = (k: string, msg: string) => (out[k] ??= []).push(msg);
  for (const [path, msgs] of Object.entries(err.fields ?? { '$.seating': [err.message] }))
    for (const msg of msgs ?? [])
      add(
        path.startsWith('$.seating.blocked') ? 'blocked' : 'plan',
        `${path.replace(/^\$\.seating\.?/, '') || 'seating'}: ${msg}`,
      );
  return out;
}
