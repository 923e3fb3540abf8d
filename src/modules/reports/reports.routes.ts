import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/http/auth.ts';
import { errorResponses, slugParams } from '../../platform/http/schemas.ts';
import type { ReportQuery } from './orders-report.service.ts';
import { getAvailability, getIncome, getOrdersReport, getSavedReports } from './reports.service.ts';

// Report parameters clamp, never fail: accept a string or a repeated key, and read the first.
const param = (description: string) => ({
  anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
  description,
});
const rangeParams = {
  range: param('30d (default), 7d, 24h, month, all, custom'),
  from: param('YYYY-MM-DD, custom only, in the event timezone'),
  to: param('YYYY-MM-DD inclusive, custom only'),
  on: param('paid (default) or started'),
};

const money = { type: 'integer' } as const;
const incomeFigures = {
  orders: money,
  gross_cents: money,
  discount_cents: money,
  refund_cents: money,
  refunded_orders: money,
  collected_cents: money,
  tax_cents: money,
  fees_cents: money,
  platform_fee_cents: money,
  unpriced_payments: money,
  net_cents: money,
  pending_cents: money,
  pending_orders: money,
};

const incomeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['range', 'from', 'to', 'on', 'timezone', 'currency', 'discount_codes', 'months', ...Object.keys(incomeFigures)],
  properties: {
    range: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    on: { type: 'string', enum: ['paid', 'started'] },
    timezone: { type: 'string' },
    currency: { type: 'string' },
    ...incomeFigures,
    discount_codes: { type: 'array', items: { type: 'string' } },
    months: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['month', ...Object.keys(incomeFigures)],
        properties: { month: { type: 'string' }, ...incomeFigures },
      },
    },
  },
} as const;

const availabilityRow = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'name', 'capacity', 'sold', 'pending', 'taken', 'via_portals', 'portals', 'remaining', 'status'],
  properties: {
    kind: { type: 'string', enum: ['tickets', 'sessions', 'goods', 'donations'] },
    name: { type: 'string' },
    capacity: { type: ['integer', 'null'] },
    sold: money,
    pending: money,
    taken: money,
    via_portals: money,
    portals: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['portal', 'units'],
        properties: { portal: { type: 'string' }, units: money },
      },
    },
    remaining: { type: ['integer', 'null'] },
    status: { type: 'string', enum: ['', 'sold out', 'off sale'] },
  },
} as const;

const reportRow = {
  type: 'object',
  additionalProperties: false,
  required: ['key', 'orders', 'units', 'gross_cents', 'discount_cents', 'amount_cents', 'refund_cents', 'currency'],
  properties: {
    key: { type: 'string' },
    orders: money,
    units: money,
    gross_cents: money,
    discount_cents: money,
    amount_cents: money,
    refund_cents: money,
    currency: { type: 'string' },
  },
} as const;

const ordersReportSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['group', 'range', 'from', 'to', 'on', 'status', 'audience', 'timezone', 'currency', 'rows', 'totals'],
  properties: {
    source: { type: 'string' },
    group: { type: 'string' },
    range: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    on: { type: 'string' },
    status: { type: 'string' },
    audience: { type: 'string' },
    code: { type: 'string' },
    paid: { type: 'boolean' },
    timezone: { type: 'string' },
    currency: { type: 'string' },
    rows: { type: 'array', items: reportRow },
    totals: reportRow,
  },
} as const;

export async function reportsRoutes(app: FastifyInstance): Promise<void> {
  const common = { config: { capability: 'events.view' as const } };

  app.get<{ Params: { slug: string }; Querystring: ReportQuery }>(
    '/events/:slug/income',
    {
      ...common,
      schema: {
        tags: ['reports'],
        summary: 'Income and deductions, by month in the event timezone',
        params: slugParams,
        querystring: { type: 'object', properties: rangeParams },
        response: { 200: incomeSchema, ...errorResponses(401, 403, 404, 429, 500) },
      },
    },
    async (request) => getIncome(app.ctx, principalOf(request), request.params.slug, request.query),
  );

  app.get<{ Params: { slug: string } }>(
    '/events/:slug/availability',
    {
      ...common,
      schema: {
        tags: ['reports'],
        summary: 'Availability of every sellable thing',
        params: slugParams,
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['rows', 'listed', 'sold', 'pending', 'sold_out'],
            properties: {
              rows: { type: 'array', items: availabilityRow },
              listed: money,
              sold: money,
              pending: money,
              sold_out: money,
            },
          },
          ...errorResponses(401, 403, 404, 429, 500),
        },
      },
    },
    async (request) => getAvailability(app.ctx, principalOf(request), request.params.slug),
  );

  app.get<{ Params: { slug: string }; Querystring: ReportQuery }>(
    '/events/:slug/report',
    {
      ...common,
      schema: {
        tags: ['reports'],
        summary: 'Orders grouped by one axis',
        params: slugParams,
        querystring: {
          type: 'object',
          properties: {
            ...rangeParams,
            source: param('orders (default); anything else is 400 unsupported_source'),
            group: param('day (default), week, month, audience, status, code'),
            status: param('paid, pending, refunded, canceled'),
            audience: param('audience slug, or - for orders off the event page'),
            code: param('codes comma-joined in redemption order, or - for none'),
            currency: param('a currency the event sells in'),
            paid: param('1 keeps only orders that took money'),
          },
        },
        response: { 200: ordersReportSchema, ...errorResponses(400, 401, 403, 404, 429, 500) },
      },
    },
    async (request) => getOrdersReport(app.ctx, principalOf(request), request.params.slug, request.query),
  );

  app.get<{ Params: { slug: string } }>(
    '/events/:slug/reports',
    {
      ...common,
      schema: {
        tags: ['reports'],
        summary: 'Saved reports, oldest first',
        params: slugParams,
        response: {
          200: {
            type: 'object',
            required: ['reports'],
            properties: {
              reports: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['id', 'name', 'query', 'created_at'],
                  properties: {
                    id: { type: 'integer' },
                    name: { type: 'string' },
                    query: { type: 'string' },
                    created_at: { type: 'string', format: 'date-time' },
                  },
                },
              },
            },
          },
          ...errorResponses(401, 403, 429, 500),
        },
      },
    },
    async (request) => ({ reports: await getSavedReports(app.ctx, principalOf(request), request.params.slug) }),
  );
}
