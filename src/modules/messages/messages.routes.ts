import type { FastifyInstance } from 'fastify';
import { actorOf, principalOf } from '../../platform/http/auth.ts';
import { errorResponses, slugParams } from '../../platform/http/schemas.ts';
import { loadVisibleEvent } from '../events/events.service.ts';
import { messageBody, messageSchema } from './messages.schemas.ts';
import { createMessage, listMessages, type MessageInput } from './messages.service.ts';

const invalid = { validationError: { status: 422 as const, code: 'validation_failed' } };

/** Messages to an event's attendees (contract section 15): write one, list them with their counts. */
export async function messagesRoutes(app: FastifyInstance): Promise<void> {
  app.addSchema(messageSchema);

  app.get<{ Params: { slug: string }; Querystring: { limit?: string; after?: string } }>(
    '/events/:slug/messages',
    {
      config: { capability: 'orders.view' },
      schema: {
        tags: ['messages'],
        summary: "An event's messages to attendees, newest first, with their delivery counts",
        params: slugParams,
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'string', description: 'page size, default 50, clamped to 1..200' },
            after: { type: 'string', description: 'message id cursor: next_after of the previous page' },
          },
        },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['messages', 'next_after'],
            properties: {
              messages: { type: 'array', items: { $ref: 'Message#' } },
              next_after: { type: ['integer', 'null'] },
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
      return listMessages(app.ctx, event, {
        ...(Number.isFinite(limit) ? { limit } : {}),
        ...(Number.isSafeInteger(after) && after > 0 ? { after } : {}),
      });
    },
  );

  app.post<{ Params: { slug: string }; Body: MessageInput }>(
    '/events/:slug/messages',
    {
      config: { capability: 'orders.manage', ...invalid },
      schema: {
        tags: ['messages'],
        summary: 'Write a message to the buyers of matching orders: one mail per order, now or at send_at',
        params: slugParams,
        body: messageBody,
        response: {
          202: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'recipients'],
            properties: { id: { type: 'integer' }, recipients: { type: 'integer' } },
          },
          ...errorResponses(400, 401, 403, 404, 413, 415, 422, 429, 500),
        },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const event = await loadVisibleEvent(app.ctx, p, request.params.slug);
      const { id, recipients } = await createMessage(app.ctx, event, request.body, actorOf(p));
      return reply.code(202).send({ id, recipients });
    },
  );
}
