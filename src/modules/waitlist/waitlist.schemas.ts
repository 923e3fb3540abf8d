import { nullableTimestamp, timestamp } from '../../platform/http/schemas.ts';
import { MAX_LINE_QUANTITY } from '../../platform/limits.ts';

/** A waiting list entry as the API answers it (contract section 13). */
export const entrySchema = {
  $id: 'WaitingListEntry',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'ticket_type_id',
    'quantity',
    'email',
    'name',
    'position',
    'status',
    'created_at',
    'offered_at',
    'expires_at',
    'order',
  ],
  properties: {
    id: { type: 'integer' },
    ticket_type_id: { type: 'integer' },
    quantity: { type: 'integer' },
    email: { type: 'string' },
    name: { type: 'string' },
    position: {
      type: ['integer', 'null'],
      description: '1: the next to be offered, among the waiting entries of its type; null when not waiting',
    },
    status: { type: 'string', enum: ['waiting', 'offered', 'accepted', 'expired', 'removed'] },
    created_at: timestamp,
    offered_at: nullableTimestamp,
    expires_at: { ...nullableTimestamp, description: "until when the offer's pay link holds the units" },
    order: { type: ['string', 'null'], description: "the offer's order ref" },
  },
} as const;

export const joinBody = {
  type: 'object',
  additionalProperties: false,
  required: ['ticket_type_id', 'quantity', 'email', 'name'],
  properties: {
    ticket_type_id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    quantity: { type: 'integer', minimum: 1, maximum: MAX_LINE_QUANTITY, description: "at most the type's max_per_order" },
    email: { type: 'string', maxLength: 254 },
    name: { type: 'string', maxLength: 200 },
    locale: { type: 'string', maxLength: 35, description: "the language of the person's mails (BCP 47); default the event's" },
  },
} as const;

export const entryParams = {
  type: 'object',
  required: ['slug', 'id'],
  properties: { slug: { type: 'string' }, id: { type: 'string', pattern: '^[1-9][0-9]{0,14}$' } },
} as const;
