import { timestamp } from '../../platform/http/schemas.ts';
import { BODY_MAX, ORDER_STATUSES, SUBJECT_MAX } from './messages.service.ts';

const statusEnum = { type: 'string', enum: ORDER_STATUSES } as const;

/** A message as the API answers it: what it says, whom it is for, how far its sending got. */
export const messageSchema = {
  $id: 'Message',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'subject', 'body', 'to', 'send_at', 'state', 'created_by', 'created_at', 'recipients', 'sent', 'failed'],
  properties: {
    id: { type: 'integer' },
    subject: { type: 'string' },
    body: { type: 'string', description: 'Markdown' },
    to: {
      type: 'object',
      additionalProperties: false,
      required: ['status'],
      properties: {
        ticket_types: { type: 'array', items: { type: 'string' } },
        status: { type: 'array', items: statusEnum },
        checked_in: { type: 'boolean' },
      },
    },
    send_at: timestamp,
    state: {
      type: 'string',
      enum: ['scheduled', 'sending', 'sent'],
      description: 'scheduled: waits for send_at; sending: mails queued; sent: every mail sent or failed',
    },
    created_by: { type: 'string' },
    created_at: timestamp,
    recipients: { type: 'integer', description: 'orders it was queued for (scheduled: how many match now)' },
    sent: { type: 'integer' },
    failed: { type: 'integer' },
  },
} as const;

export const messageBody = {
  type: 'object',
  additionalProperties: false,
  required: ['subject', 'body'],
  properties: {
    subject: { type: 'string', minLength: 1, maxLength: SUBJECT_MAX },
    body: { type: 'string', minLength: 1, maxLength: BODY_MAX, description: 'Markdown' },
    to: {
      type: 'object',
      additionalProperties: false,
      description: 'whom it is for: every condition given must hold; without status, paid orders',
      properties: {
        ticket_types: {
          type: 'array',
          maxItems: 200,
          items: { type: 'string', minLength: 1, maxLength: 100 },
          description: 'ticket type keys (slugs): orders holding any of them',
        },
        status: { anyOf: [statusEnum, { type: 'array', minItems: 1, maxItems: 4, items: statusEnum }] },
        checked_in: { type: 'boolean', description: 'true: one of its tickets was admitted; false: none was' },
      },
    },
    send_at: { type: 'string', format: 'date-time', description: 'later: scheduled; absent or past: now' },
  },
} as const;
