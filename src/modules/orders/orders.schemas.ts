import { errorResponses, nullableString, slugParams } from '../../platform/http/schemas.ts';
import { MAX_LINE_QUANTITY } from '../../platform/limits.ts';
import { SEAT_PLACE_REQUIRED, seatPlaceProperties } from '../events/seating.schemas.ts';

const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;

export const orderSchema = {
  $id: 'Order',
  type: 'object',
  additionalProperties: false,
  required: [
    'ref',
    'event',
    'status',
    'currency',
    'fx_rate',
    'subtotal_cents',
    'discount_cents',
    'total_cents',
    'refunded_cents',
    'name',
    'email',
    'audience',
    'portal',
    'created_at',
    'paid_at',
    'canceled_at',
    'refunded_at',
    'items',
    'lines',
    'discounts',
  ],
  properties: {
    ref: { type: 'string' },
    event: { type: 'string', description: 'event slug' },
    status: { type: 'string', enum: ['paid', 'pending', 'refunded', 'canceled'] },
    currency: { type: 'string' },
    fx_rate: { type: 'number', description: 'event-currency units per order-currency unit' },
    subtotal_cents: { type: 'integer' },
    discount_cents: { type: 'integer' },
    total_cents: { type: 'integer' },
    refunded_cents: { type: 'integer' },
    name: nullableString,
    email: nullableString,
    audience: { ...nullableString, description: 'audience slug' },
    portal: { ...nullableString, description: 'portal slug' },
    created_at: { type: 'string', format: 'date-time' },
    paid_at: nullableTime,
    canceled_at: nullableTime,
    refunded_at: nullableTime,
    items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['ticket_type_id', 'name', 'quantity', 'unit_price_cents', 'total_cents'],
        properties: {
          ticket_type_id: { type: 'integer' },
          name: { type: 'string' },
          quantity: { type: 'integer' },
          unit_price_cents: { type: 'integer' },
          total_cents: { type: 'integer' },
        },
      },
    },
    lines: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'name', 'quantity', 'unit_price_cents', 'total_cents', 'tax_cents', 'tax_rate_bp'],
        properties: {
          kind: { type: 'string', enum: ['tickets', 'sessions', 'goods', 'donations'] },
          name: { type: 'string' },
          quantity: { type: 'integer' },
          unit_price_cents: { type: 'integer' },
          total_cents: { type: 'integer' },
          tax_cents: { type: 'integer' },
          tax_rate_bp: { type: 'integer' },
        },
      },
    },
    discounts: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'amount_cents'],
        properties: { code: { type: 'string' }, amount_cents: { type: 'integer' } },
      },
    },
  },
} as const;

/** The order's shape without its schema id, for routes outside the orders plugin that answer an order. */
export const { $id: _id, ...orderShape } = orderSchema;

/** A ticket's seat (contract section 12), or null. */
export const ticketSeatSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: [...SEAT_PLACE_REQUIRED],
  properties: seatPlaceProperties,
} as const;

/** The seats of an order (contract section 12): each with its ticket's ref, null while pending. */
const orderSeatsSchema = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['ticket', ...SEAT_PLACE_REQUIRED],
    properties: { ticket: nullableString, ...seatPlaceProperties },
  },
} as const;

export const createdOrderSchema = {
  ...orderShape,
  properties: {
    ...orderShape.properties,
    seats: { ...orderSeatsSchema, description: 'the seats chosen (orders with seated tickets only)' },
    payment_url: { type: 'string', description: "the buyer's pay page (pending orders); a capability URL: treat as a secret" },
    url: { type: 'string', description: "the buyer's order page (paid orders); a capability URL: treat as a secret" },
  },
} as const;

export const orderDetailSchema = {
  ...orderShape,
  required: [...orderShape.required, 'tickets', 'seats', 'answers', 'item_answers'],
  properties: {
    ...orderShape.properties,
    tickets: { type: 'array', items: { type: 'string' }, description: 'ticket refs' },
    seats: orderSeatsSchema,
    answers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: { question: { type: 'string' }, answer: { type: 'string' } },
      },
    },
    item_answers: { type: 'array', items: { type: 'object', additionalProperties: true } },
  },
} as const;

export const createOrderBody = {
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['ticket_type_id', 'quantity'],
        properties: {
          ticket_type_id: { type: 'integer' },
          quantity: {
            type: 'integer',
            description:
              `at least 1, at most the type's max_per_order and never more than ${MAX_LINE_QUANTITY} (422 invalid_items); ` +
              'more than is left of a type with a capacity, however many more: 409 sold_out',
          },
          seats: {
            type: 'array',
            maxItems: MAX_LINE_QUANTITY,
            items: { type: 'string', minLength: 1, maxLength: 200 },
            description:
              'a seated type: exactly `quantity` seat_guids of that type (none: the best available, together in one row ' +
              'where possible); a seat held or sold by another order: 409 seat_unavailable naming it',
          },
        },
      },
    },
    email: { type: 'string', maxLength: 254 },
    name: { type: 'string', maxLength: 200 },
    invoice_address: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'street', 'postcode', 'city', 'country'],
      description:
        "the buyer's invoice address (contract section 14): country an ISO 3166-1 alpha-2 code, vat_id in that country's " +
        'format (422 invalid_invoice_address); an event whose invoice_address is `off` refuses it, one whose is `required` ' +
        'refuses an order without it (422 invoice_address_required). A VAT ID in another EU country than the issuer: reverse charge',
      properties: {
        company: { type: 'string', maxLength: 200 },
        name: { type: 'string', maxLength: 200 },
        street: { type: 'string', maxLength: 300 },
        postcode: { type: 'string', maxLength: 20 },
        city: { type: 'string', maxLength: 100 },
        country: { type: 'string', maxLength: 2 },
        vat_id: { type: 'string', maxLength: 30 },
      },
    },
  },
} as const;

export const patchOrderBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 200 },
    email: { type: 'string', maxLength: 254 },
    revoke_link: { type: 'boolean' },
  },
} as const;

export const refParams = {
  type: 'object',
  required: ['ref'],
  properties: { ref: { type: 'string', maxLength: 64 } },
} as const;

export { errorResponses, slugParams };
