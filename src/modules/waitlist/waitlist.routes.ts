import type { FastifyInstance } from 'fastify';
import { actorOf, principalOf } from '../../platform/http/auth.ts';
import { errorResponses, slugParams } from '../../platform/http/schemas.ts';
import { loadVisibleEvent } from '../events/events.service.ts';
import { entryParams, entrySchema, joinBody } from './waitlist.schemas.ts';
import { joinWaitingList, listWaitingList, removeEntry, type JoinInput } from './waitlist.service.ts';

const invalid = { validationError: { status: 422 as const, code: 'validation_failed' } };

/** The waiting list's API (contract section 13): list, add, remove. */
export async function waitlistRoutes(app: FastifyInstance): Promise<void> {
  app.addSchema(entrySchema);

  app.get<{ Params: { slug: string }; Querystring: { limit?: string; after?: string } }>(
    '/events/:slug/waiting-list',
    {
      config: { capability: 'orders.view' },
      schema: {
        tags: ['waiting list'],
        summary: 'Waiting list entries of an event, oldest first, with a cursor',
        params: slugParams,
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'string', description: 'page size, default 50, clamped to 1..200' },
            after: { type: 'string', description: 'entry id cursor: next_after of the previous page' },
          },
        },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['entries', 'next_after'],
            properties: {
              entries: { type: 'array', items: { $ref: 'WaitingListEntry#' } },
              next_after: { type: ['string', 'null'] },
            },
          },
          ...errorResponses(401, 403, 404, 429, 500),
        },
      },
    },
    async (request) => {
      const event = await loadVisibleEvent(app.ctx, principalOf(request), request.params.slug);
      const limit = Number.parseInt(request.query.limit ?? '', 10);
      const after = Number.parseInt(request.query.after ?? '', 10);
      return listWaitingList(app.ctx, event, {
        ...(Number.isFinite(limit) ? { limit } : {}),
        ...(Number.isSafeInteger(after) && after >= 0 ? { after } : {}),
      });
    },
  );

  app.post<{ Params: { slug: string }; Body: JoinInput }>(
    '/events/:slug/waiting-list',
    {
      config: { capability: 'orders.manage', ...invalid },
      schema: {
        tags: ['waiting list'],
        summary: 'Add a person to the waiting list of a ticket type (mails the confirmation; free units are offered at once)',
        params: slugParams,
        body: joinBody,
        response: { 201: { $ref: 'WaitingListEntry#' }, ...errorResponses(401, 403, 404, 409, 415, 422, 429, 500) },
      },
    },
    async (request, reply) => {
      const event = await loadVisibleEvent(app.ctx, principalOf(request), request.params.slug);
      return reply.code(201).send(await joinWaitingList(app.ctx, event, request.body));
    },
  );

  app.delete<{ Params: { slug: string; id: string } }>(
    '/events/:slug/waiting-list/:id',
    {
      config: { capability: 'orders.manage', ...invalid },
      schema: {
        tags: ['waiting list'],
        summary: "Remove an entry; an offered one's pending order is canceled and its units go to the next in line",
        params: entryParams,
        response: { 204: { type: 'null', description: 'removed' }, ...errorResponses(401, 403, 404, 409, 422, 429, 500) },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const event = await loadVisibleEvent(app.ctx, p, request.params.slug);
      await removeEntry(app.ctx, event, Number(request.params.id), actorOf(p));
      return reply.code(204).send();
    },
  );
}
