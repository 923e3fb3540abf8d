import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { MAX_CAPACITY, MAX_LINE_QUANTITY, MAX_PRICE_CENTS } from '../../platform/limits.ts';

/**
 * The management API's numbers that feed the checkout (prices, capacities, per-order maximums,
 * included quantities, exchange rates, code amounts) are held to the checkout's bounds: a number
 * past one is a 422 naming its JSON path, never a 500 from the database or a silently rounded value.
 */
let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'numbers',
      events: [
        makeEvent({
          slug: 'fest',
          currencies: ['eur', 'gbp'],
          fx_rates: { gbp: 1.17 },
          ticket_types: [
            { key: 'ga', name: 'GA', price: 5000, prices: { gbp: 4300 }, capacity: 10, includes: [{ good: 'band' }] },
            { key: 'vip', name: 'VIP', price: 9000, group_discounts: [{ min_quantity: 4, percent_off: 10 }] },
          ],
          goods: [{ key: 'band', name: 'Band', price: 0, capacity: 100 }],
          discount_codes: [
            { code: 'EARLY', percent_off: 15, max_uses: 100 },
            { code: 'FLAT', amount_off: 500 },
          ],
        }),
      ],
    }),
  );
});
afterAll(() => t.close());

const fingerprint = async () =>
  (
    await sql<{ f: string }>`select concat_ws('/',
      (select string_agg(concat_ws(':', key, price_cents, capacity, max_per_order, position), ',' order by id) from ticket_types),
      (select string_agg(concat_ws(':', capacity, taken), ',' order by id) from inventory),
      (select fx_rates::text from events where slug = 'fest'),
      (select count(*) from discount_codes)) as f`.execute(t.ctx.db)
  ).rows[0]!.f;

type Step = string | number;

/** The document as read, with the number at `steps` written into the JSON text as `text` (2^53 + 1 keeps its digits). */
async function documentWith(steps: Step[], text: string): Promise<string> {
  const doc = (await t.call(acct.tokens.all, { method: 'GET', url: '/api/v1/events/fest/config' })).json() as unknown;
  let node = doc as Record<Step, unknown>;
  for (const step of steps.slice(0, -1)) node = node[step] as Record<Step, unknown>;
  node[steps[steps.length - 1]!] = '@@';
  return JSON.stringify(doc).replace('"@@"', text);
}

const jsonPath = (steps: Step[]) => '$' + steps.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');

describe('numbers of the event configuration document', () => {
  const cases: Step[][] = [
    ['ticket_types', 0, 'price'],
    ['ticket_types', 0, 'prices', 'gbp'],
    ['ticket_types', 0, 'capacity'],
    ['ticket_types', 0, 'max_per_order'],
    ['ticket_types', 0, 'position'],
    ['ticket_types', 0, 'includes', 0, 'quantity'],
    ['ticket_types', 1, 'group_discounts', 0, 'min_quantity'],
    ['goods', 0, 'price'],
    ['goods', 0, 'capacity'],
    ['fx_rates', 'gbp'],
    ['discount_codes', 0, 'max_uses'],
    ['discount_codes', 1, 'amount_off'],
  ];

  it('refuses a number past its bound with 422 at its path, changing nothing', async () => {
    const before = await fingerprint();
    for (const steps of cases) {
      const path = jsonPath(steps);
      for (const n of ['10000000001', '9007199254740993', '1e21', '1e300']) {
        const payload = await documentWith(steps, n);
        const res = await t.call(acct.tokens.all, { method: 'PUT', url: '/api/v1/events/fest/config', headers: json, payload });
        expect({ path, n, status: res.statusCode, code: res.json().error?.code }).toEqual({
          path,
          n,
          status: 422,
          code: 'validation_failed',
        });
        expect(Object.keys(res.json().error.fields), `${path} ${n}`).toContain(path);
      }
    }
    expect(await fingerprint()).toBe(before);
  });

  it('takes the bounds themselves', async () => {
    const doc = (await t.call(acct.tokens.all, { method: 'GET', url: '/api/v1/events/fest/config' })).json();
    Object.assign(doc.ticket_types[0], { price: MAX_PRICE_CENTS, capacity: MAX_CAPACITY, max_per_order: MAX_LINE_QUANTITY });
    doc.ticket_types[0].includes[0].quantity = MAX_LINE_QUANTITY;
    doc.fx_rates.gbp = 0.5;
    const res = await t.call(acct.tokens.all, {
      method: 'PUT',
      url: '/api/v1/events/fest/config',
      headers: json,
      payload: JSON.stringify(doc),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().ticket_types[0]).toMatchObject({ price: MAX_PRICE_CENTS, capacity: MAX_CAPACITY });
  });
});

describe('numbers of the ticket-type patch and discount codes', () => {
  it('refuses a price, capacity or maximum past its bound, and ids no row can have', async () => {
    const id = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'vip').executeTakeFirstOrThrow()).id;
    const before = await fingerprint();
    for (const payload of [
      `{"price_cents":${MAX_PRICE_CENTS + 1}}`,
      '{"price_cents":9007199254740993}',
      `{"capacity":${MAX_CAPACITY + 1}}`,
      `{"max_per_order":${MAX_LINE_QUANTITY + 1}}`,
      '{"position":1e21}',
    ]) {
      const res = await t.call(acct.tokens.all, {
        method: 'PATCH',
        url: `/api/v1/events/fest/ticket-types/${id}`,
        headers: json,
        payload,
      });
      expect([payload, res.statusCode, res.json().error?.code]).toEqual([payload, 422, 'validation_failed']);
    }
    for (const ids of ['9223372036854775808', '1e21', '9007199254740993']) {
      const res = await t.call(acct.tokens.all, {
        method: 'POST',
        url: '/api/v1/events/fest/discount-codes',
        headers: json,
        payload: `{"code":"BIG","percent_off":5,"ticket_types":[${ids}]}`,
      });
      expect([ids, res.statusCode, res.json().error?.code]).toEqual([ids, 422, 'validation_failed']);
    }
    expect(await fingerprint()).toBe(before);
  });
});
