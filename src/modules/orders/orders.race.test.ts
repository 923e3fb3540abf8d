import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';

/** Real concurrent requests against one database: stock and idempotency must hold under races. */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let ids: Record<string, number>;

beforeAll(async () => {
  t = await createTestApp();
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'rush',
          ticket_types: [
            { key: 'hot', name: 'Hot', price: 1000, capacity: 50 },
            { key: 'a', name: 'A', price: 1000, capacity: 40, includes: [{ good: 'cap' }] },
            { key: 'b', name: 'B', price: 1000, capacity: 40, includes: [{ good: 'cap', quantity: 2 }] },
            { key: 'idem', name: 'Idem', price: 1000, capacity: 1000 },
          ],
          goods: [{ key: 'cap', name: 'Cap', price: 0, capacity: 30 }],
        }),
      ],
    }),
  );
  const rows = await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).execute();
  ids = Object.fromEntries(rows.map((r) => [r.key, r.id]));
});
afterAll(() => t.close());

const order = (items: Array<{ ticket_type_id: number; quantity: number }>, key?: string) =>
  t.call(a.tokens.all, {
    method: 'POST',
    url: '/api/v1/events/rush/orders',
    headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    payload: JSON.stringify({ items }),
  });

async function sold(typeKey: string): Promise<number> {
  const r = await sql<{ n: number }>`select coalesce(sum(l.quantity), 0)::int as n from order_lines l
    join orders o on o.id = l.order_id join ticket_types tt on tt.id = l.ticket_type_id
    where tt.key = ${typeKey} and o.status in ('pending', 'paid')`.execute(t.ctx.db);
  return r.rows[0]!.n;
}

describe('races', () => {
  it('200 concurrent single-ticket orders on a capacity of 50: exactly 50 orders, 150 sold_out', async () => {
    const results = await Promise.all(Array.from({ length: 200 }, () => order([{ ticket_type_id: ids.hot!, quantity: 1 }])));
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201).length).toBe(50);
    expect(codes.filter((c) => c === 409).length).toBe(150);
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json().error.code).toBe('sold_out');
    expect(await sold('hot')).toBe(50);
    const inv = await t.ctx.db
      .selectFrom('inventory as i')
      .innerJoin('ticket_types as tt', 'tt.inventory_id', 'i.id')
      .select('i.taken')
      .where('tt.key', '=', 'hot')
      .executeTakeFirstOrThrow();
    expect(inv.taken).toBe(50);
  });

  it('mixed quantities with an included good of smaller capacity never exceed any capacity', async () => {
    const requests = Array.from({ length: 60 }, (_, i) =>
      order(
        i % 3 === 0
          ? [{ ticket_type_id: ids.a!, quantity: 1 + (i % 4) }]
          : i % 3 === 1
            ? [{ ticket_type_id: ids.b!, quantity: 1 + (i % 3) }]
            : [
                { ticket_type_id: ids.a!, quantity: 2 },
                { ticket_type_id: ids.b!, quantity: 1 },
              ],
      ),
    );
    const results = await Promise.all(requests);
    expect(results.every((r) => r.statusCode === 201 || r.statusCode === 409)).toBe(true);
    const caps = await sql<{
      n: number;
    }>`select coalesce(sum(l.quantity), 0)::int as n from order_lines l join orders o on o.id = l.order_id
      join goods g on g.id = l.good_id where g.key = 'cap' and o.status in ('pending','paid')`.execute(t.ctx.db);
    expect(caps.rows[0]!.n).toBeLessThanOrEqual(30);
    expect(await sold('a')).toBeLessThanOrEqual(40);
    expect(await sold('b')).toBeLessThanOrEqual(40);
    // the good is the binding constraint: it must be (nearly) exhausted, not left idle by a lost update
    expect(caps.rows[0]!.n).toBeGreaterThan(25);
    const inv = await sql<{ ok: boolean }>`select bool_and(taken <= capacity) as ok from inventory`.execute(t.ctx.db);
    expect(inv.rows[0]!.ok).toBe(true);
  });

  it('20 racing calls with one Idempotency-Key give one order', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => order([{ ticket_type_id: ids.idem!, quantity: 1 }], 'race-key')),
    );
    const refs = new Set(results.map((r) => r.json().ref));
    expect(refs.size).toBe(1);
    expect(results.filter((r) => r.statusCode === 201).length).toBe(1);
    expect(results.filter((r) => r.statusCode === 200).length).toBe(19);
    expect(await sold('idem')).toBe(1);
  });
});

describe.runIf(process.env.DATABASE_URL)('two app instances on one database', () => {
  it('400 orders split over two instances, each batching on its own: never more than the capacity sold', async () => {
    const duo = await seedAccount(
      t.ctx,
      makeAccountFile({
        slug: 'duo',
        events: [makeEvent({ slug: 'duo', ticket_types: [{ key: 'two', name: 'Two', price: 1000, capacity: 120 }] })],
      }),
    );
    const typeId = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'two').executeTakeFirstOrThrow()).id;
    const second = await createTestApp({ sameDatabaseAs: t });
    try {
      const quantity = (i: number) => (i % 3 === 0 ? 2 : 1);
      // ten waves of 40 racing requests, half on each instance; the first wave (at most 80 units)
      // cannot sell out, so both instances must sell in it, however unevenly they are warmed up
      const results = [];
      for (let wave = 0; wave < 10; wave++) {
        results.push(
          ...(await Promise.all(
            Array.from({ length: 40 }, (_, j) => {
              const i = wave * 40 + j;
              return (i % 2 ? second : t).call(duo.tokens.all, {
                method: 'POST',
                url: '/api/v1/events/duo/orders',
                headers: { 'content-type': 'application/json' },
                payload: JSON.stringify({ items: [{ ticket_type_id: typeId, quantity: quantity(i) }] }),
              });
            }),
          )),
        );
      }
      expect(results.every((r) => r.statusCode === 201 || r.statusCode === 409)).toBe(true);
      const okIdx = results.map((r, i) => (r.statusCode === 201 ? i : -1)).filter((i) => i >= 0);
      // both instances sold: the lock on the inventory row, not either process, keeps the count
      expect(okIdx.some((i) => i % 2 === 0) && okIdx.some((i) => i % 2 === 1)).toBe(true);
      const units = okIdx.reduce((n, i) => n + quantity(i), 0);
      expect(units).toBeLessThanOrEqual(120);
      // first come, first served: at most one unit is left when only pairs are still asking
      expect(units).toBeGreaterThanOrEqual(119);
      expect(await sold('two')).toBe(units);
      const inv = await sql<{ taken: number }>`select i.taken from inventory i join ticket_types tt on tt.inventory_id = i.id
        where tt.key = 'two'`.execute(t.ctx.db);
      expect(inv.rows[0]!.taken).toBe(units);
    } finally {
      await second.close();
    }
  });
});
