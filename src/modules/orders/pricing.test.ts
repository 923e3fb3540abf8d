import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyBp, convert, divRound, divRoundSafe, lineTax } from '../../platform/money.ts';
import { cardMinimum, groupUnitPrice, orderTotals, priceIn, priceLine, type PricedLine } from './pricing.ts';

const base = {
  kind: 'tickets' as const,
  ticket_type_id: 1,
  good_id: null,
  session_id: null,
  donation_id: null,
  inventory_id: null,
  name: 'T',
  included: false,
};

describe('money rounding', () => {
  it('rounds half away from zero', () => {
    expect(divRound(5n, 2n)).toBe(3n);
    expect(divRound(-5n, 2n)).toBe(-3n);
    expect(divRound(4n, 3n)).toBe(1n);
    expect(divRound(7n, 2n)).toBe(4n);
    expect(applyBp(125, 2000)).toBe(25);
    expect(applyBp(5, 5000)).toBe(3); // 2.5 -> 3
  });

  it('rounds in plain numbers exactly as in BigInt, and leaves what might not be exact to BigInt', () => {
    const big = (num: number, den: number) => Number(divRound(BigInt(num), BigInt(den)));
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.integer({ min: 1, max: 2 ** 20 }), (num, den) => {
        expect(divRoundSafe(num, den)).toBe(big(num, den));
      }),
      { numRuns: 5000 },
    );
    // halves at every magnitude up to the safe limit, both signs
    for (let k = 1; k < 2 ** 50; k *= 3) {
      for (const num of [2 * k + 1, -(2 * k + 1)]) expect(divRoundSafe(num, 2)).toBe(big(num, 2));
    }
    expect(divRoundSafe(-1, 10000)).toBe(0); // not -0
    expect(divRoundSafe(Number.MAX_SAFE_INTEGER, 3)).toBeNull(); // 2 * num + den is past the safe range
    expect(divRoundSafe(2 ** 60, 7)).toBeNull();
    expect(divRoundSafe(1.5, 2)).toBeNull();
    // a line whose total times its rate is past 2^53 still gets its exact tax
    const total = 2 ** 45 + 1;
    expect(lineTax(total, 1900, 'inclusive')).toBe(Number(divRound(BigInt(total) * 1900n, 11900n)));
  });

  it('tax inclusive and exclusive follow the contract formulas', () => {
    // inclusive: round(total * r / (10000 + r))
    expect(lineTax(10700, 700, 'inclusive')).toBe(700);
    expect(lineTax(2500, 700, 'inclusive')).toBe(164); // 163.55 -> 164
    expect(lineTax(1000, 1900, 'inclusive')).toBe(160); // 159.66 -> 160
    // exclusive: round(total * r / 10000)
    expect(lineTax(2500, 700, 'exclusive')).toBe(175);
    expect(lineTax(50, 700, 'exclusive')).toBe(4); // 3.5 -> 4: the half case rounds away from zero
    expect(lineTax(0, 700, 'exclusive')).toBe(0);
    expect(lineTax(999, 0, 'inclusive')).toBe(0);
  });

  it('handles zero-decimal (jpy) and three-decimal (kwd) minor units', () => {
    // ¥4,500 + 10 % on top
    expect(lineTax(4500, 1000, 'exclusive')).toBe(450);
    expect(lineTax(1005, 1000, 'exclusive')).toBe(101); // 100.5 -> 101
    // 1.250 KWD (1250 fils), 5 % inclusive: 59.52 -> 60 fils
    expect(lineTax(1250, 500, 'inclusive')).toBe(60);
    expect(convert(1250, '0.305')).toBe(381); // 381.25 -> 381
    expect(convert(2200, '1.17')).toBe(2574);
    expect(convert(1, '0.5')).toBe(1);
  });

  it('tax never exceeds the total and is exact for any amount (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 100_000 }), (total, rate) => {
        const inc = lineTax(total, rate, 'inclusive');
        expect(inc).toBeLessThanOrEqual(total);
        expect(Math.abs(inc * (10000 + rate) - total * rate)).toBeLessThanOrEqual((10000 + rate) / 2);
      }),
      { seed: 7, numRuns: 500 },
    );
  });
});

describe('pricing', () => {
  it('takes the event price or the per-currency price', () => {
    const item = { price_cents: 2500, prices: { gbp: 2200 } };
    expect(priceIn(item, 'eur', 'eur')).toBe(2500);
    expect(priceIn(item, 'gbp', 'eur')).toBe(2200);
    expect(priceIn(item, 'usd', 'eur')).toBeNull();
  });

  it('applies the highest group tier reached, rounding the unit price once', () => {
    const tiers = [
      { min_quantity: 5, percent_off: 10 },
      { min_quantity: 8, percent_off: 15 },
    ];
    expect(groupUnitPrice(2500, 4, tiers)).toBe(2500);
    expect(groupUnitPrice(2500, 5, tiers)).toBe(2250);
    expect(groupUnitPrice(2500, 9, tiers)).toBe(2125);
    expect(groupUnitPrice(8905, 8, tiers)).toBe(7569); // 7569.25
    expect(groupUnitPrice(8910, 8, tiers)).toBe(7574); // 7573.5 -> 7574
    expect(groupUnitPrice(45, 5, [{ min_quantity: 5, percent_off: 10 }])).toBe(41); // ¥40.5 -> ¥41
  });

  it('sums lines into subtotal, discount and total; exclusive tax is added on top', () => {
    const lines: PricedLine[] = [
      priceLine({ ...base, quantity: 2, unit_price_cents: 2500, tax_rate_bp: 700 }, 'exclusive'),
      priceLine({ ...base, kind: 'goods', quantity: 1, unit_price_cents: 1200, tax_rate_bp: 1900 }, 'exclusive'),
    ];
    expect(lines.map((l) => [l.total_cents, l.tax_cents])).toEqual([
      [5000, 350],
      [1200, 228],
    ]);
    expect(orderTotals(lines, 'exclusive', 500)).toEqual({ subtotal_cents: 6778, discount_cents: 500, total_cents: 6278 });
    const inclusive = lines.map((l) => priceLine(l, 'inclusive'));
    expect(orderTotals(inclusive, 'inclusive')).toEqual({ subtotal_cents: 6200, discount_cents: 0, total_cents: 6200 });
    expect(orderTotals(inclusive, 'inclusive', 99999).total_cents).toBe(0);
  });

  it('knows the card minimums', () => {
    expect([cardMinimum('eur'), cardMinimum('usd'), cardMinimum('gbp'), cardMinimum('jpy'), cardMinimum('kwd')]).toEqual([
      50, 50, 30, 50, 50,
    ]);
  });
});
