import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/http/auth.ts';
import { errorResponses, nullableTimestamp, timestamp } from '../../platform/http/schemas.ts';
import { createToken, listTokens, revokeToken, type TokenGrant } from './tokens.service.ts';

const manage = { capability: 'tokens.manage' as const, validationError: { status: 422 as const, code: 'validation_failed' } };

const tokenProperties = {
  id: { type: 'integer' },
  name: { type: 'string' },
  capabilities: { type: 'array', items: { type: 'string' } },
  scopes: { type: 'array', items: { type: 'string' } },
  events: { type: ['array', 'null'], items: { type: 'string' }, description: 'event slugs; null: every event' },
  created_at: timestamp,
  last_used_at: { ...nullableTimestamp, description: 'to the minute' },
} as const;
const tokenSchema = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(tokenProperties),
  properties: tokenProperties,
} as const;

export async function tokensRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/tokens',
    {
      config: manage,
      schema: {
        tags: ['management'],
        summary: "The account's API tokens (never their secrets); an event-limited token sees those limited to its events",
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['tokens'],
            properties: { tokens: { type: 'array', items: tokenSchema } },
          },
          ...errorResponses(401, 403, 429, 500),
        },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return { tokens: await listTokens(app.ctx.db, p.accountId, p.eventSlugs) };
    },
  );

  app.post<{ Body: TokenGrant }>(
    '/tokens',
    {
      config: manage,
      schema: {
        tags: ['management'],
        summary:
          'Create a token; its secret is in this answer only. A token grants at most what the calling token holds (else 403)',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'capabilities'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 200 },
            capabilities: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 64 } },
            scopes: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 64 } },
            events: { type: ['array', 'null'], maxItems: 1000, items: { type: 'string', maxLength: 200 } },
          },
        },
        response: {
          201: {
            type: 'object',
            additionalProperties: false,
            required: [...Object.keys(tokenProperties), 'secret'],
            properties: { ...tokenProperties, secret: { type: 'string', description: 'the bearer value, shown once' } },
          },
          ...errorResponses(401, 403, 415, 422, 429, 500),
        },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const made = await createToken(
        app.ctx,
        p.accountId,
        { capabilities: p.capabilities, scopes: p.scopes, events: p.eventSlugs },
        request.body,
      );
      return reply.code(201).send({ ...made.token, secret: made.secret });
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/tokens/:id',
    {
      config: manage,
      schema: {
        tags: ['management'],
        summary: 'Revoke a token (at once on this instance; within 5 s on others)',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^[1-9][0-9]{0,14}$' } } },
        response: { 204: { type: 'null', description: 'revoked' }, ...errorResponses(401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      await revokeToken(
        app.ctx,
        p.accountId,
        { capabilities: p.capabilities, scopes: p.scopes, events: p.eventSlugs },
        Number(request.params.id),
      );
      return reply.code(204).send();
    },
  );
}
