/**
 * The event types (contract section 8). Deliveries are written by database triggers on the order
 * log and on check-ins (migration 0015), in the transaction of the change itself.
 */
export const WEBHOOK_TYPES = [
  'order.created',
  'order.paid',
  'order.updated',
  'order.canceled',
  'order.refunded',
  'checkin.created',
  'waiting_list.offered',
] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];
