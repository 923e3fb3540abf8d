import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import type { OrderIn } from '../events/event-document.ts';
import { INCOME_FIGURES } from './income.service.ts';
import { reportsFixture, type ReportsAccount } from './reports.fixture.ts';

let t: TestApp;
let a: ReportsAccount;
beforeAll(async () => {
  ({ t, a } = await reportsFixture());
});
afterAll(() => t.close());

const get = (url: string, token = a.tokens.all) => t.call(token, { method: 'GET', url: `/api/v1/events/${url}` });

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
