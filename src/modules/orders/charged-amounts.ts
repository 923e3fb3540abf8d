import type { LineKind } from '../../platform/db/schema.ts';

/**
 * What an order charged, line by line and rate by rate: the figures an invoice, a credit note,
 * the order page and the receipt show. Pure: lines and discounts in, amounts out.
 *
 * A line's gross is what the buyer was asked to pay for it before codes (its total, plus its
 * tax in a tax-exclusive event). Each code, in redemption order, is spread over the lines it
 * applies to in proportion to what they still had (largest remainder to the cent), so the
 * charged grosses add up to the total paid. VAT is then taken per rate from the charged gross
 * of that rate, `round(gross * r / (10000 + r))`, and the net is the rest: net + VAT = total,
 * to the cent, whatever the rounding.
 */

export interface AmountLine {
  kind: LineKind;
  ticket_type_id: number | null;
  quantity: number;
  total_cents: number;
  tax_cents: number;
  tax_rate_bp: number;
}

export interface AmountDiscount {
  amount_cents: number;
  /** the ticket types the code is limited to; null: tickets and goods (never donations) */
  ticket_type_ids: readonly number[] | null;
}

export interface ChargedLine {
  gross_cents: number;
  discount_cents: number;
  /** gross less its share of the codes */
  charged_cents: number;
  /** the line's share of its rate's net */
  net_cents: number;
  rate_bp: number;
}

export interface RateAmounts {
  rate_bp: number;
  gross_cents: number;
  net_cents: number;
  vat_cents: number;
}

export interface ChargedAmounts {
  lines: ChargedLine[];
  /** one entry per rate present, in ascending rate */
  rates: RateAmounts[];
  net_cents: number;
  vat_cents: number;
  total_cents: number;
  reverse_charge: boolean;
}

/** Whether a code applies to a line: the rule applyCodes (codes.service) prices codes by. */
export function codeApplies(d: AmountDiscount, l: Pick<AmountLine, 'kind' | 'ticket_type_id'>): boolean {
  return d.ticket_type_ids
    ? l.kind === 'tickets' && l.ticket_type_id !== null && d.ticket_type_ids.includes(l.ticket_type_id)
    : l.kind === 'tickets' || l.kind === 'goods';
}

/**
 * Splits `amount` over `weights` in proportion (largest remainder: the floors first, then one
 * cent each to the largest fractions, earlier first on a tie). The parts add up to `amount`;
 * all weights zero gives all parts zero (and the amount is not placed: the caller's concern).
 */
export function spread(amount: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((s, w) => s + BigInt(w), 0n);
  if (sum === 0n || amount === 0) return weights.map(() => 0);
  const a = BigInt(amount);
  const parts = weights.map((w) => (a * BigInt(w)) / sum);
  const rest = weights.map((w, i) => ({ i, r: (a * BigInt(w)) % sum }));
  let left = Number(a - parts.reduce((s, p) => s + p, 0n));
  rest.sort((x, y) => (x.r === y.r ? x.i - y.i : x.r > y.r ? -1 : 1));
  for (const { i } of rest) {
    if (left <= 0) break;
    parts[i]! += 1n;
    left--;
  }
  return parts.map(Number);
}

/** round(gross * r / (10000 + r)), half away from zero, exact. */
function vatIn(gross: number, rateBp: number): number {
  if (rateBp === 0 || gross === 0) return 0;
  const num = BigInt(gross) * BigInt(rateBp);
  const den = BigInt(10000 + rateBp);
  const neg = num < 0n;
  const a = neg ? -num : num;
  const q = (a * 2n + den) / (den * 2n);
  return Number(neg ? -q : q);
}

/**
 * What each line has left after the codes. Each code is spread over its lines in proportion to
 * what they still have, the most limited codes first (a code for one ticket type before one for
 * the whole basket), so a later code still finds the room the checkout priced it against. Should
 * codes limited to overlapping sets still not fit that way, the checkout's own placement (each
 * code in turn, line by line) is used, which fits by construction; and what even that cannot place
 * (a code's types changed since the order) goes over the remaining lines, so no cent is lost.
 */
function allocate(lines: readonly AmountLine[], discounts: readonly AmountDiscount[], gross: readonly number[]): number[] {
  const width = (d: AmountDiscount) => (d.ticket_type_ids ? d.ticket_type_ids.length : Infinity);
  const ordered = discounts.map((d, i) => ({ d, i })).sort((a, b) => width(a.d) - width(b.d) || a.i - b.i);
  const left = [...gross];
  let unplaced = 0;
  for (const { d } of ordered) {
    const idx = lines.flatMap((l, i) => (codeApplies(d, l) && left[i]! > 0 ? [i] : []));
    const base = idx.reduce((s, i) => s + left[i]!, 0);
    const take = Math.min(d.amount_cents, base);
    unplaced += d.amount_cents - take;
    const shares = spread(
      take,
      idx.map((i) => left[i]!),
    );
    idx.forEach((i, k) => (left[i]! -= shares[k]!));
  }
  if (unplaced === 0) return left;
  const seq = [...gross];
  unplaced = 0;
  for (const d of discounts) {
    let amount = d.amount_cents;
    lines.forEach((l, i) => {
      if (!codeApplies(d, l)) return;
      const take = Math.min(amount, seq[i]!);
      seq[i]! -= take;
      amount -= take;
    });
    unplaced += amount;
  }
  const shares = spread(
    Math.min(
      unplaced,
      seq.reduce((s, v) => s + v, 0),
    ),
    seq,
  );
  return seq.map((v, i) => v - shares[i]!);
}

export function chargedAmounts(
  lines: readonly AmountLine[],
  discounts: readonly AmountDiscount[],
  taxMode: 'inclusive' | 'exclusive',
  opts: { reverseCharge?: boolean } = {},
): ChargedAmounts {
  const gross = lines.map((l) => l.total_cents + (taxMode === 'exclusive' ? l.tax_cents : 0));
  const left = allocate(lines, discounts, gross);
  const reverse = opts.reverseCharge === true;
  const rateOf = (l: AmountLine) => (reverse ? 0 : l.tax_rate_bp);
  const byRate = new Map<number, number[]>();
  lines.forEach((l, i) => (byRate.get(rateOf(l)) ?? byRate.set(rateOf(l), []).get(rateOf(l))!).push(i));
  const net = new Array<number>(lines.length).fill(0);
  const rates: RateAmounts[] = [];
  for (const rate of [...byRate.keys()].sort((a, b) => a - b)) {
    const idx = byRate.get(rate)!;
    const g = idx.reduce((s, i) => s + left[i]!, 0);
    const vat = vatIn(g, rate);
    rates.push({ rate_bp: rate, gross_cents: g, net_cents: g - vat, vat_cents: vat });
    const shares = spread(
      g - vat,
      idx.map((i) => left[i]!),
    );
    idx.forEach((i, k) => (net[i] = shares[k]!));
  }
  const out = lines.map((l, i) => ({
    gross_cents: gross[i]!,
    discount_cents: gross[i]! - left[i]!,
    charged_cents: left[i]!,
    net_cents: net[i]!,
    rate_bp: rateOf(l),
  }));
  const sum = (k: 'net_cents' | 'vat_cents' | 'gross_cents') => rates.reduce((s, r) => s + r[k], 0);
  return {
    lines: out,
    rates,
    net_cents: sum('net_cents'),
    vat_cents: sum('vat_cents'),
    total_cents: sum('gross_cents'),
    reverse_charge: reverse,
  };
}

/**
 * A credit note's amounts per rate: `amount` of gross spread over the invoice's rates in
 * proportion to their gross (largest remainder), VAT per rate as on an invoice. Crediting the
 * whole of an invoice gives back its own figures.
 */
export function creditedRates(rates: readonly RateAmounts[], amount: number): RateAmounts[] {
  const shares = spread(
    amount,
    rates.map((r) => r.gross_cents),
  );
  return rates.map((r, i) => {
    const g = shares[i]!;
    const vat = vatIn(g, r.rate_bp);
    return { rate_bp: r.rate_bp, gross_cents: g, net_cents: g - vat, vat_cents: vat };
  });
}
