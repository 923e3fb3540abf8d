import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import type { OrderIn } from '../import/account-file.ts';
import { INCOME_FIGURES } from './income.service.ts';

let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;

const ga = (quantity: number, unit = 2500) => ({
  kind: 'tickets' as const,
  ref: 'ga',
  quantity,
  unit_price: unit,
  tax_rate_bp: 700,
});
const sbx = (amount: number, at: string, extra: object = {}) => [
  { rail: 'sandbox' as const, amount, at, fee: 0, provider_ref: `sbx_${at}`, ...extra },
];

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'berlin',
          currency: 'eur',
          currencies: ['eur', 'gbp'],
          fx_rates: { gbp: 1.17 },
          timezone: 'Europe/Berlin',
          ticket_types: [
            { key: 'ga', name: 'General', price: 2500, prices: { gbp: 2200 }, capacity: 100, tax_rate_bp: 700 },
            { key: 'crew', name: 'Crew', price: 0, audience: 'crew' },
          ],
          goods: [{ key: 'tote', name: 'Tote', price: 1200, capacity: 50, tax_rate_bp: 1900 }],
          donations: [{ key: 'fund', name: 'Fund' }],
          audiences: [{ key: 'crew', name: 'Crew' }],
          portals: [{ key: 'uni', name: 'University' }],
          discount_codes: [{ code: 'FRIENDS10', percent_off: 10 }],
          saved_reports: [
            { name: 'Paid by week', query: 'group=week&range=all&paid=1' },
            { name: 'Codes', query: 'group=code&range=all' },
          ],
          orders: [
            makeOrder({
              ref: 'ORD-1',
              created_at: '2026-10-24T21:00:00Z',
              paid_at: '2026-10-24T21:30:00Z',
              lines: [ga(2), { kind: 'goods', ref: 'tote', quantity: 1, unit_price: 1200, tax_rate_bp: 1900 }],
              discounts: [{ code: 'FRIENDS10', amount: 620 }],
              payments: sbx(5580, '2026-10-24T21:30:00Z'),
            }),
            makeOrder({
              ref: 'ORD-2',
              currency: 'gbp',
              fx_rate: 1.17,
              portal: 'uni',
              created_at: '2026-10-31T23:30:00Z',
              paid_at: '2026-10-31T23:45:00Z',
              lines: [ga(1, 2200)],
              payments: [
                {
                  rail: 'card',
                  amount: 2200,
                  at: '2026-10-31T23:45:00Z',
                  fee: 90,
                  fee_currency: 'gbp',
                  platform_fee: 30,
                  provider_ref: 'pi_2',
                },
              ],
              refunds: [
                { amount: 1000, at: '2026-11-05T10:00:00Z' },
                { amount: 500, at: '2026-11-06T10:00:00Z', status: 'failed' },
              ],
            }),
            makeOrder({
              ref: 'ORD-3',
              status: 'refunded',
              created_at: '2026-11-02T10:00:00Z',
              paid_at: '2026-11-02T10:05:00Z',
              lines: [ga(1)],
              payments: [{ rail: 'card', amount: 2500, at: '2026-11-02T10:05:00Z', fee: null, provider_ref: 'pi_3' }],
              refunds: [{ amount: 2500, at: '2026-11-03T10:00:00Z' }],
            }),
            makeOrder({
              ref: 'ORD-4',
              audience: 'crew',
              created_at: '2026-11-03T09:00:00Z',
              paid_at: '2026-11-03T09:00:00Z',
              lines: [{ kind: 'tickets', ref: 'crew', quantity: 1, unit_price: 0 }],
              payments: [],
            }),
            makeOrder({
              ref: 'ORD-5',
              status: 'pending',
              created_at: '2026-11-20T10:00:00Z',
              paid_at: undefined,
              expires_at: '2027-01-01T00:00:00Z',
              lines: [ga(1)],
              payments: [],
            }),
            makeOrder({
              ref: 'ORD-6',
              status: 'pending',
              created_at: '2026-11-01T10:00:00Z',
              paid_at: undefined,
              expires_at: '2026-11-05T00:00:00Z',
              lines: [ga(1)],
              payments: [],
            }),
            makeOrder({
              ref: 'ORD-7',
              status: 'canceled',
              created_at: '2026-11-04T10:00:00Z',
              paid_at: undefined,
              lines: [ga(1)],
              payments: [],
            }),
            makeOrder({
              ref: 'ORD-8',
              created_at: '2026-11-10T08:00:00Z',
              paid_at: '2026-11-10T08:00:00Z',
              lines: [{ kind: 'donations', ref: 'fund', quantity: 1, unit_price: 1000 }, ga(1)],
              payments: [
                { rail: 'card', amount: 3500, at: '2026-11-10T08:00:00Z', fee: 130, fee_currency: 'eur', provider_ref: 'pi_8' },
              ],
            }),
          ],
        }),
        makeEvent({
          slug: 'dst',
          timezone: 'Europe/Berlin',
          ticket_types: [{ key: 'ga', name: 'GA', price: 1000 }],
          orders: ['2026-10-24T22:30:00Z', '2026-10-25T22:30:00Z', '2026-10-25T23:00:00Z'].map((at, i) =>
            makeOrder({
              ref: `DST-${i}`,
              created_at: at,
              paid_at: at,
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 1000 }],
              payments: sbx(1000, at),
            }),
          ),
        }),
        makeEvent({
          slug: 'kiritimati',
          timezone: 'Pacific/Kiritimati',
          ticket_types: [{ key: 'ga', name: 'GA', price: 1000 }],
          sessions: [{ key: 's1', starts_at: '2027-01-01T20:00:00Z', ends_at: '2027-01-01T22:00:00Z', capacity: 5 }],
          orders: [
            makeOrder({
              ref: 'KIR-1',
              created_at: '2026-10-31T10:30:00Z',
              paid_at: '2026-10-31T10:30:00Z',
              lines: [
                { kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 1000 },
                { kind: 'sessions', ref: 's1', quantity: 1, unit_price: 0 },
              ],
              payments: [{ rail: 'sandbox', amount: 1000, at: '2026-10-31T10:30:00Z', fee: 0, provider_ref: 'sbx_k' }],
            }),
          ],
        }),
      ],
    }),
  );
});
afterAll(() => t.close());

const get = (url: string, token = a.tokens.all) => t.call(token, { method: 'GET', url: `/api/v1/events/${url}` });

describe('GET income', () => {
  it('computes every figure of 2.2, by month in the event timezone, converting foreign money per order', async () => {
    const res = await get('berlin/income?range=all');
    expect(res.statusCode).toBe(200);
    const oct = {
      month: '2026-10',
      orders: 1,
      gross_cents: 6200,
      discount_cents: 620,
      refund_cents: 0,
      refunded_orders: 0,
      collected_cents: 5580,
      tax_cents: 519,
      fees_cents: 0,
      platform_fee_cents: 0,
      unpriced_payments: 0,
      net_cents: 5061,
      pending_cents: 0,
      pending_orders: 0,
    };
    // O-2 in GBP at 1.17: gross 2574, refund 1170, tax 168, platform fee 35; its GBP fee is established
    // (a cost, so not unpriced) but in another currency, so it stays out of fees_cents; O-3's fee is unpriced
    const nov = {
      month: '2026-11',
      orders: 3,
      gross_cents: 8574,
      discount_cents: 0,
      refund_cents: 3670,
      refunded_orders: 2,
      collected_cents: 4904,
      tax_cents: 496,
      fees_cents: 130,
      platform_fee_cents: 35,
      unpriced_payments: 1,
      net_cents: 4243,
      pending_cents: 2500,
      pending_orders: 1,
    };
    expect(res.json()).toEqual({
      range: 'all',
      from: '',
      to: '',
      on: 'paid',
      timezone: 'Europe/Berlin',
      currency: 'eur',
      orders: 4,
      gross_cents: 14774,
      discount_cents: 620,
      discount_codes: ['FRIENDS10'],
      refund_cents: 3670,
      refunded_orders: 2,
      collected_cents: 10484,
      tax_cents: 1015,
      fees_cents: 130,
      platform_fee_cents: 35,
      unpriced_payments: 1,
      net_cents: 9304,
      pending_cents: 2500,
      pending_orders: 1,
      months: [oct, nov],
    });
  });

  it('follows payment changes at once: a fee established later, a payment added or removed (payments trigger)', async () => {
    const before = (await get('berlin/income?range=all')).json();
    const unpriced = await t.ctx.db
      .selectFrom('payments as p')
      .innerJoin('orders as o', 'o.id', 'p.order_id')
      .select(['p.id', 'p.order_id', 'p.account_id', 'p.amount_cents', 'p.currency'])
      .where('p.status', '=', 'succeeded')
      .where('p.fee_cents', 'is', null)
      .where('p.currency', '=', 'eur')
      .executeTakeFirstOrThrow();
    // the fee job establishes the cost in the event currency: one fewer unpriced, its fee counted
    await t.ctx.db.updateTable('payments').set({ fee_cents: 77, fee_currency: 'eur' }).where('id', '=', unpriced.id).execute();
    const priced = (await get('berlin/income?range=all')).json();
    expect(priced.unpriced_payments).toBe(before.unpriced_payments - 1);
    expect(priced.fees_cents).toBe(before.fees_cents + 77);
    expect(priced.net_cents).toBe(before.net_cents - 77);
    // a second payment on the same order adds its fee; the order is still counted once
    const extra = await t.ctx.db
      .insertInto('payments')
      .values({
        account_id: unpriced.account_id,
        order_id: unpriced.order_id,
        rail: 'card',
        provider: 'stripe',
        status: 'succeeded',
        amount_cents: 100,
        currency: 'eur',
        fee_cents: 3,
        fee_currency: 'eur',
        created_at: new Date('2026-11-10T10:00:00Z'),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const twice = (await get('berlin/income?range=all')).json();
    expect(twice.orders).toBe(before.orders);
    expect(twice.fees_cents).toBe(before.fees_cents + 80);
    await t.ctx.db.deleteFrom('payments').where('id', '=', extra.id).execute();
    await t.ctx.db.updateTable('payments').set({ fee_cents: null, fee_currency: null }).where('id', '=', unpriced.id).execute();
    expect((await get('berlin/income?range=all')).json()).toEqual(before);
  });

  it('a payment fee settled in another currency is a cost, not unpriced; a missing fee is unpriced', async () => {
    const before = (await get('berlin/income?range=all')).json();
    const gbp = await t.ctx.db
      .selectFrom('payments')
      .select(['id', 'fee_cents', 'fee_currency'])
      .where('provider_ref', '=', 'pi_2')
      .executeTakeFirstOrThrow();
    expect(gbp).toMatchObject({ fee_cents: 90, fee_currency: 'gbp' });
    // the fee becomes unknown: one more unpriced payment, fees_cents unchanged (it never held it)
    await t.ctx.db.updateTable('payments').set({ fee_cents: null, fee_currency: null }).where('id', '=', gbp.id).execute();
    const unknown = (await get('berlin/income?range=all')).json();
    expect(unknown.unpriced_payments).toBe(before.unpriced_payments + 1);
    expect(unknown.fees_cents).toBe(before.fees_cents);
    await t.ctx.db.updateTable('payments').set({ fee_cents: 90, fee_currency: 'gbp' }).where('id', '=', gbp.id).execute();
    expect((await get('berlin/income?range=all')).json()).toEqual(before);
  });

  it('an account on its own provider key reports platform_fee_cents 0, whatever its imported history carries', async () => {
    const own = await seedAccount(
      t.ctx,
      makeAccountFile({
        slug: 'ownkey',
        events: [
          makeEvent({
            slug: 'ownkey-fest',
            currency: 'eur',
            timezone: 'Europe/Berlin',
            ticket_types: [{ key: 'ga', name: 'General', price: 2500, capacity: 100 }],
            orders: [
              makeOrder({
                ref: 'OWN-1',
                created_at: '2026-11-01T10:00:00Z',
                paid_at: '2026-11-01T10:05:00Z',
                lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 2500 }],
                payments: [
                  {
                    rail: 'card',
                    amount: 2500,
                    at: '2026-11-01T10:05:00Z',
                    fee: 60,
                    fee_currency: 'eur',
                    platform_fee: 40,
                    provider_ref: 'pi_own',
                  },
                ],
              }),
            ],
          }),
        ],
      }),
    );
    const report = async () => {
      const res = await t.call(own.tokens.all, { method: 'GET', url: '/api/v1/events/ownkey-fest/income?range=all' });
      expect(res.statusCode).toBe(200);
      return res.json();
    };
    // imported as a sandbox (platform) account: the platform fee is reported and deducted
    const platform = await report();
    expect(platform.platform_fee_cents).toBe(40);
    expect(platform.months[0].platform_fee_cents).toBe(40);
    expect(platform.net_cents).toBe(2500 - 60 - 40);
    await t.ctx.db.updateTable('accounts').set({ payments_mode: 'own_key' }).where('slug', '=', 'ownkey').execute();
    const ownKey = await report();
    expect(ownKey.platform_fee_cents).toBe(0);
    expect(ownKey.months[0].platform_fee_cents).toBe(0);
    expect(ownKey.net_cents).toBe(2500 - 60);
    expect(ownKey.net_cents).toBe(ownKey.collected_cents - ownKey.tax_cents - ownKey.fees_cents - ownKey.platform_fee_cents);
  });

  it('dates by the start when on=started, pending always by the start, windows clamp', async () => {
    const started = (await get('berlin/income?range=custom&from=2026-11-01&to=2026-11-30&on=started')).json();
    // O-2 started 31 Oct 23:30 UTC = 1 Nov 00:30 in Berlin: inside November
    expect(started).toMatchObject({
      range: 'custom',
      from: '2026-11-01',
      to: '2026-11-30',
      on: 'started',
      orders: 3,
      pending_cents: 2500,
    });
    const def = (await get('berlin/income?range=bogus&on=bogus')).json();
    expect(def).toMatchObject({ range: '30d', on: 'paid', from: '', to: '' });
    expect(def.orders).toBe(4); // all four were paid after 23 Oct 12:00, thirty days before 22 Nov
    const kir = (await get('kiritimati/income?range=all')).json();
    expect(kir.months.map((m: { month: string }) => m.month)).toEqual(['2026-11']);
  });

  it('404 for an unknown event, 403 without events.view', async () => {
    expect((await get('nope/income')).statusCode).toBe(404);
    expect((await get('berlin/income', a.tokens.orders)).statusCode).toBe(403);
  });
});

describe('GET availability', () => {
  it('rows by kind with sold, live pending, portals and status', async () => {
    const res = (await get('berlin/availability')).json();
    expect(res).toEqual({
      rows: [
        {
          kind: 'tickets',
          name: 'General',
          capacity: 100,
          sold: 4,
          pending: 1,
          taken: 5,
          via_portals: 1,
          portals: [{ portal: 'uni', units: 1 }],
          remaining: 95,
          status: '',
        },
        {
          kind: 'tickets',
          name: 'Crew',
          capacity: null,
          sold: 1,
          pending: 0,
          taken: 1,
          via_portals: 0,
          portals: [],
          remaining: null,
          status: '',
        },
        {
          kind: 'goods',
          name: 'Tote',
          capacity: 50,
          sold: 1,
          pending: 0,
          taken: 1,
          via_portals: 0,
          portals: [],
          remaining: 49,
          status: '',
        },
        {
          kind: 'donations',
          name: 'Fund',
          capacity: null,
          sold: 1,
          pending: 0,
          taken: 1,
          via_portals: 0,
          portals: [],
          remaining: null,
          status: '',
        },
      ],
      listed: 4,
      sold: 7,
      pending: 1,
      sold_out: 0,
    });
    const noScope = (await get('berlin/availability', a.tokens.view)).json();
    expect(noScope.rows[0]).toMatchObject({ via_portals: 1, portals: [] });
  });

  it('names unnamed sessions by when they run, in the event timezone; off sale wins over sold out', async () => {
    const res = (await get('kiritimati/availability')).json();
    expect(res.rows[1]).toMatchObject({
      kind: 'sessions',
      name: 'Sat, 2 Jan 2027, 10:00–12:00',
      capacity: 5,
      sold: 1,
      remaining: 4,
    });
    await t.ctx.db
      .updateTable('ticket_types')
      .set({ capacity: 1, on_sale: false })
      .where('key', '=', 'ga')
      .where('name', '=', 'GA')
      .execute();
    const off = (await get('kiritimati/availability')).json();
    expect(off.rows[0]).toMatchObject({ capacity: 1, remaining: 0, status: 'off sale' });
    expect(off.sold_out).toBe(1);
  });
});

describe('GET report', () => {
  it('groups by month in one currency with totals', async () => {
    const res = (await get('berlin/report?group=month&range=all')).json();
    expect(res).toEqual({
      source: 'orders',
      group: 'month',
      range: 'all',
      from: '',
      to: '',
      on: 'paid',
      status: '',
      audience: '',
      code: '',
      paid: false,
      timezone: 'Europe/Berlin',
      currency: 'eur',
      rows: [
        {
          key: '2026-10',
          orders: 1,
          units: 2,
          gross_cents: 6200,
          discount_cents: 620,
          amount_cents: 5580,
          refund_cents: 0,
          currency: 'eur',
        },
        {
          key: '2026-11',
          orders: 3,
          units: 3,
          gross_cents: 6000,
          discount_cents: 0,
          amount_cents: 6000,
          refund_cents: 2500,
          currency: 'eur',
        },
      ],
      totals: {
        key: 'total',
        orders: 4,
        units: 5,
        gross_cents: 12200,
        discount_cents: 620,
        amount_cents: 11580,
        refund_cents: 2500,
        currency: 'eur',
      },
    });
    const gbp = (await get('berlin/report?group=month&range=all&currency=gbp')).json();
    expect(gbp.currency).toBe('gbp');
    expect(gbp.rows).toEqual([
      {
        key: '2026-11',
        orders: 1,
        units: 1,
        gross_cents: 2200,
        discount_cents: 0,
        amount_cents: 2200,
        refund_cents: 1000,
        currency: 'gbp',
      },
    ]);
    expect((await get('berlin/report?range=all&currency=usd')).json().currency).toBe('eur');
  });

  it('groups by code, audience and status, biggest gross first', async () => {
    const code = (await get('berlin/report?group=code&range=all')).json();
    expect(code.rows.map((r: { key: string; gross_cents: number }) => [r.key, r.gross_cents])).toEqual([
      ['FRIENDS10', 6200],
      ['-', 6000],
    ]);
    const aud = (await get('berlin/report?group=audience&range=all')).json();
    expect(aud.rows.map((r: { key: string; orders: number }) => [r.key, r.orders])).toEqual([
      ['-', 3],
      ['crew', 1],
    ]);
    const st = (await get('berlin/report?group=status&range=all&on=started')).json();
    expect(st.rows.map((r: { key: string; orders: number }) => [r.key, r.orders])).toEqual([
      ['paid', 3],
      ['pending', 2],
      ['canceled', 1],
      ['refunded', 1],
    ]);
  });

  it('filters status, audience, code, paid=1 and echoes what ran', async () => {
    const f = async (q: string) => (await get(`berlin/report?range=all&${q}`)).json();
    expect((await f('status=paid')).totals.orders).toBe(3);
    expect((await f('status=nonsense')).status).toBe('');
    expect((await f('paid=1')).totals.orders).toBe(3);
    expect((await f('paid=yes')).paid).toBe(false);
    expect((await f('code=FRIENDS10')).totals.orders).toBe(1);
    expect((await f('code=-')).totals.orders).toBe(3);
    expect((await f('audience=-')).totals.orders).toBe(3);
    const crew = await f('audience=crew');
    expect([crew.audience, crew.totals.orders]).toEqual(['crew', 1]);
    expect((await f('group=weird')).group).toBe('day');
    const src = await get('berlin/report?source=tickets');
    expect(src.statusCode).toBe(400);
    expect(src.json().error.code).toBe('unsupported_source');
    expect((await get('berlin/report?source=orders')).statusCode).toBe(200);
    expect((await get('berlin/report?range=all&range=7d')).json().range).toBe('all');
  });

  it('cuts days and Monday weeks in the event timezone across a 25-hour day', async () => {
    const day = (await get('dst/report?range=all&group=day')).json();
    expect(day.rows.map((r: { key: string; orders: number }) => [r.key, r.orders])).toEqual([
      ['2026-10-25', 2],
      ['2026-10-26', 1],
    ]);
    const week = (await get('dst/report?range=all&group=week')).json();
    expect(week.rows.map((r: { key: string; orders: number }) => [r.key, r.orders])).toEqual([
      ['2026-10-19', 2],
      ['2026-10-26', 1],
    ]);
    const custom = (await get('dst/report?range=custom&from=2026-10-25&to=2026-10-25')).json();
    expect(custom.totals.orders).toBe(2);
    const onlyTo = (await get('dst/report?range=custom&to=2026-10-25&from=garbage')).json();
    expect([onlyTo.from, onlyTo.to, onlyTo.totals.orders]).toEqual(['', '2026-10-25', 2]);
  });
});

describe('GET reports (saved)', () => {
  it('lists oldest first; each query runs as is against /report', async () => {
    const res = (await get('berlin/reports')).json();
    expect(res.reports.map((r: { name: string }) => r.name)).toEqual(['Paid by week', 'Codes']);
    expect(res.reports[0]).toEqual({
      id: expect.any(Number),
      name: 'Paid by week',
      query: 'group=week&range=all&paid=1',
      created_at: expect.any(String),
    });
    for (const r of res.reports) {
      const ran = await get(`berlin/report?${r.query}`);
      expect(ran.statusCode).toBe(200);
      expect(ran.json().range).toBe('all');
    }
    expect((await get('nope/reports')).json()).toEqual({ reports: [] });
  });
});

describe('money identities (property)', () => {
  it('months sum to the totals; collected and net decompose exactly', async () => {
    const order = fc.record({
      currency: fc.constantFrom('eur', 'gbp'),
      quantity: fc.integer({ min: 1, max: 5 }),
      unit: fc.integer({ min: 0, max: 20000 }),
      tax: fc.constantFrom(0, 700, 1900, 2000),
      discount: fc.integer({ min: 0, max: 100 }),
      refund: fc.integer({ min: 0, max: 100 }),
      fee: fc.option(fc.integer({ min: 0, max: 500 }), { nil: null }),
      platform: fc.integer({ min: 0, max: 300 }),
      day: fc.integer({ min: 0, max: 700 }),
      status: fc.constantFrom('paid', 'pending', 'canceled'),
    });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(order, { minLength: 1, maxLength: 12 }),
        fc.constantFrom('Europe/Berlin', 'Pacific/Auckland', 'America/Los_Angeles'),
        async (orders, tz) => {
          n++;
          const slug = `prop-${n}`;
          const hist: OrderIn[] = orders.map((o, i) => {
            const total = o.unit * o.quantity;
            const discount = Math.floor((total * o.discount) / 100);
            const charged = total - discount;
            const refund = Math.floor((charged * o.refund) / 100);
            const at = new Date(Date.UTC(2025, 0, 1) + o.day * 86_400_000 + i * 3_600_000).toISOString();
            return {
              ref: `P${n}-${i}`.padEnd(4, 'X'),
              status: o.status === 'paid' && refund > 0 && refund === charged ? 'refunded' : (o.status as OrderIn['status']),
              currency: o.currency,
              fx_rate: o.currency === 'gbp' ? 1.17 : 1,
              created_at: at,
              ...(o.status === 'paid' ? { paid_at: at } : {}),
              ...(o.status === 'pending' ? { expires_at: '2030-01-01T00:00:00Z' } : {}),
              lines: [{ kind: 'tickets', ref: 'ga', quantity: o.quantity, unit_price: o.unit, tax_rate_bp: o.tax }],
              discounts: discount ? [{ code: 'C', amount: discount }] : [],
              payments:
                o.status === 'paid' && charged > 0
                  ? [
                      {
                        rail: 'card',
                        amount: charged,
                        at,
                        fee: o.fee,
                        fee_currency: 'eur',
                        platform_fee: o.platform,
                        provider_ref: `pi_${n}_${i}`,
                      },
                    ]
                  : [],
              refunds: o.status === 'paid' && refund > 0 && charged > 0 ? [{ amount: refund, at }] : [],
            };
          });
          await seedAccount(
            t.ctx,
            makeAccountFile({
              slug,
              events: [
                makeEvent({
                  slug,
                  timezone: tz,
                  currencies: ['eur', 'gbp'],
                  fx_rates: { gbp: 1.17 },
                  ticket_types: [{ key: 'ga', name: 'GA', price: 100, prices: { gbp: 90 } }],
                  orders: hist,
                }),
              ],
            }),
          );
          const r = (
            await t.call(`adm_test_all_${slug}_0123456789abcdef`.slice(0, 64), {
              method: 'GET',
              url: `/api/v1/events/${slug}/income?range=all`,
            })
          ).json();
          const keys = INCOME_FIGURES;
          for (const k of keys)
            expect(
              r.months.reduce((s: number, m: Record<string, number>) => s + m[k]!, 0),
              k,
            ).toBe(r[k]);
          for (const x of [r, ...r.months]) {
            expect(x.collected_cents).toBe(x.gross_cents - x.discount_cents - x.refund_cents);
            expect(x.net_cents).toBe(x.collected_cents - x.tax_cents - x.fees_cents - x.platform_fee_cents);
          }
          const sorted = [...r.months.map((m: { month: string }) => m.month)].sort();
          expect(r.months.map((m: { month: string }) => m.month)).toEqual(sorted);
        },
      ),
      { numRuns: 25, seed: 20261122 },
    );
  });
});
