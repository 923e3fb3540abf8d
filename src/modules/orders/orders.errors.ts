import { AppError } from '../../platform/errors.ts';

/** Stable error codes of the orders module (spec section 7). */
export const invalidBody = (message: string, fields?: Record<string, string[]>): AppError =>
  new AppError('unprocessable', 'invalid_body', message, fields ? { fields } : {});
export const invalidItems = (message: string): AppError => new AppError('unprocessable', 'invalid_items', message);
export const salesClosed = (): AppError => new AppError('unprocessable', 'sales_closed', 'Sales for this event have ended');
/** Before the event's `sales_start_at` (contract section 11); the message says when sales open. */
export const salesNotStarted = (at: Date): AppError =>
  new AppError('unprocessable', 'sales_not_started', `Sales for this event start at ${at.toISOString()}`, {
    extra: { sales_start_at: at.toISOString() },
  });
export const emailRequired = (): AppError =>
  new AppError('unprocessable', 'email_required', 'An email address is required for a free order, so the tickets can be sent');
export const amountTooSmall = (min: string): AppError =>
  new AppError('unprocessable', 'amount_too_small', `The total is below the smallest amount a card can be charged (${min})`);
export const soldOut = (message: string): AppError => new AppError('conflict', 'sold_out', message);
/** What the availability read says of an item short of stock: sold out, or how many are left. */
export const shortOfStock = (name: string, left: number): AppError =>
  soldOut(left === 0 ? `"${name}" is sold out` : `"${name}": only ${left} left`);
export const invalidIdempotencyKey = (): AppError =>
  new AppError('unprocessable', 'invalid_idempotency_key', 'Idempotency-Key must be at most 200 characters');
export const notCancelable = (status: string): AppError =>
  new AppError('unprocessable', 'not_cancelable', `Only a pending order can be canceled; this one is ${status}`);
export const cancelFailed = (): AppError =>
  new AppError('upstream', 'cancel_failed', 'The card-present payment could not be proven voided; nothing was changed');
export const invalidCode = (message: string): AppError => new AppError('unprocessable', 'invalid_code', message);
export const orderNotFound = (ref: string): AppError => new AppError('not_found', 'not_found', `No order with ref "${ref}"`);
/** An item got a capacity after the order was priced from a cached catalogue: priced again once. */
export const catalogueChanged = (): AppError =>
  new AppError('unavailable', 'busy', 'The event changed while the order was placed; nothing was changed, please retry');
/** Seats another order holds or bought (or kept off sale), named: the buyer picks again. */
export const seatUnavailable = (seats: Array<{ seat_guid: string; label: string }>): AppError =>
  new AppError(
    'conflict',
    'seat_unavailable',
    seats.length === 1
      ? `The seat ${seats[0]!.label} (${seats[0]!.seat_guid}) is no longer available`
      : `These seats are no longer available: ${seats.map((s) => `${s.label} (${s.seat_guid})`).join(', ')}`,
    { extra: { seats: seats.map((s) => s.seat_guid) } },
  );
export const invoiceAddressOff = (): AppError =>
  new AppError('unprocessable', 'invalid_invoice_address', 'This event takes no invoice address', {
    fields: { invoice_address: ['this event takes no invoice address'] },
  });
export const invoiceAddressRequired = (): AppError =>
  new AppError('unprocessable', 'invoice_address_required', 'This event requires an invoice address', {
    fields: { invoice_address: ['is required'] },
  });
