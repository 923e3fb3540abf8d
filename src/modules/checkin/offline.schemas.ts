import { nullableTimestamp } from '../../platform/http/schemas.ts';
import { ticketSeatSchema } from '../orders/orders.schemas.ts';

/** Schemas of the offline check-in exchange (contract section 9), shared by the API and the console's scanner. */

export const syncQuerySchema = {
  type: 'object',
  properties: {
    cursor: { type: 'string', maxLength: 200, description: 'next_cursor of the previous page; none: from the start' },
    limit: { type: 'string', maxLength: 20, description: 'tickets per page, 1..5000 (default 500)' },
  },
} as const;

export const syncResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['tickets', 'next_cursor', 'has_more'],
  properties: {
    tickets: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'id',
          'reference',
          'ticket_type',
          'ticket_type_slug',
          'attendee_name',
          'seat',
          'qr_sha256',
          'status',
          'checked_in_at',
        ],
        properties: {
          id: { type: 'integer' },
          reference: { type: 'string' },
          ticket_type: { type: 'string' },
          ticket_type_slug: { type: 'string' },
          attendee_name: { type: 'string' },
          seat: ticketSeatSchema,
          qr_sha256: { type: 'string', description: 'hex SHA-256 of the qr_code_identifier' },
          status: { type: 'string', enum: ['valid', 'void'] },
          checked_in_at: nullableTimestamp,
        },
      },
    },
    next_cursor: { type: 'string' },
    has_more: { type: 'boolean' },
  },
} as const;

export const batchBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['device', 'checkins'],
  properties: {
    device: { type: 'string', minLength: 1, maxLength: 100 },
    checkins: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['client_id', 'scanned_at'],
        properties: {
          client_id: { type: 'string', minLength: 1, maxLength: 100 },
          qr_code_identifier: { type: 'string', minLength: 1, maxLength: 200 },
          ticket_id: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
          scanned_at: { type: 'string', maxLength: 40 },
        },
      },
    },
  },
} as const;

export const batchResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['results'],
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['client_id', 'result', 'checkin_id', 'conflict', 'reason', 'first_checked_in_at'],
        properties: {
          client_id: { type: 'string' },
          result: { type: 'string', enum: ['recorded', 'duplicate_upload', 'unknown_ticket'] },
          checkin_id: { type: ['integer', 'null'] },
          conflict: { type: 'boolean' },
          reason: { type: ['string', 'null'], enum: ['already_checked_in', 'not_checkable', null] },
          first_checked_in_at: nullableTimestamp,
        },
      },
    },
  },
} as const;
