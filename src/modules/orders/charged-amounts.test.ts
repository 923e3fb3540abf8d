import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyBp } from '../../platform/money.ts';
import { chargedAmounts, spread, type AmountDiscount, type AmountLine } from './charged-amounts.ts';
import { orderTotals, priceLine } from './pricing.ts';

const RATES = [0, 500, 700, 1000, 1300, 1900, 2000, 2100, 2500, 2700];

const lineArb = fc.record({
  kind: fc.constantFrom('tickets' as const, 'tickets' as const, 'goods' as const, 'donations' as const),
  ticket_type_id: fc.integer({ min: 1, max: 4 }),
  quantity: fc.integer({ min: 1, max: 20 }),
  unit: fc.integer({ min: 0, max: 250_000 }),
  rate: fc.constantFrom(...RATES),
});
const codeArb = fc.record({
  percent: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
  amount: fc.integer({ min: 1, max: 500_000 }),
  types: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }), { nil: null }),
});

function basket(
  raw: { kind: AmountLine['kind']; ticket_type_id: number; quantity: number; unit: number; rate: number }[],
  mode: 'inclusive' | 'exclusive',
) {
  return raw.map((r) =>
    priceLine(
      {
        kind: r.kind,
        ticket_type_id: r.kind === 'tickets' ? r.ticket_type_id : null,
        good_id: null,
        session_id: null,
        donation_id: null,
        inventory_id: null,
        name: 'x',
        quantity: r.quantity,
        unit_price_cents: r.unit,
        tax_rate_bp: r.rate,
        included: false,
      },
      mode,
    ),
  );
}

/** The checkout's pricing of codes (codes.service applyCodes) without the database. */
function priceCodes(
  lines: AmountLine[],
  codes: { percent: number | null; amount: number; types: number[] | null }[],
  mode: 'inclusive' | 'exclusive',
) {
  const left = lines.map((l) => l.total_cents + (mode === 'exclusive' ? l.tax_cents : 0));
  const out: AmountDiscount[] = [];
  for (const c of codes) {
    const elig = lines
      .map((l, i) => ({ l, i }))
      .filter(({ l }) =>
        c.types ? l.kind === 'tickets' && c.types.includes(l.ticket_type_id!) : l.kind === 'tickets' || l.kind === 'goods',
      );
    const base = elig.reduce((s, { i }) => s + left[i]!, 0);
    if (base === 0) continue;
    let amount = c.percent !== null ? applyBp(base, c.percent * 100) : Math.min(c.amount, base);
    out.push({ amount_cents: amount, ticket_type_ids: c.types });
    for (const { i } of elig) {
      const take = Math.min(amount, left[i]!);
      left[i]! -= take;
      amount -= take;
    }
  }
  return out;
}

/** VAT in a gross amount the long way: exact fractions, the half rounded away from zero. */
function vatOf(gross: number, rate: number): number {
  const num = gross * rate * 2 + (10000 + rate);
  return Math.floor(num / (2 * (10000 + rate)));
}

describe('charged amounts', () => {
  it('the issue example: 18.50 with 10 % VAT included and a 20 % code charges 14.80 with 1.35 VAT', () => {
    const lines = basket([{ kind: 'tickets', ticket_type_id: 1, quantity: 1, unit: 1850, rate: 1000 }], 'inclusive');
    const a = chargedAmounts(lines, [{ amount_cents: 370, ticket_type_ids: null }], 'inclusive');
    expect(a.total_cents).toBe(1480);
    expect(a.vat_cents).toBe(135);
    expect(a.net_cents).toBe(1345);
    expect(a.rates).toEqual([{ rate_bp: 1000, gross_cents: 1480, net_cents: 1345, vat_cents: 135 }]);
  });

  it('spreads by largest remainder, earlier line first on a tie', () => {
    expect(spread(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(spread(5, [10, 20, 30])).toEqual([1, 2, 2]);
    expect(spread(0, [1, 2])).toEqual([0, 0]);
    expect(spread(7, [0, 0])).toEqual([0, 0]);
  });

  it('never discounts donations, and a code limited to a type only its lines', () => {
    const lines = basket(
      [
        { kind: 'tickets', ticket_type_id: 1, quantity: 1, unit: 1000, rate: 700 },
        { kind: 'tickets', ticket_type_id: 2, quantity: 1, unit: 3000, rate: 1900 },
        { kind: 'donations', ticket_type_id: 1, quantity: 1, unit: 500, rate: 0 },
      ],
      'inclusive',
    );
    const a = chargedAmounts(lines, [{ amount_cents: 600, ticket_type_ids: [2] }], 'inclusive');
    expect(a.lines.map((l) => l.discount_cents)).toEqual([0, 600, 0]);
    expect(a.rates.find((r) => r.rate_bp === 1900)).toMatchObject({ gross_cents: 2400, vat_cents: 383 });
  });

  it('reverse charge: everything is net at 0 %', () => {
    const lines = basket([{ kind: 'tickets', ticket_type_id: 1, quantity: 2, unit: 11900, rate: 1900 }], 'inclusive');
    const a = chargedAmounts(lines, [], 'inclusive', { reverseCharge: true });
    expect(a).toMatchObject({ net_cents: 23800, vat_cents: 0, total_cents: 23800, reverse_charge: true });
    expect(a.rates).toEqual([{ rate_bp: 0, gross_cents: 23800, net_cents: 23800, vat_cents: 0 }]);
  });

  it('net + VAT = total paid to the cent, against a straightforward recomputation (random baskets, codes, rates)', () => {
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 1, maxLength: 8 }),
        fc.array(codeArb, { maxLength: 3 }),
        fc.constantFrom('inclusive' as const, 'exclusive' as const),
        (raw, rawCodes, mode) => {
          const lines = basket(raw, mode);
          const codes = priceCodes(lines, rawCodes, mode);
          const discount = codes.reduce((s, c) => s + c.amount_cents, 0);
          const totals = orderTotals(lines, mode, discount);
          const a = chargedAmounts(lines, codes, mode);

          // what the order charged
          expect(a.total_cents).toBe(totals.total_cents);
          expect(a.net_cents + a.vat_cents).toBe(totals.total_cents);
          expect(a.lines.reduce((s, l) => s + l.discount_cents, 0)).toBe(discount);

          // each line: gross less its share, nothing below zero, donations untouched
          a.lines.forEach((l, i) => {
            const src = lines[i]!;
            expect(l.gross_cents).toBe(src.total_cents + (mode === 'exclusive' ? src.tax_cents : 0));
            expect(l.charged_cents).toBe(l.gross_cents - l.discount_cents);
            expect(l.charged_cents).toBeGreaterThanOrEqual(0);
            expect(l.net_cents).toBeGreaterThanOrEqual(0);
            expect(l.net_cents).toBeLessThanOrEqual(l.charged_cents);
            if (src.kind === 'donations') expect(l.discount_cents).toBe(0);
          });

          // per rate, recomputed from the lines: the VAT in what was charged at that rate
          const want = new Map<number, number>();
          a.lines.forEach((l, i) => want.set(lines[i]!.tax_rate_bp, (want.get(lines[i]!.tax_rate_bp) ?? 0) + l.charged_cents));
          expect(a.rates.map((r) => r.rate_bp)).toEqual([...want.keys()].sort((x, y) => x - y));
          for (const r of a.rates) {
            expect(r.gross_cents).toBe(want.get(r.rate_bp));
            expect(r.vat_cents).toBe(vatOf(r.gross_cents, r.rate_bp));
            expect(r.net_cents + r.vat_cents).toBe(r.gross_cents);
            const lineNets = a.lines.filter((_, i) => lines[i]!.tax_rate_bp === r.rate_bp).reduce((s, l) => s + l.net_cents, 0);
            expect(lineNets).toBe(r.net_cents);
          }

          // a single code over several lines: every share is the floor or the ceiling of its exact
          // proportion (largest remainder), in the order's own rounding
          if (codes.length === 1) {
            const c = codes[0]!;
            const applies = lines.map((l) =>
              c.ticket_type_ids
                ? l.kind === 'tickets' && c.ticket_type_ids.includes(l.ticket_type_id!)
                : l.kind !== 'donations' && l.kind !== 'sessions',
            );
            const base = a.lines.reduce((s, l, i) => s + (applies[i] ? l.gross_cents : 0), 0);
            a.lines.forEach((l, i) => {
              if (!applies[i]) return expect(l.discount_cents).toBe(0);
              const exact = (c.amount_cents * l.gross_cents) / base;
              expect(Math.abs(l.discount_cents - exact)).toBeLessThan(1 + 1e-9);
            });
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
