import {
  MAX_CAPACITY,
  MAX_FX_RATE,
  MAX_LINE_QUANTITY,
  MAX_ORDER_CENTS,
  MAX_PRICE_CENTS,
  MIN_FX_RATE,
  PG_INT_MAX,
} from '../../platform/limits.ts';
import type { AccountFile, EventIn } from './event-document.ts';

/**
 * The account file's numbers held to the bounds the checkout relies on (platform/limits.ts) and
 * to the columns they are stored in, the same bounds as the management API's own fields (the
 * ticket-type PATCH, discount codes). The contract's schema says only "an integer, at least 0":
 * without these, 2^53 + 1 would be read as 2^53, and 1e21 reach the database as a price it
 * cannot store. One problem per number, keyed by its JSON path.
 */
export function numberProblems(f: AccountFile): string[] {
  const out: string[] = [];
  within(out, f.account.payments?.platform_fee_fixed, MAX_PRICE_CENTS, '$.account.payments.platform_fee_fixed');
  (f.events ?? []).forEach((e, i) => eventNumbers(out, e, `$.events[${i}]`));
  return out;
}

function within(out: string[], v: number | null | undefined, max: number, path: string, min = 0): void {
  if (typeof v !== 'number') return;
  if (v > max) out.push(`${path}: must be <= ${max}`);
  else if (v < min) out.push(`${path}: must be >= ${min}`);
}

function rate(out: string[], v: number | undefined, path: string): void {
  if (typeof v === 'number' && (v < MIN_FX_RATE || v > MAX_FX_RATE)) {
    out.push(`${path}: must be between ${MIN_FX_RATE} and ${MAX_FX_RATE}`);
  }
}

function prices(out: string[], p: Record<string, number> | undefined, path: string): void {
  for (const [c, v] of Object.entries(p ?? {})) within(out, v, MAX_PRICE_CENTS, `${path}.prices.${c}`);
}

function eventNumbers(out: string[], e: EventIn, at: string): void {
  for (const [c, r] of Object.entries(e.fx_rates ?? {})) rate(out, r, `${at}.fx_rates.${c}`);
  (e.ticket_types ?? []).forEach((t, j) => {
    const p = `${at}.ticket_types[${j}]`;
    within(out, t.price, MAX_PRICE_CENTS, `${p}.price`);
    prices(out, t.prices, p);
    within(out, t.capacity, MAX_CAPACITY, `${p}.capacity`);
    within(out, t.max_per_order, MAX_LINE_QUANTITY, `${p}.max_per_order`);
    within(out, t.position, PG_INT_MAX, `${p}.position`, -PG_INT_MAX);
    (t.group_discounts ?? []).forEach((g, k) =>
      within(out, g.min_quantity, PG_INT_MAX, `${p}.group_discounts[${k}].min_quantity`),
    );
    // an included good's units are its quantity times the tickets' (at most MAX_LINE_QUANTITY)
    (t.includes ?? []).forEach((inc, k) => within(out, inc.quantity, MAX_LINE_QUANTITY, `${p}.includes[${k}].quantity`));
  });
  (e.goods ?? []).forEach((g, j) => {
    const p = `${at}.goods[${j}]`;
    within(out, g.price, MAX_PRICE_CENTS, `${p}.price`);
    prices(out, g.prices, p);
    within(out, g.capacity, MAX_CAPACITY, `${p}.capacity`);
  });
  (e.sessions ?? []).forEach((s, j) => within(out, s.capacity, MAX_CAPACITY, `${at}.sessions[${j}].capacity`));
  (e.discount_codes ?? []).forEach((d, j) => {
    within(out, d.amount_off, MAX_PRICE_CENTS, `${at}.discount_codes[${j}].amount_off`);
    within(out, d.max_uses, PG_INT_MAX, `${at}.discount_codes[${j}].max_uses`);
  });
  (e.orders ?? []).forEach((o, j) => {
    const p = `${at}.orders[${j}]`;
    rate(out, o.fx_rate, `${p}.fx_rate`);
    o.lines.forEach((l, k) => {
      const lp = `${p}.lines[${k}]`;
      within(out, l.quantity, PG_INT_MAX, `${lp}.quantity`);
      within(out, l.unit_price, MAX_ORDER_CENTS, `${lp}.unit_price`);
      within(out, l.tax, MAX_ORDER_CENTS, `${lp}.tax`);
      // rounding is monotonic and the bound a double: the rounded product is past it exactly when the product is
      if (l.unit_price * l.quantity > MAX_ORDER_CENTS) out.push(`${lp}: quantity times unit_price must be <= ${MAX_ORDER_CENTS}`);
    });
    (o.discounts ?? []).forEach((d, k) => within(out, d.amount, MAX_ORDER_CENTS, `${p}.discounts[${k}].amount`));
    (o.payments ?? []).forEach((pay, k) => {
      within(out, pay.amount, MAX_ORDER_CENTS, `${p}.payments[${k}].amount`);
      within(out, pay.fee, MAX_ORDER_CENTS, `${p}.payments[${k}].fee`);
      within(out, pay.platform_fee, MAX_ORDER_CENTS, `${p}.payments[${k}].platform_fee`);
    });
    (o.refunds ?? []).forEach((r, k) => within(out, r.amount, MAX_ORDER_CENTS, `${p}.refunds[${k}].amount`));
  });
}
