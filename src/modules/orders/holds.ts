const DAY_MS = 24 * 60 * 60 * 1000;

/** A browser checkout holds stock for 35 minutes (spec section 8). */
export const BROWSER_HOLD_MS = 35 * 60 * 1000;

/**
 * End of the hold of an order created through the API (spec section 3): the organiser's
 * configured payment expiry, else a day past the event start; never less than a day away.
 */
export function apiHoldEnd(event: { starts_at: Date; payment_expires_at: Date | null }, now: Date): Date {
  const configured = event.payment_expires_at ?? new Date(event.starts_at.getTime() + DAY_MS);
  const floor = now.getTime() + DAY_MS;
  return new Date(Math.max(configured.getTime(), floor));
}
