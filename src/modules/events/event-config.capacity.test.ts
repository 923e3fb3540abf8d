import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

/**
 * A lower capacity is checked against what live orders hold. A hold that ran out but was not yet
 * swept still counts in the stock row; it must not stand in the way, and the config writer does not
 * cancel orders itself (the orders module does: the sweeper, or the next order short of stock).
 */
let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'hall',
          ticket_types: [{ key: 'seat', name: 'Seat', price: 2000, capacity: 5 }],
          orders: [
            makeOrder({ ref: 'HALL-1', lines: [{ kind: 'tickets', ref: 'seat', quantity: 2, unit_price: 2000 }] }),
            makeOrder({
              ref: 'HALL-2',
              status: 'pending',
              expires_at: '2026-11-22T11:00:00Z', // an hour before the test clock: ran out, not swept
              lines: [{ kind: 'tickets', ref: 'seat', quantity: 2, unit_price: 2000 }],
            }),
          ],
        }),
      ],
    }),
  );
});
afterAll(() => t.close());

const call = (method: 'GET' | 'PUT' | 'POST', url: string, body?: unknown) =>
  t.call(acct.tokens.all, {
    method,
    url: `/api/v1${url}`,
    headers: json,
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
const withCapacity = (doc: { ticket_types: object[] }, capacity: number) => ({
  ...doc,
  ticket_types: doc.ticket_types.map((x) => ({ ...x, capacity })),
});

describe('lowering a capacity', () => {
  it('is refused below what paid orders and live holds take, naming the path', async () => {
    const doc = (await call('GET', '/events/hall/config')).json();
    const res = await call('PUT', '/events/hall/config', withCapacity(doc, 1));
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'conflict', path: '$.ticket_types[0].capacity' });
  });

  it('is not held up by a hold that ran out; the next order releases it and sells up to the new capacity', async () => {
    const doc = (await call('GET', '/events/hall/config')).json();
    const res = await call('PUT', '/events/hall/config', withCapacity(doc, 3));
    expect(res.statusCode, res.body).toBe(200);
    // the lapsed order is untouched by the config change: still pending until the orders module ends it
    expect((await call('GET', '/orders/HALL-2')).json().status).toBe('pending');
    const type = (await call('GET', '/events/hall/ticket-types')).json().ticket_types[0];
    const buy = (quantity: number) =>
      call('POST', '/events/hall/orders', { items: [{ ticket_type_id: type.id, quantity }], email: 'b@example.com' });
    expect((await buy(2)).statusCode).toBe(409); // 2 paid + 2 would pass 3
    const one = await buy(1);
    expect(one.statusCode, one.body).toBe(201);
    expect((await call('GET', '/orders/HALL-2')).json().status).toBe('canceled');
    expect((await buy(1)).statusCode).toBe(409);
  });
});
