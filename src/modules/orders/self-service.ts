import type { SelfServiceRules } from '../../platform/db/schema.ts';

/**
 * What a buyer may still change on the order page, from the event's `self_service` rules
 * (contract section 15). Pure: the services check it again under the order's lock.
 *
 * - naming attendees: while the rules exist, until `edit_until`, at the latest until the event starts;
 * - transfers: when `transfer` is on, until the event starts;
 * - cancelling: only when `cancel_until` is given, until then (and never after the start).
 * An order must be paid (a free order is "paid" at zero) for any of it.
 */
export interface SelfServiceRights {
  edit: boolean;
  transfer: boolean;
  cancel: boolean;
  /** the deadlines a page shows next to the actions */
  editUntil: Date | null;
  cancelUntil: Date | null;
  feePercent: number;
}

export const NO_RIGHTS: SelfServiceRights = {
  edit: false,
  transfer: false,
  cancel: false,
  editUntil: null,
  cancelUntil: null,
  feePercent: 0,
};

export function selfServiceRights(
  rules: SelfServiceRules | null | undefined,
  order: { status: string; event_starts_at: Date | string },
  now: Date,
): SelfServiceRights {
  if (!rules || order.status !== 'paid') return NO_RIGHTS;
  const starts = new Date(order.event_starts_at);
  const before = (limit: Date) => now < limit && now < starts;
  const editUntil = rules.edit_until ? earlier(new Date(rules.edit_until), starts) : starts;
  const cancelUntil = rules.cancel_until ? earlier(new Date(rules.cancel_until), starts) : null;
  return {
    edit: before(editUntil),
    transfer: Boolean(rules.transfer) && before(starts),
    cancel: cancelUntil !== null && before(cancelUntil),
    editUntil,
    cancelUntil,
    feePercent: rules.cancel_fee_percent ?? 0,
  };
}

const earlier = (a: Date, b: Date) => (a < b ? a : b);

/**
 * What a cancellation returns: the cancelled part's price less the fee, the fee rounded to the
 * minor unit in the organiser's favour, never more than the balance left.
 */
export function cancelRefund(priceCents: number, feePercent: number, balanceCents: number): { refund: number; fee: number } {
  const fee = Math.min(priceCents, Math.ceil((priceCents * feePercent) / 100));
  return { refund: Math.max(0, Math.min(balanceCents, priceCents - fee)), fee };
}
