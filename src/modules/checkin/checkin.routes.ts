import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/http/auth.ts';
import { errorResponses, timestamp } from '../../platform/http/schemas.ts';
import { ticketSeatSchema } from '../orders/orders.schemas.ts';
import {
  checkInOrder,
  checkInTicket,
  flag,
  getCheckableOrders,
  getCheckableTickets,
  getCheckinList,
  getCheckinLists,
  getCheckins,
} from './checkin.service.ts';
import { emptyJsonIsNoBody } from '../../platform/http/lenient-json.ts';
import { batchBodySchema, batchResponseSchema, syncQuerySchema, syncResponseSchema } from './offline.schemas.ts';
import { syncList, uploadScans, type ScanUpload } from './offline.service.ts';
import { paginationMetaSchema, pagingQuerySchema } from '../../platform/db/paging.ts';

const listSchema = {
  $id: 'CheckinList',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'checked_in_count', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    checked_in_count: { type: 'integer' },
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;

const str = { type: 'string', maxLength: 200 } as const;
const eventParams = {
  type: 'object',
  required: ['account', 'event'],
  properties: { account: str, event: str },
} as const;
const listParams = (idName: string, extra: Record<string, unknown> = {}) =>
  ({
    type: 'object',
    required: ['account', 'event', idName, ...Object.keys(extra)],
    properties: {
      account: str,
      event: str,
      [idName]: { type: 'string', maxLength: 40, description: 'check-in list id (integer)' },
      ...extra,
    },
  }) as const;

const ticketCheckinBody = {
  type: ['object', 'null'],
  properties: {
    qr_code_scanned: { anyOf: [{ type: 'boolean' }, { type: 'string' }], description: 'default true' },
    online: { anyOf: [{ type: 'boolean' }, { type: 'string' }], description: 'default true' },
  },
} as const;

const orderCheckinBody = {
  type: ['object', 'null'],
  description:
    'ticket-type slug -> number of tickets of that type to check in (form or JSON); none given: every ticket not yet checked in. ' +
    'qr_code_scanned and online (booleans, default true) may be sent too.',
  additionalProperties: { anyOf: [{ type: 'integer' }, { type: 'string' }, { type: 'boolean' }] },
} as const;

const tags = ['check-in'];
const resp = (ok: Record<string, unknown>, ...errors: number[]) => ({ 200: ok, ...errorResponses(...errors) });
/** A page of a list's check-ins, orders or tickets: the items under `key` and the paging meta. */
const page = (key: string, item: Record<string, unknown>) => ({
  type: 'object',
  required: [key, 'meta'],
  properties: {
    [key]: { type: 'array', items: { type: 'object', additionalProperties: false, ...item } },
    meta: paginationMetaSchema,
  },
});

export async function checkinRoutes(app: FastifyInstance): Promise<void> {
  app.addSchema(listSchema);
  emptyJsonIsNoBody(app);
  const base = '/:account/:event/checkin_lists';

  app.get(base, {
    schema: {
      tags,
      summary: 'Check-in lists of an event',
      params: eventParams,
      querystring: {
        type: 'object',
        properties: { ...pagingQuerySchema.properties, q: { description: 'case-insensitive search in the name' } },
      },
      response: resp(
        {
          type: 'object',
          required: ['checkin_lists', 'meta'],
          properties: {
            checkin_lists: { type: 'array', items: { $ref: 'CheckinList#' } },
            meta: {
              type: 'object',
              additionalProperties: false,
              required: ['current_page', 'next_page', 'prev_page', 'total_pages', 'total_count'],
              properties: {
                current_page: { type: 'integer' },
                next_page: { type: ['integer', 'null'] },
                prev_page: { type: ['integer', 'null'] },
                total_pages: { type: 'integer' },
                total_count: { type: 'integer' },
              },
            },
          },
        },
        401,
        403,
        404,
        429,
        500,
      ),
    },
    handler: async (request) => {
      const { event } = request.params as { event: string };
      return getCheckinLists(app.ctx, principalOf(request), event, request.query as Record<string, unknown>);
    },
  });

  app.get(`${base}/:id`, {
    schema: {
      tags,
      summary: 'One check-in list',
      params: listParams('id'),
      response: resp({ $ref: 'CheckinList#' }, 401, 403, 404, 429, 500),
    },
    handler: async (request) => {
      const { event, id } = request.params as { event: string; id: string };
      return getCheckinList(app.ctx, principalOf(request), event, id);
    },
  });

  app.get(`${base}/:checkin_list_id/checkins`, {
    schema: {
      tags,
      summary: "A list's check-ins, most recent first",
      params: listParams('checkin_list_id'),
      querystring: pagingQuerySchema,
      response: resp(
        page('checkins', {
          required: ['id', 'ticket', 'created_at', 'qr_code_scanned', 'online'],
          properties: {
            id: { type: 'integer' },
            ticket: {
              type: 'object',
              additionalProperties: false,
              required: ['id', 'reference', 'name'],
              properties: {
                id: { type: 'integer' },
                reference: { type: 'string' },
                name: { type: 'string', description: "attendee name ('' when none was given)" },
              },
            },
            created_at: timestamp,
            qr_code_scanned: { type: 'boolean' },
            online: { type: 'boolean' },
          },
        }),
        401,
        404,
        429,
        500,
      ),
    },
    handler: async (request) => {
      const { event, checkin_list_id } = request.params as { event: string; checkin_list_id: string };
      return getCheckins(app.ctx, principalOf(request), event, checkin_list_id, request.query as object);
    },
  });

  const scannable = {
    qr_code_identifier: { type: 'string', description: 'QR token for scanning' },
    qr_code_url: { type: 'string', description: 'URL encoded in the QR code' },
    url_checksum: { type: 'string', description: 'hex SHA-256 of qr_code_url' },
    reference: { type: 'string' },
  } as const;

  app.get(`${base}/:checkin_list_id/orders`, {
    schema: {
      tags,
      summary: 'Orders that can be checked in to this list',
      params: listParams('checkin_list_id'),
      querystring: pagingQuerySchema,
      response: resp(
        page('orders', {
          required: ['qr_code_identifier', 'qr_code_url', 'url_checksum', 'reference', 'order_id', 'ticket_types'],
          properties: {
            ...scannable,
            order_id: { type: 'integer' },
            ticket_types: {
              type: 'object',
              description: 'ticket-type slug -> number of checkable tickets of that type in the order',
              additionalProperties: { type: 'integer' },
            },
          },
        }),
        401,
        404,
        429,
        500,
      ),
    },
    handler: async (request) => {
      const { event, checkin_list_id } = request.params as { event: string; checkin_list_id: string };
      return getCheckableOrders(app.ctx, principalOf(request), event, checkin_list_id, request.query as object);
    },
  });

  app.get(`${base}/:checkin_list_id/tickets`, {
    schema: {
      tags,
      summary: 'Tickets that can be checked in to this list',
      params: listParams('checkin_list_id'),
      querystring: pagingQuerySchema,
      response: resp(
        page('tickets', {
          required: ['qr_code_identifier', 'qr_code_url', 'url_checksum', 'reference', 'id', 'ticket_type', 'seat'],
          properties: {
            ...scannable,
            id: { type: 'integer' },
            ticket_type: { type: 'string', description: 'name of the ticket type' },
            seat: ticketSeatSchema,
          },
        }),
        401,
        404,
        429,
        500,
      ),
    },
    handler: async (request) => {
      const { event, checkin_list_id } = request.params as { event: string; checkin_list_id: string };
      return getCheckableTickets(app.ctx, principalOf(request), event, checkin_list_id, request.query as object);
    },
  });

  const created = {
    id: { type: 'integer' },
    ticket_id: { type: 'integer' },
    ticket_reference: { type: 'string' },
    created_at: timestamp,
  } as const;

  app.post(`${base}/:checkin_list_id/orders/:order_qr_token/checkins`, {
    // spec 4.2: the one route whose parameters come as a form (JSON is read too)
    config: { forms: true },
    schema: {
      tags,
      summary: "Check in an order's tickets by its QR token",
      params: listParams('checkin_list_id', { order_qr_token: str }),
      body: orderCheckinBody,
      response: resp(
        {
          type: 'object',
          required: ['checkins'],
          properties: {
            checkins: {
              type: 'array',
              items: { type: 'object', additionalProperties: false, required: Object.keys(created), properties: created },
            },
          },
        },
        400,
        401,
        404,
        409,
        422,
        429,
        500,
      ),
    },
    handler: async (request) => {
      const { event, checkin_list_id, order_qr_token } = request.params as {
        event: string;
        checkin_list_id: string;
        order_qr_token: string;
      };
      const body = (request.body ?? {}) as Record<string, unknown>;
      return checkInOrder(app.ctx, principalOf(request), event, checkin_list_id, order_qr_token, body);
    },
  });

  app.post(`${base}/:checkin_list_id/tickets/:ticket_qr_token/checkins`, {
    // scanning apps post their optional flags the way they post the order check-in's: as a form
    config: { forms: true },
    schema: {
      tags,
      summary: 'Check in one ticket by its QR token',
      params: listParams('checkin_list_id', { ticket_qr_token: str }),
      body: ticketCheckinBody,
      response: resp(
        {
          type: 'object',
          additionalProperties: false,
          required: [...Object.keys(created), 'ticket_name', 'seat'],
          properties: {
            ...created,
            ticket_name: { type: 'string', description: "attendee name ('' when none)" },
            seat: ticketSeatSchema,
          },
        },
        400,
        401,
        404,
        409,
        422,
        429,
        500,
      ),
    },
    handler: async (request) => {
      const { event, checkin_list_id, ticket_qr_token } = request.params as {
        event: string;
        checkin_list_id: string;
        ticket_qr_token: string;
      };
      const body = (request.body ?? {}) as { qr_code_scanned?: unknown; online?: unknown };
      return checkInTicket(app.ctx, principalOf(request), event, checkin_list_id, ticket_qr_token, {
        qrCodeScanned: flag(body.qr_code_scanned),
        online: flag(body.online),
      });
    },
  });

  // offline check-in (contract section 9)
  app.get(`${base}/:checkin_list_id/sync`, {
    schema: {
      tags,
      summary: "A list's tickets for an offline scanner: everything, or what changed after a cursor",
      params: listParams('checkin_list_id'),
      querystring: syncQuerySchema,
      response: resp(syncResponseSchema, 401, 404, 422, 429, 500),
    },
    handler: async (request) => {
      const { event, checkin_list_id } = request.params as { event: string; checkin_list_id: string };
      return syncList(app.ctx, principalOf(request), event, checkin_list_id, request.query as Record<string, unknown>);
    },
  });

  app.post(`${base}/:checkin_list_id/checkins/batch`, {
    config: { validationError: { status: 422, code: 'validation_failed' } },
    schema: {
      tags,
      summary: "Upload a device's scans (offline check-in); idempotent per device and client_id",
      params: listParams('checkin_list_id'),
      body: batchBodySchema,
      response: resp(batchResponseSchema, 400, 401, 404, 422, 429, 500),
    },
    handler: async (request) => {
      const { event, checkin_list_id } = request.params as { event: string; checkin_list_id: string };
      return uploadScans(
        app.ctx,
        principalOf(request),
        event,
        checkin_list_id,
        request.body as { device: string; checkins: ScanUpload[] },
      );
    },
  });
}
