import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/http/auth.ts';
import { errorResponses, nullableTimestamp, timestamp } from '../../platform/http/schemas.ts';
import { WEBHOOK_TYPES } from './types.ts';
import {
  createEndpoint,
  deleteEndpoint,
  deliveryAttempts,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  redeliverFailed,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
  type EndpointInput,
} from './webhooks.service.ts';

// endpoints belong to the account and receive every event's orders: no event-limited token
const manage = {
  capability: 'webhooks.manage' as const,
  allEvents: true,
  validationError: { status: 422 as const, code: 'validation_failed' },
};

const endpointProperties = {
  id: { type: 'integer' },
  url: { type: 'string' },
  events: { type: 'array', items: { type: 'string', enum: [...WEBHOOK_TYPES] }, description: '[]: every type' },
  description: { type: 'string' },
  enabled: { type: 'boolean' },
  created_at: timestamp,
  disabled_reason: { type: ['string', 'null'], description: 'why admit disabled it (410, five days of failures)' },
} as const;
const endpointSchema = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(endpointProperties),
  properties: endpointProperties,
} as const;
const withSecret = {
  type: 'object',
  additionalProperties: false,
  required: [...Object.keys(endpointProperties), 'secret'],
  properties: { ...endpointProperties, secret: { type: 'string', description: 'whsec_…, shown only here' } },
} as const;
const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[1-9][0-9]{0,14}$' } },
} as const;
const inputProperties = {
  url: { type: 'string', minLength: 1, maxLength: 2000 },
  events: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 64 } },
  description: { type: 'string', maxLength: 500 },
} as const;

export async function webhooksRoutes(app: FastifyInstance): Promise<void> {
  const tags = ['webhooks'];
  const acct = (request: Parameters<typeof principalOf>[0]) => principalOf(request).accountId;

  app.get(
    '/webhook-endpoints',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Webhook endpoints (no secrets)',
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['webhook_endpoints'],
            properties: { webhook_endpoints: { type: 'array', items: endpointSchema } },
          },
          ...errorResponses(401, 403, 429, 500),
        },
      },
    },
    async (request) => ({ webhook_endpoints: await listEndpoints(app.ctx.db, acct(request)) }),
  );

  app.post<{ Body: EndpointInput }>(
    '/webhook-endpoints',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Create an endpoint; the signing secret is in this answer only',
        body: { type: 'object', additionalProperties: false, required: ['url'], properties: inputProperties },
        response: { 201: withSecret, ...errorResponses(401, 403, 415, 422, 429, 500) },
      },
    },
    async (request, reply) => reply.code(201).send(await createEndpoint(app.ctx, acct(request), request.body)),
  );

  app.get<{ Params: { id: string } }>(
    '/webhook-endpoints/:id',
    {
      config: manage,
      schema: {
        tags,
        summary: 'One endpoint',
        params: idParams,
        response: { 200: endpointSchema, ...errorResponses(401, 403, 404, 429, 500) },
      },
    },
    async (request) => getEndpoint(app.ctx.db, acct(request), Number(request.params.id)),
  );

  app.patch<{ Params: { id: string }; Body: EndpointInput }>(
    '/webhook-endpoints/:id',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Change url, events, description or enabled (enabling again forgets past failures)',
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: { ...inputProperties, enabled: { type: 'boolean' } },
        },
        response: { 200: endpointSchema, ...errorResponses(401, 403, 404, 415, 422, 429, 500) },
      },
    },
    async (request) => updateEndpoint(app.ctx, acct(request), Number(request.params.id), request.body),
  );

  app.delete<{ Params: { id: string } }>(
    '/webhook-endpoints/:id',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Delete an endpoint and its delivery log',
        params: idParams,
        response: { 204: { type: 'null' }, ...errorResponses(401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => {
      await deleteEndpoint(app.ctx.db, acct(request), Number(request.params.id));
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string } }>(
    '/webhook-endpoints/:id/rotate-secret',
    {
      config: manage,
      schema: {
        tags,
        summary: 'A new signing secret (shown once); the old one also signs for 24 hours',
        params: idParams,
        response: { 200: withSecret, ...errorResponses(401, 403, 404, 429, 500) },
      },
    },
    async (request) => rotateSecret(app.ctx, acct(request), Number(request.params.id)),
  );

  app.post<{ Params: { id: string } }>(
    '/webhook-endpoints/:id/test',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Send a test event (type webhook.test) to this endpoint',
        params: idParams,
        response: {
          202: {
            type: 'object',
            additionalProperties: false,
            required: ['delivery_id'],
            properties: { delivery_id: { type: 'integer' } },
          },
          ...errorResponses(401, 403, 404, 429, 500),
        },
      },
    },
    async (request, reply) =>
      reply.code(202).send({ delivery_id: await sendTestEvent(app.ctx, acct(request), Number(request.params.id)) }),
  );

  const deliverySchema = {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'webhook_id', 'type', 'status', 'attempts', 'last_status_code', 'next_attempt_at', 'created_at'],
    properties: {
      id: { type: 'integer' },
      webhook_id: { type: 'string', description: 'the webhook-id header of every attempt' },
      type: { type: 'string' },
      status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
      attempts: { type: 'integer' },
      last_status_code: { type: ['integer', 'null'] },
      next_attempt_at: nullableTimestamp,
      created_at: timestamp,
    },
  } as const;

  app.get<{ Params: { id: string }; Querystring: { limit?: string; after?: string } }>(
    '/webhook-endpoints/:id/deliveries',
    {
      config: manage,
      schema: {
        tags,
        summary: 'The delivery log, newest first',
        params: idParams,
        querystring: { type: 'object', properties: { limit: { type: 'string' }, after: { type: 'string' } } },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['deliveries', 'next_after'],
            properties: { deliveries: { type: 'array', items: deliverySchema }, next_after: { type: ['string', 'null'] } },
          },
          ...errorResponses(401, 403, 404, 429, 500),
        },
      },
    },
    async (request) => listDeliveries(app.ctx.db, acct(request), Number(request.params.id), request.query),
  );

  const deliveryParams = {
    type: 'object',
    required: ['id', 'delivery_id'],
    properties: {
      id: { type: 'string', pattern: '^[1-9][0-9]{0,14}$' },
      delivery_id: { type: 'string', pattern: '^[1-9][0-9]{0,14}$' },
    },
  } as const;

  app.get<{ Params: { id: string; delivery_id: string } }>(
    '/webhook-endpoints/:id/deliveries/:delivery_id/attempts',
    {
      config: manage,
      schema: {
        tags,
        summary: "A delivery's attempts: status code, duration, error, the receiver's answer (capped at 1 KiB)",
        params: deliveryParams,
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['attempts'],
            properties: {
              attempts: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['at', 'status_code', 'duration_ms', 'error', 'response_body'],
                  properties: {
                    at: timestamp,
                    status_code: { type: ['integer', 'null'] },
                    duration_ms: { type: 'integer' },
                    error: { type: ['string', 'null'] },
                    response_body: { type: ['string', 'null'] },
                  },
                },
              },
            },
          },
          ...errorResponses(401, 403, 404, 429, 500),
        },
      },
    },
    async (request) => {
      const rows = await deliveryAttempts(
        app.ctx.db,
        acct(request),
        Number(request.params.id),
        Number(request.params.delivery_id),
      );
      return { attempts: rows.map((r) => ({ ...r, at: new Date(r.at).toISOString().replace('.000Z', 'Z') })) };
    },
  );

  app.post<{ Params: { id: string; delivery_id: string } }>(
    '/webhook-endpoints/:id/deliveries/:delivery_id/redeliver',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Send a delivery again (same webhook-id and body)',
        params: deliveryParams,
        response: {
          202: { type: 'object', additionalProperties: false, properties: {} },
          ...errorResponses(401, 403, 404, 429, 500),
        },
      },
    },
    async (request, reply) => {
      await redeliver(app.ctx, acct(request), Number(request.params.id), Number(request.params.delivery_id));
      return reply.code(202).send({});
    },
  );

  app.post<{ Params: { id: string }; Body: { since: string } }>(
    '/webhook-endpoints/:id/redeliver-failed',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Send again every failed delivery created since a time',
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['since'],
          properties: { since: { type: 'string', format: 'date-time' } },
        },
        response: {
          202: {
            type: 'object',
            additionalProperties: false,
            required: ['redelivered'],
            properties: { redelivered: { type: 'integer' } },
          },
          ...errorResponses(401, 403, 404, 415, 422, 429, 500),
        },
      },
    },
    async (request, reply) =>
      reply.code(202).send({
        redelivered: await redeliverFailed(app.ctx, acct(request), Number(request.params.id), new Date(request.body.since)),
      }),
  );
}
