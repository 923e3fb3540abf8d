import type { FastifyInstance } from 'fastify';
import { assertEventVisible, requireAllEvents } from '../../platform/http/auth.ts';
import { principalOf } from '../../platform/http/auth.ts';
import { errorResponses, nullableInteger, slugParams } from '../../platform/http/schemas.ts';
import { MAX_CAPACITY, MAX_LINE_QUANTITY, MAX_PRICE_CENTS } from '../../platform/limits.ts';
import {
  deleteEvent,
  duplicateEvent,
  getEventConfig,
  patchTicketType,
  putEventConfig,
  type TicketTypePatch,
} from './event-config.service.ts';
import { getEvent, getTicketTypes } from './events.service.ts';

/** Management API, contract section 6: the event configuration document, duplicate, ticket-type patch. */
const manage = { capability: 'events.manage' as const, validationError: { status: 422 as const, code: 'validation_failed' } };

const documentSchema = {
  type: 'object',
  additionalProperties: true,
  description:
    'The event as an account-file event object (contract section 5, account-file.schema.json $defs/event), without orders, ' +
    "every default filled in. Validated with the importer's schema and cross-checks; errors are keyed by JSON path.",
} as const;

const etagHeader = {
  ETag: { type: 'string', description: 'pass it back in If-Match to update without overwriting a concurrent change' },
};

export async function eventConfigRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { slug: string } }>(
    '/events/:slug/config',
    {
      config: manage,
      schema: {
        tags: ['management'],
        summary: 'The event configuration as a document (with an ETag)',
        params: slugParams,
        response: { 200: { ...documentSchema, headers: etagHeader }, ...errorResponses(401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      assertEventVisible(p, request.params.slug);
      const config = await getEventConfig(app.ctx, p.accountId, request.params.slug);
      void reply.header('etag', config.etag);
      return config.document;
    },
  );

  app.put<{ Params: { slug: string }; Headers: { 'if-match'?: string } }>(
    '/events/:slug/config',
    {
      config: manage,
      schema: {
        tags: ['management'],
        summary: 'Create the event (new slug, 201) or apply the document to it (200), in one transaction',
        description:
          'Items are matched by key; an item left out is deleted when nothing refers to it, else archived. ' +
          'If-Match: 412 precondition_failed when the event changed since that ETag. 409 conflict names the JSON path of a ' +
          'change existing orders forbid; 422 validation_failed has fields keyed by JSON path.',
        params: slugParams,
        headers: { type: 'object', properties: { 'if-match': { type: 'string' } } },
        body: documentSchema,
        response: {
          200: { ...documentSchema, headers: etagHeader },
          201: { ...documentSchema, headers: etagHeader },
          ...errorResponses(400, 401, 403, 404, 409, 412, 413, 415, 422, 429, 500),
        },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      assertEventVisible(p, request.params.slug);
      const result = await putEventConfig(app.ctx, p.accountId, request.params.slug, request.body, request.headers['if-match']);
      return reply
        .code(result.created ? 201 : 200)
        .header('etag', result.etag)
        .send(result.document);
    },
  );

  app.delete<{ Params: { slug: string } }>(
    '/events/:slug',
    {
      config: manage,
      schema: {
        tags: ['management'],
        summary: 'Delete an event that has no orders (204); one with orders is 409 conflict (archive it instead)',
        params: slugParams,
        response: { 204: { type: 'null' }, ...errorResponses(401, 403, 404, 409, 429, 500) },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      assertEventVisible(p, request.params.slug);
      await deleteEvent(app.ctx, p.accountId, request.params.slug);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { slug: string }; Body: { slug: string; name?: string; starts_at?: string } }>(
    '/events/:slug/duplicate',
    {
      config: manage,
      schema: {
        tags: ['management'],
        summary: 'A new event with the same configuration and no orders; dates move with starts_at',
        params: slugParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['slug'],
          properties: {
            slug: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' },
            name: { type: 'string', minLength: 1, maxLength: 200 },
            starts_at: { type: 'string', format: 'date-time' },
          },
        },
        response: { 201: { $ref: 'Event#' }, ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429, 500) },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      assertEventVisible(p, request.params.slug);
      // the copy is a new event: a token limited to some events may not make events outside its list
      if (p.eventSlugs !== null && !p.eventSlugs.has(request.body.slug)) requireAllEvents(p);
      const slug = await duplicateEvent(app.ctx, p.accountId, request.params.slug, request.body);
      return reply.code(201).send(await getEvent(app.ctx, p, slug));
    },
  );

  app.patch<{ Params: { slug: string; id: string }; Body: TicketTypePatch }>(
    '/events/:slug/ticket-types/:id',
    {
      config: manage,
      schema: {
        tags: ['management'],
        summary: 'Change a ticket type (merge); the same rules and errors as the configuration document',
        params: {
          type: 'object',
          required: ['slug', 'id'],
          properties: { slug: { type: 'string' }, id: { type: 'string', pattern: '^[1-9][0-9]{0,14}$' } },
        },
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 200 },
            price_cents: { type: 'integer', minimum: 0, maximum: MAX_PRICE_CENTS },
            capacity: { ...nullableInteger, minimum: 0, maximum: MAX_CAPACITY },
            max_per_order: { ...nullableInteger, minimum: 1, maximum: MAX_LINE_QUANTITY },
            on_sale: { type: 'boolean' },
            position: { type: 'integer', minimum: 0, maximum: 1_000_000 },
          },
        },
        response: { 200: { $ref: 'TicketType#' }, ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429, 500) },
      },
    },
    async (request) => {
      const p = principalOf(request);
      assertEventVisible(p, request.params.slug);
      const id = Number(request.params.id);
      await patchTicketType(app.ctx, p.accountId, request.params.slug, id, request.body);
      const types = await getTicketTypes(app.ctx, p, request.params.slug);
      const type = types.find((t) => t.id === id);
      if (!type) throw new Error('patched ticket type vanished');
      return type;
    },
  );
}
