import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/http/auth.ts';
import { errorResponses, nullableInteger, slugParams } from '../../platform/http/schemas.ts';
import { MAX_PRICE_CENTS } from '../../platform/limits.ts';
import { loadVisibleEvent } from '../events/events.service.ts';
import { createCodes, listCodes, MAX_GENERATED, removeCode, type CreateCodes } from './discounts.service.ts';

const manage = { capability: 'events.manage' as const, validationError: { status: 422 as const, code: 'validation_failed' } };

const codeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'percent_off', 'amount_off', 'max_uses', 'ticket_types', 'used', 'disabled'],
  properties: {
    code: { type: 'string' },
    percent_off: nullableInteger,
    amount_off: { ...nullableInteger, description: 'minor units of the event currency' },
    max_uses: { ...nullableInteger, description: 'null: unlimited' },
    ticket_types: {
      type: ['array', 'null'],
      items: { type: 'integer' },
      description: 'ticket type ids; null: every ticket type',
    },
    used: { type: 'integer', description: 'redemptions so far (read-only)' },
    disabled: { type: 'boolean', description: 'removed after it was redeemed: refused at checkout' },
  },
} as const;

const terms = {
  percent_off: { type: 'integer', minimum: 1, maximum: 100 },
  amount_off: { type: 'integer', minimum: 1, maximum: MAX_PRICE_CENTS },
  max_uses: { ...nullableInteger, minimum: 1, maximum: 1_000_000_000 },
  // ids past 2^53 cannot name a row (JSON reads them rounded), and past 2^63 not even be looked up
  ticket_types: {
    type: ['array', 'null'],
    maxItems: 500,
    items: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  },
} as const;

export async function discountsRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { slug: string }; Querystring: { limit?: string; after?: string } }>(
    '/events/:slug/discount-codes',
    {
      config: manage,
      schema: {
        tags: ['management'],
        summary: 'Discount codes of an event, by code, with a cursor',
        params: slugParams,
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'string', description: 'page size, default 50, clamped to 1..200' },
            after: { type: 'string', description: 'next_after of the previous page' },
          },
        },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['discount_codes', 'next_after'],
            properties: { discount_codes: { type: 'array', items: codeSchema }, next_after: { type: ['string', 'null'] } },
          },
          ...errorResponses(401, 403, 404, 429, 500),
        },
      },
    },
    async (request) => {
      const event = await loadVisibleEvent(app.ctx, principalOf(request), request.params.slug);
      return listCodes(app.ctx.db, event.id, request.query);
    },
  );

  app.post<{ Params: { slug: string }; Body: CreateCodes }>(
    '/events/:slug/discount-codes',
    {
      config: manage,
      schema: {
        tags: ['management'],
        summary: `Create one code, or generate up to ${MAX_GENERATED} unique random codes with {count, prefix}`,
        params: slugParams,
        body: {
          oneOf: [
            {
              type: 'object',
              additionalProperties: false,
              required: ['code'],
              properties: { code: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' }, ...terms },
            },
            {
              type: 'object',
              additionalProperties: false,
              required: ['count'],
              properties: {
                count: { type: 'integer', minimum: 1, maximum: MAX_GENERATED },
                prefix: { type: 'string', pattern: '^[A-Za-z0-9_-]{0,24}$' },
                ...terms,
              },
            },
          ],
        },
        response: {
          201: {
            oneOf: [
              codeSchema,
              {
                type: 'object',
                additionalProperties: false,
                required: ['discount_codes'],
                properties: { discount_codes: { type: 'array', items: codeSchema } },
              },
            ],
          },
          ...errorResponses(401, 403, 404, 409, 415, 422, 429, 500),
        },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const event = await loadVisibleEvent(app.ctx, p, request.params.slug);
      const made = await createCodes(app.ctx, p.accountId, event.id, request.body);
      return reply.code(201).send('single' in made ? made.single : { discount_codes: made.many });
    },
  );

  app.delete<{ Params: { slug: string; code: string } }>(
    '/events/:slug/discount-codes/:code',
    {
      config: manage,
      schema: {
        tags: ['management'],
        summary: 'Delete a code; one already redeemed is disabled instead (refused at checkout, kept for reports)',
        params: {
          type: 'object',
          required: ['slug', 'code'],
          properties: { slug: { type: 'string' }, code: { type: 'string' } },
        },
        response: { 204: { type: 'null', description: 'deleted or disabled' }, ...errorResponses(401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => {
      const event = await loadVisibleEvent(app.ctx, principalOf(request), request.params.slug);
      await removeCode(app.ctx.db, event.id, request.params.code, app.ctx.clock.now());
      return reply.code(204).send();
    },
  );
}
