import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { reportsFixture, type ReportsAccount } from './reports.fixture.ts';

let t: TestApp;
let a: ReportsAccount;
beforeAll(async () => {
  ({ t, a } = await reportsFixture());
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
