import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createTestApp, type TestApp } from '../app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../factories.ts';
import { MAX_LINE_QUANTITY, MAX_ORDER_CENTS, MAX_PRICE_CENTS } from '../../src/platform/limits.ts';
import { numberLike, RawNumber, toJson } from './arbitraries.ts';
import { checksum } from './checksum.ts';

/**
 * Order creation with real ticket type ids and numbers at every edge as quantities, so the
 * numbers get past id validation to pricing, group discounts, tax, included goods and stock:
 * never a 500, always the documented error shape and code, nothing written on a refusal, and an
 * order that is taken is priced exactly. A capped type asked for more than its capacity is
 * always 409 sold_out, however large the number; an uncapped one past MAX_LINE_QUANTITY 422; a
 * quantity that is not a whole number (1.5, 1e400, "1") 422 invalid_body.
 *
 * FUZZ_RUNS (default 2000) requests per event; FUZZ_SEED fixes the generator (default 4242).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 4242);

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
/** per event slug: its ticket types by key, with what the oracle needs */
const types: Record<string, Array<{ id: number; key: string; capacity: number | null; price: number }>> = {};

const TYPES = [
  { key: 'capped', name: 'Capped', price: 2500, capacity: 5, tax_rate_bp: 700 },
  { key: 'free', name: 'Free', price: 0, capacity: 3 },
  { key: 'open', name: 'Open', price: 1000, tax_rate_bp: 1900 },
  { key: 'dear', name: 'Dear', price: MAX_PRICE_CENTS, tax_rate_bp: 2000 },
  {
    key: 'limited',
    name: 'Limited',
    price: 500,
    capacity: 50,
    max_per_order: 4,
    includes: [{ good: 'tote', quantity: 2 }],
  },
  {
    key: 'group',
    name: 'Group',
    price: 3000,
    capacity: 100_000,
    tax_rate_bp: 700,
    group_discounts: [{ min_quantity: 10, percent_off: 15 }],
  },
];

beforeAll(async () => {
  t = await createTestApp();
  const event = (slug: string, tax_mode: 'inclusive' | 'exclusive') =>
    makeEvent({ slug, tax_mode, ticket_types: TYPES, goods: [{ key: 'tote', name: 'Tote', price: 0, capacity: 20 }] });
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({ slug: 'fuzz-orders', events: [event('incl', 'inclusive'), event('excl', 'exclusive')] }),
  );
  const rows = await t.ctx.db
    .selectFrom('ticket_types as tt')
    .innerJoin('events as e', 'e.id', 'tt.event_id')
    .select(['tt.id', 'tt.key', 'e.slug'])
    .execute();
  for (const r of rows) {
    const spec = TYPES.find((x) => x.key === r.key)!;
    (types[r.slug] ??= []).push({ id: r.id, key: r.key, capacity: spec.capacity ?? null, price: spec.price });
  }
});
afterAll(() => t.close());

/** A quantity: an edge number (any spelling), a small one, or one at the line bound. */
const quantity = fc.oneof(
  { weight: 4, arbitrary: numberLike },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(MAX_LINE_QUANTITY, MAX_LINE_QUANTITY + 1, 100_001) },
);

const body = (slug: string) =>
  fc.record(
    {
      items: fc.array(
        fc.record({
          ticket_type_id: fc.oneof(
            { weight: 8, arbitrary: fc.constantFrom(...types[slug]!.map((x) => x.id)) },
            { weight: 1, arbitrary: fc.constantFrom(...types[slug === 'incl' ? 'excl' : 'incl']!.map((x) => x.id)) },
            { weight: 1, arbitrary: numberLike },
          ),
          quantity,
        }),
        { minLength: 1, maxLength: 3 },
      ),
      email: fc.constantFrom('buyer@example.org'),
    },
    { requiredKeys: ['items'] },
  );

/** The number a JSON value arrives as on the server. */
const asParsed = (v: unknown): unknown => (v instanceof RawNumber ? (JSON.parse(v.text) as unknown) : v);

const CODES: Record<number, string[]> = {
  409: ['sold_out'],
  422: ['invalid_items', 'invalid_body', 'email_required', 'amount_too_small'],
};

describe('order creation with real ids and edge numbers', () => {
  for (const slug of ['incl', 'excl']) {
    it(`never 500s, refuses in the documented shape without writing, prices exactly (${slug})`, async () => {
      await fc.assert(
        fc.asyncProperty(body(slug), async (b) => {
          const payload = toJson(b);
          const before = await checksum(t.ctx.db);
          const res = await t.call(acct.tokens.all, {
            method: 'POST',
            url: `/api/v1/events/${slug}/orders`,
            headers: { 'content-type': 'application/json' },
            payload,
          });
          const where = `${payload} -> ${res.statusCode}: ${res.body.slice(0, 300)}`;
          expect([201, 409, 422], where).toContain(res.statusCode);
          const json = res.json();
          if (res.statusCode >= 400) {
            expect(Object.keys(json), where).toEqual(['error']);
            // contract section 2: code and message, and `fields` on a validation error
            expect(['code', 'fields', 'message'], where).toEqual(expect.arrayContaining(Object.keys(json.error)));
            if (json.error.fields) expect(json.error.code, where).toBe('invalid_body');
            expect(CODES[res.statusCode], where).toContain(json.error.code);
            expect(typeof json.error.message, where).toBe('string');
            expect(await checksum(t.ctx.db), where).toBe(before);
          } else {
            checkFigures(json, slug === 'excl', where);
            // each line as asked: the quantity the order took is the number sent, not a rounding of it
            for (const item of json.items as Array<{ ticket_type_id: number; quantity: number }>) {
              const asked = b.items.find((i) => asParsed(i.ticket_type_id) === item.ticket_type_id);
              expect(item.quantity, where).toBe(asParsed(asked?.quantity));
              expect(item.quantity, where).toBeLessThanOrEqual(MAX_LINE_QUANTITY);
            }
          }
          // one line of a type of this event, a whole quantity: the answer follows from the type alone
          if (b.items.length === 1) {
            const q = asParsed(b.items[0]!.quantity);
            const type = types[slug]!.find((x) => x.id === asParsed(b.items[0]!.ticket_type_id));
            if (type && typeof q === 'number' && Number.isInteger(q) && type.key !== 'limited') {
              // (a free order without an email may be refused for that first)
              if (type.capacity !== null && q > type.capacity && (type.price > 0 || b.email))
                expect([res.statusCode, json.error?.code], where).toEqual([409, 'sold_out']);
              if (type.capacity === null && q > MAX_LINE_QUANTITY)
                expect([res.statusCode, json.error?.code], where).toEqual([422, 'invalid_items']);
            }
            if (typeof q !== 'number' || !Number.isFinite(q) || !Number.isInteger(q))
              expect([res.statusCode, json.error?.code], where).toEqual([422, 'invalid_body']);
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    });
  }
});

interface Line {
  quantity: number;
  unit_price_cents: number;
  total_cents: number;
  tax_cents: number;
}

/** An order that was taken: every figure a safe integer, each line its unit price times its quantity, the subtotal their sum. */
function checkFigures(o: { lines: Line[]; subtotal_cents: number; total_cents: number }, exclusive: boolean, where: string) {
  let subtotal = 0n;
  for (const l of o.lines) {
    for (const v of [l.quantity, l.unit_price_cents, l.total_cents, l.tax_cents])
      expect(Number.isSafeInteger(v), where).toBe(true);
    expect(BigInt(l.total_cents), where).toBe(BigInt(l.unit_price_cents) * BigInt(l.quantity));
    subtotal += BigInt(l.total_cents) + (exclusive ? BigInt(l.tax_cents) : 0n);
  }
  expect(BigInt(o.subtotal_cents), where).toBe(subtotal);
  expect(o.total_cents, where).toBeLessThanOrEqual(MAX_ORDER_CENTS);
}
