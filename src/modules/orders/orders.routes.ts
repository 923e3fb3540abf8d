import type { FastifyInstance } from 'fastify';
import { actorOf, canSeeEvent } from '../../platform/http/auth.ts';
import { resendOrderMail } from './resend.service.ts';
import { parseOrderFilter } from './order-search.repo.ts';
import { csvKindOf, exportOrdersCsv } from './orders-csv.service.ts';
import { principalOf } from '../../platform/http/auth.ts';
import {
  createdOrderSchema,
  createOrderBody,
  errorResponses,
  orderDetailSchema,
  orderSchema,
  patchOrderBody,
  refParams,
  slugParams,
} from './orders.schemas.ts';
import {
  createOrderViaApi,
  replayIdempotentOrder,
  getOrder,
  listEventOrders,
  patchBuyer,
  type CreateOrderBody,
  type PatchBuyerBody,
} from './orders.service.ts';

const invalidBody = { validationError: { status: 422 as const, code: 'invalid_body' } };

export async function ordersRoutes(app: FastifyInstance): Promise<void> {
  app.addSchema(orderSchema);

  app.get<{ Params: { slug: string }; Querystring: { limit?: string; after?: string } }>(
    '/events/:slug/orders',
    {
      config: { capability: 'orders.view' },
      schema: {
        tags: ['orders'],
        summary: 'Orders of an event, newest first, with a cursor',
        params: slugParams,
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'string', description: 'page size, default 50, clamped to 1..200' },
            after: { type: 'string', description: 'order ref cursor: next_after of the previous page' },
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['orders', 'next_after'],
            properties: { orders: { type: 'array', items: { $ref: 'Order#' } }, next_after: { type: ['string', 'null'] } },
          },
          ...errorResponses(401, 403, 404, 429, 500),
        },
      },
    },
    async (request) => listEventOrders(app.ctx, principalOf(request), request.params.slug, request.query),
  );

  app.get<{ Params: { slug: string }; Querystring: Record<string, string> }>(
    '/events/:slug/orders.csv',
    {
      config: { capability: 'orders.view' },
      schema: {
        tags: ['orders'],
        summary: 'Orders or attendees as CSV (UTF-8 with BOM), newest first, filtered like the orders desk',
        params: slugParams,
        querystring: {
          type: 'object',
          properties: {
            kind: {
              type: 'string',
              maxLength: 20,
              description: 'orders (a row per order, the default) or attendees (a row per ticket)',
            },
            q: {
              type: 'string',
              maxLength: 200,
              description: 'order or ticket reference, buyer name (part of it) or email (its start)',
            },
            status: { type: 'string', maxLength: 20, description: 'pending, paid, refunded or canceled' },
            ticket_type: { type: 'string', maxLength: 200, description: 'orders with a line of this ticket type (its key)' },
            code: { type: 'string', maxLength: 200, description: 'orders with this discount code; "-" for orders without one' },
            from: { type: 'string', maxLength: 20, description: 'created on or after this date (YYYY-MM-DD, event timezone)' },
            to: { type: 'string', maxLength: 20, description: 'created on or before this date (YYYY-MM-DD, event timezone)' },
          },
        },
        produces: ['text/csv'],
        response: { 200: { type: 'string', description: 'CSV text' }, ...errorResponses(401, 403, 404, 422, 429, 500) },
      },
    },
    async (request, reply) => {
      const filter = parseOrderFilter(request.query);
      const kind = csvKindOf(request.query.kind);
      const { filename, stream } = await exportOrdersCsv(app.ctx, principalOf(request), request.params.slug, kind, filter);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );

  app.post<{ Params: { slug: string }; Body: CreateOrderBody; Headers: { 'idempotency-key'?: string } }>(
    '/events/:slug/orders',
    {
      config: { capability: 'orders.manage', ...invalidBody },
      schema: {
        tags: ['orders'],
        summary: 'Create an order through the checkout pipeline',
        description:
          '404 not_found: unknown event, or one buyers cannot see (a draft, an archived event). 422: invalid_body, ' +
          "invalid_idempotency_key, sales_closed, sales_not_started (before the event's sales_start_at; the body " +
          'carries sales_start_at), invalid_items, email_required, amount_too_small. 409: sold_out.',
        params: slugParams,
        headers: { type: 'object', properties: { 'idempotency-key': { type: 'string', description: 'at most 200 characters' } } },
        body: createOrderBody,
        response: { 200: createdOrderSchema, 201: createdOrderSchema, ...errorResponses(401, 403, 404, 409, 422, 429, 500) },
      },
      preValidation: async (request, reply) => {
        const key = request.headers['idempotency-key'];
        const replay = await replayIdempotentOrder(app.ctx, principalOf(request), typeof key === 'string' ? key : undefined);
        if (replay) return reply.code(200).send(replay);
      },
    },
    async (request, reply) => {
      const { created, order } = await createOrderViaApi(
        app.ctx,
        principalOf(request),
        request.params.slug,
        request.body,
        request.headers['idempotency-key'],
      );
      return reply.code(created ? 201 : 200).send(order);
    },
  );

  app.get<{ Params: { ref: string } }>(
    '/orders/:ref',
    {
      config: { capability: 'orders.view' },
      schema: {
        tags: ['orders'],
        summary: 'One order with its tickets and answers',
        params: refParams,
        response: { 200: orderDetailSchema, ...errorResponses(401, 403, 404, 429, 500) },
      },
    },
    async (request) => getOrder(app.ctx, principalOf(request), request.params.ref),
  );

  app.patch<{ Params: { ref: string }; Body: PatchBuyerBody }>(
    '/orders/:ref',
    {
      config: { capability: 'orders.manage', ...invalidBody },
      schema: {
        tags: ['orders'],
        summary: "Correct the buyer's name and email (nothing is emailed)",
        params: refParams,
        body: patchOrderBody,
        response: { 200: { $ref: 'Order#' }, ...errorResponses(401, 403, 404, 422, 429, 500) },
      },
    },
    async (request) => patchBuyer(app.ctx, principalOf(request), request.params.ref, request.body),
  );

  app.post<{ Params: { ref: string } }>(
    '/orders/:ref/resend',
    {
      config: { capability: 'orders.manage' },
      schema: {
        tags: ['orders'],
        summary: "Send the buyer's mail again: tickets (paid) or the pay link (pending); queued, 202",
        params: refParams,
        response: {
          202: {
            type: 'object',
            additionalProperties: false,
            required: ['ref', 'sent'],
            properties: { ref: { type: 'string' }, sent: { type: 'string', enum: ['tickets', 'pay_link'] } },
          },
          ...errorResponses(401, 403, 404, 422, 429, 500),
        },
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      const result = await resendOrderMail(app.ctx, p.accountId, request.params.ref, (slug) => canSeeEvent(p, slug), actorOf(p));
      return reply.code(202).send(result);
    },
  );
}
