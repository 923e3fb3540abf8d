import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { MAX_LINE_QUANTITY, MAX_ORDER_CENTS, MAX_PRICE_CENTS, PG_INT_MAX } from '../../platform/limits.ts';
import { findEventBySlug } from '../events/events.repo.ts';
import { boundsProblem } from './order-bounds.ts';
import { writeBatch } from './order-writer.repo.ts';
import { prepareOrder } from './place-order.service.ts';
import { priceLine } from './pricing.ts';
import { tryReserve } from '../inventory/stock.repo.ts';

/**
 * Every number on the order path either refused with the documented error or computed exactly:
 * quantities of any size (2^31, 2^53, 1e21), figures past MAX_ORDER_CENTS, stock sums past what
 * an integer column holds.
 */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let types: Record<string, number>;

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'bounds',
      events: [
        makeEvent({
          slug: 'gala',
          ticket_types: [
            { key: 'vip', name: 'VIP', price: 6000, capacity: 2, tax_rate_bp: 700 },
            { key: 'open', name: 'Open', price: 2500, tax_rate_bp: 700 },
            { key: 'free', name: 'Free', price: 0 },
            { key: 'ten', name: 'Ten', price: 1000, capacity: 100, max_per_order: 10 },
            { key: 'off', name: 'Off', price: 1000, capacity: 5, on_sale: false },
            { key: 'big', name: 'Big', price: 1000, capacity: 20_000 },
            { key: 'dear', name: 'Dear', price: MAX_PRICE_CENTS },
            { key: 'dear2', name: 'Dear two', price: MAX_PRICE_CENTS, capacity: 2 },
          ],
        }),
      ],
    }),
  );
  const rows = await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).execute();
  types = Object.fromEntries(rows.map((r) => [r.key, r.id]));
});
afterAll(() => t.close());

/** A body with one line, the quantity written into the JSON as given (so 1e21 and 2^53 + 2 travel as JSON numbers). */
const order = (key: string, quantity: number | string, email = 'buyer@example.org') =>
  t.call(a.tokens.all, {
    method: 'POST',
    url: '/api/v1/events/gala/orders',
    headers: { 'content-type': 'application/json' },
    payload: `{"items":[{"ticket_type_id":${types[key]},"quantity":${quantity}}],"email":"${email}"}`,
  });

async function rowCounts(): Promise<string> {
  const r = await sql<{ s: string }>`select concat_ws(',', (select count(*) from orders), (select count(*) from order_lines),
    (select count(*) from tickets), (select sum(taken) from inventory), (select count(*) from outbox)) as s`.execute(t.ctx.db);
  return r.rows[0]!.s;
}

const HUGE = [2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 - 1, '9007199254740992', '9007199254740994', '1e21', '1e300'];

describe('quantities of any size', () => {
  it('a capped type answers a quantity past anything it could sell as any quantity beyond stock: 409, nothing written', async () => {
    const before = await rowCounts();
    const beyond = await order('vip', 3);
    expect(beyond.statusCode).toBe(409);
    expect(beyond.json()).toEqual({ error: { code: 'sold_out', message: '"VIP": only 2 left' } });
    for (const q of [MAX_LINE_QUANTITY + 1, ...HUGE]) {
      const res = await order('vip', q);
      expect({ q, status: res.statusCode, body: res.json() }).toEqual({ q, status: 409, body: beyond.json() });
    }
    expect(await rowCounts()).toBe(before);
  });

  it('an uncapped type takes at most MAX_LINE_QUANTITY a line: past it 422 invalid_items, nothing written', async () => {
    const before = await rowCounts();
    for (const key of ['open', 'free', 'dear']) {
      for (const q of [MAX_LINE_QUANTITY + 1, ...HUGE]) {
        const res = await order(key, q);
        expect({ key, q, status: res.statusCode, code: res.json().error?.code }).toEqual({
          key,
          q,
          status: 422,
          code: 'invalid_items',
        });
        expect(res.json().error.message).toContain(`At most ${MAX_LINE_QUANTITY} of`);
      }
    }
    expect(await rowCounts()).toBe(before);
  });

  it('prices MAX_LINE_QUANTITY exactly, and mints that many tickets for a free order', async () => {
    const res = await order('open', MAX_LINE_QUANTITY);
    expect(res.statusCode).toBe(201);
    // 25,000,000 inclusive of 7%: round(25e6 * 700 / 10700)
    expect(res.json()).toMatchObject({ subtotal_cents: 25_000_000, total_cents: 25_000_000 });
    expect(res.json().lines[0]).toMatchObject({ quantity: MAX_LINE_QUANTITY, total_cents: 25_000_000, tax_cents: 1_635_514 });
    const free = await order('free', MAX_LINE_QUANTITY);
    expect(free.statusCode).toBe(201);
    expect(free.json().status).toBe('paid');
    const minted = await t.ctx.db
      .selectFrom('tickets')
      .innerJoin('orders', 'orders.id', 'tickets.order_id')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('orders.ref', '=', free.json().ref)
      .executeTakeFirstOrThrow();
    expect(minted.n).toBe(MAX_LINE_QUANTITY);
  });

  it("keeps the type's own refusals first, whatever the quantity", async () => {
    for (const q of [2 ** 53 - 1, '1e21']) {
      expect((await order('ten', q)).json().error).toEqual({
        code: 'invalid_items',
        message: 'At most 10 of "Ten" (' + types.ten + ') per order',
      });
      expect((await order('off', q)).json().error.message).toContain('is not on sale');
    }
    const unknown = await t.call(a.tokens.all, {
      method: 'POST',
      url: '/api/v1/events/gala/orders',
      headers: { 'content-type': 'application/json' },
      payload: '{"items":[{"ticket_type_id":1e21,"quantity":1e21}]}',
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.code).toBe('invalid_items');
    // two lines: the line over the bound without stock is a per-order cap, answered before any stock
    const two = await t.call(a.tokens.all, {
      method: 'POST',
      url: '/api/v1/events/gala/orders',
      headers: { 'content-type': 'application/json' },
      payload: `{"items":[{"ticket_type_id":${types.vip},"quantity":9007199254740991},{"ticket_type_id":${types.open},"quantity":9007199254740991}]}`,
    });
    expect(two.json().error).toMatchObject({ code: 'invalid_items', message: expect.stringContaining('"Open"') });
  });

  it('a type with more than the bound left: past the bound 422, past what is left 409', async () => {
    const before = await rowCounts();
    const over = await order('big', MAX_LINE_QUANTITY + 1);
    expect(over.statusCode).toBe(422);
    expect(over.json().error.code).toBe('invalid_items');
    const beyond = await order('big', 20_001);
    expect(beyond.statusCode).toBe(409);
    expect(beyond.json().error).toEqual({ code: 'sold_out', message: '"Big": only 20000 left' });
    expect(await rowCounts()).toBe(before);
  });
});

describe('figures', () => {
  it('takes an order up to MAX_ORDER_CENTS exactly, refuses one past it (422), and stock still comes first (409)', async () => {
    const most = await order('dear', MAX_ORDER_CENTS / MAX_PRICE_CENTS);
    expect(most.statusCode).toBe(201);
    expect(most.json()).toMatchObject({ subtotal_cents: MAX_ORDER_CENTS, total_cents: MAX_ORDER_CENTS });
    const before = await rowCounts();
    const past = await order('dear', MAX_ORDER_CENTS / MAX_PRICE_CENTS + 1);
    expect(past.statusCode).toBe(422);
    expect(past.json().error).toMatchObject({
      code: 'invalid_items',
      message: expect.stringContaining('the most one order can take'),
    });
    const short = await order('dear2', 200);
    expect(short.statusCode).toBe(409);
    expect(short.json().error).toEqual({ code: 'sold_out', message: '"Dear two": only 2 left' });
    expect(await rowCounts()).toBe(before);
  });

  it('boundsProblem: units past an integer column, a line or a running subtotal past the bound', () => {
    const line = (quantity: number, unit: number, rate = 0) =>
      priceLine(
        {
          kind: 'tickets',
          ticket_type_id: 1,
          good_id: null,
          session_id: null,
          donation_id: null,
          inventory_id: null,
          name: 'X',
          quantity,
          unit_price_cents: unit,
          tax_rate_bp: rate,
          included: false,
        },
        'exclusive',
      );
    expect(boundsProblem([line(PG_INT_MAX, 0)], 'exclusive', 'eur')).toBeNull();
    expect(boundsProblem([line(PG_INT_MAX + 1, 0)], 'exclusive', 'eur')).toBe('Too many of "X" in one order');
    expect(boundsProblem([line(1, MAX_ORDER_CENTS)], 'inclusive', 'eur')).toBeNull();
    expect(boundsProblem([line(1, MAX_ORDER_CENTS + 1)], 'inclusive', 'eur')).toMatch(/^The order comes to more than/);
    // exclusive tax counts in the subtotal; inclusive tax does not
    expect(boundsProblem([line(1, MAX_ORDER_CENTS, 1)], 'inclusive', 'eur')).toBeNull();
    expect(boundsProblem([line(1, MAX_ORDER_CENTS - 1, 10_000)], 'exclusive', 'eur')).not.toBeNull();
    expect(boundsProblem([line(1, MAX_ORDER_CENTS / 2), line(1, MAX_ORDER_CENTS / 2 + 1)], 'inclusive', 'eur')).not.toBeNull();
    // an inexact product is past the bound too
    expect(boundsProblem([line(2 ** 31, 2 ** 33 + 1)], 'inclusive', 'eur')).not.toBeNull();
  });
});

describe('stock sums past an integer column', () => {
  it('a batch of orders whose units add up past 2^31 is refused as sold out, not thrown', async () => {
    const account = await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', a.slug).executeTakeFirstOrThrow();
    const event = (await findEventBySlug(t.ctx.db, account.id, 'gala'))!;
    const prepared = [];
    for (let i = 0; i < 2; i++) {
      const items = [{ ticket_type_id: types.big!, quantity: 1 }];
      const p = await prepareOrder(t.ctx, { accountId: account.id, event, items, email: 'b@example.org', channel: 'api' });
      // as if each order took a line of PG_INT_MAX units (included goods multiply a line's quantity)
      prepared.push({ ...p, units: new Map([...p.units].map(([id]) => [id, PG_INT_MAX])) });
    }
    const before = await rowCounts();
    const out = await writeBatch(t.ctx, prepared);
    expect(out.map((o) => ('rejected' in o ? o.rejected.code : 'created'))).toEqual(['sold_out', 'sold_out']);
    expect(await rowCounts()).toBe(before);
  });

  it('tryReserve reports a row short for units past 2^31 instead of failing', async () => {
    const inv = await t.ctx.db
      .selectFrom('ticket_types')
      .select('inventory_id')
      .where('id', '=', types.big!)
      .executeTakeFirstOrThrow();
    const short = await t.ctx.db.transaction().execute((trx) => tryReserve(trx, new Map([[inv.inventory_id!, 2 ** 40]])));
    expect(short).toBe(inv.inventory_id);
  });
});
