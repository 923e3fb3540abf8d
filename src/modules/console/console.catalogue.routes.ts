import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound } from '../../platform/errors.ts';
import { putEventConfig } from '../events/event-config.service.ts';
import { changedDocument, itemErrors, kindOf, type KindSpec } from './catalogue-form.ts';
import {
  checkForm,
  formList,
  requireRole,
  viewerOf,
  type Viewer,
  CONSOLE_FORM,
  CONSOLE_PAGE,
  send,
  see,
} from './console.http.ts';
import { cataloguePage, NOT_SAVED, type CatalogueForm } from './console-catalogue.view.ts';
import { discountCodeUses, documentProblems, loadEventConfig } from './console-events.service.ts';
import { accountBase, STALE } from './console-events.view.ts';
import { flashOf, type Flash } from './console-layout.view.ts';

const page = CONSOLE_PAGE;
const form = CONSOLE_FORM;

type P = { account: string; event: string; kind: string };
type Shown = CatalogueForm & { flash?: Flash | null; status?: number };

const kindParam = (request: FastifyRequest<{ Params: P }>) => {
  const kind = kindOf(request.params.kind);
  if (!kind) throw notFound('This page does not exist');
  return kind;
};

/** The catalogue tabs of an event: one generic editor per kind, each change saved through the event's document. */
export async function consoleCatalogueRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  /** The catalogue page of `kind`, read again from the event (a form sent back shows its values and errors). */
  const showCatalogue = async (
    request: FastifyRequest<{ Params: P }>,
    reply: FastifyReply,
    viewer: Viewer,
    kind: KindSpec,
    opts: Shown = {},
  ) => {
    const config = await loadEventConfig(ctx, viewer.account!.id, request.params.event);
    const uses = kind.slug === 'codes' ? await discountCodeUses(ctx, viewer.account!.id, config.document.slug) : undefined;
    const { flash, status, ...form } = opts;
    return send(
      reply,
      cataloguePage({ ...form, viewer, config, kind, uses, flash: flash ?? flashOf(request.query) }),
      status ?? 200,
    );
  };

  app.get<{ Params: P }>('/console/a/:account/events/:event/:kind', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.read');
    return showCatalogue(request, reply, viewer, kindParam(request));
  });

  /** Saves one item (`id` undefined: a new one) or removes it, through the document with the page's ETag. */
  const change = async (request: FastifyRequest<{ Params: P & { id?: string } }>, reply: FastifyReply, remove: boolean) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const kind = kindParam(request);
    const form = await checkForm(ctx, request, viewer);
    const lists = Object.fromEntries(
      kind.fields.filter((f) => f.type === 'keys').map((f) => [f.name, formList(request, f.name)]),
    );
    const config = await loadEventConfig(ctx, viewer.account!.id, request.params.event);
    const id = request.params.id;
    const { doc, index, errors } = changedDocument(config.document, kind, { id, remove, form, lists });
    const open = id ?? '';
    const show = (opts: Shown) => showCatalogue(request, reply, viewer, kind, opts);
    if (Object.keys(errors).length) {
      const more = itemErrors(kind, index, await documentProblems(ctx, viewer.account!.id, config.document.slug, doc));
      return show({ open, values: form, lists, errors: { ...more, ...errors }, flash: NOT_SAVED, status: 422 });
    }
    try {
      await putEventConfig(ctx, viewer.account!.id, config.document.slug, doc, form.etag ?? '');
    } catch (err) {
      if (err instanceof AppError && err.kind === 'precondition_failed') return show({ flash: STALE, status: 412 });
      if (err instanceof AppError && err.fields) {
        const status = err.kind === 'conflict' ? 409 : 422;
        if (remove) return show({ flash: { kind: 'bad', text: err.message }, status });
        return show({
          open,
          values: form,
          lists,
          errors: itemErrors(kind, index, err.fields),
          flash: err.kind === 'conflict' ? { kind: 'bad', text: err.message } : NOT_SAVED,
          status,
        });
      }
      throw err;
    }
    const done = remove ? 'removed' : id === undefined ? 'added' : 'saved';
    return see(reply, `${accountBase(viewer)}/events/${config.document.slug}/${kind.slug}?done=${done}`);
  };

  app.post<{ Params: P }>('/console/a/:account/events/:event/:kind', form, (request, reply) => change(request, reply, false));
  app.post<{ Params: P & { id: string } }>('/console/a/:account/events/:event/:kind/:id', form, (request, reply) =>
    change(request, reply, false),
  );
  app.post<{ Params: P & { id: string } }>('/console/a/:account/events/:event/:kind/:id/delete', form, (request, reply) =>
    change(request, reply, true),
  );
}
