/**
 * Money helpers. Amounts are integers in the currency's minor unit; rounding is half away from
 * zero, done in BigInt so no intermediate ever leaves the exact integers.
 */

/** round(num / den), half away from zero, for integers; den > 0. */
export function divRound(num: bigint, den: bigint): bigint {
  const neg = num < 0n;
  const a = neg ? -num : num;
  const q = (a * 2n + den) / (den * 2n);
  return neg ? -q : q;
}

/** round(amount * bp / 10000), half away from zero. */
export function applyBp(amount: number, bp: number): number {
  return Number(divRound(BigInt(amount) * BigInt(bp), 10000n));
}

/**
 * Tax of one line (contract section 4): inclusive events take it out of the total,
 * `round(total * r / (10000 + r))`; exclusive events add `round(total * r / 10000)` on top.
 */
export function lineTax(totalCents: number, rateBp: number, mode: 'inclusive' | 'exclusive'): number {
  if (rateBp === 0 || totalCents === 0) return 0;
  const den = mode === 'inclusive' ? 10000 + rateBp : 10000;
  return divRoundSafe(totalCents * rateBp, den) ?? Number(divRound(BigInt(totalCents) * BigInt(rateBp), BigInt(den)));
}

/**
 * divRound in plain numbers, for the common case where every intermediate is a safe integer
 * (a line's tax: no BigInt allocated on the checkout's path); null when one might not be, or the
 * inputs are not integers, and the caller takes the BigInt route. Exact: `%` of two safe integers
 * is exact, and so is dividing their difference, a multiple of the divisor.
 */
export function divRoundSafe(num: number, den: number): number | null {
  if (!Number.isSafeInteger(num) || !Number.isSafeInteger(den) || den <= 0) return null;
  const a = Math.abs(num);
  const x = a * 2 + den;
  const y = den * 2;
  if (!Number.isSafeInteger(x) || !Number.isSafeInteger(y)) return null;
  const q = (x - (x % y)) / y;
  return num < 0 && q !== 0 ? -q : q;
}

/**
 * Converts an amount into the event currency at a recorded decimal rate (a string such as
 * "1.17" or "0.0062500000"), rounded half away from zero. Exact: the rate is scaled to an integer.
 */
export function convert(amount: number, rate: string): number {
  const [whole = '0', frac = ''] = rate.trim().split('.');
  const scale = 10n ** BigInt(frac.length);
  const rateInt = BigInt(whole + frac);
  return Number(divRound(BigInt(amount) * rateInt, scale));
}

/** Minor-unit digits per ISO 4217 currency (lowercase); 2 unless listed. */
const DIGITS: Record<string, number> = {
  bif: 0,
  clp: 0,
  djf: 0,
  gnf: 0,
  isk: 0,
  jpy: 0,
  kmf: 0,
  krw: 0,
  pyg: 0,
  rwf: 0,
  ugx: 0,
  vnd: 0,
  vuv: 0,
  xaf: 0,
  xof: 0,
  xpf: 0,
  bhd: 3,
  iqd: 3,
  jod: 3,
  kwd: 3,
  lyd: 3,
  omr: 3,
  tnd: 3,
};

export function minorDigits(currency: string): number {
  return DIGITS[currency] ?? 2;
}

/** "12.50 EUR", "1,200 JPY", "1.250 KWD" for pages and mail. */
export function formatMoney(amount: number, currency: string): string {
  const digits = minorDigits(currency);
  const value = digits === 0 ? String(amount) : (amount / 10 ** digits).toFixed(digits);
  return `${value} ${currency.toUpperCase()}`;
}
