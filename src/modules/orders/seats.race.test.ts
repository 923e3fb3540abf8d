import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { hallPlan } from '../events/seating.fixture.ts';

/**
 * Racing buyers of seats (contract section 12): whatever runs at once, on one instance or two,
 * no seat is ever held or sold to two orders, every order gets exactly its seats, and the type's
 * stock counts exactly the seats taken. Real concurrency needs PostgreSQL (DATABASE_URL); PGlite
 * runs the same requests one connection at a time.
 */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let typeId: number;

beforeAll(async () => {
  t = await createTestApp();
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'race',
      events: [
        makeEvent({
          slug: 'hall',
          ticket_types: [{ key: 'seat', name: 'Seat', price: 3000 }],
          // 6 rows of 10: 60 seats
          seating: { plan: hallPlan(6, 10), categories: { Hall: 'seat' } },
        }),
      ],
    }),
  );
  typeId = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'seat').executeTakeFirstOrThrow()).id;
});
afterAll(() => t.close());

const buy = (app: TestApp, seats?: string[]) =>
  app.call(a.tokens.all, {
    method: 'POST',
    url: '/api/v1/events/hall/orders',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ items: [{ ticket_type_id: typeId, quantity: 2, ...(seats ? { seats } : {}) }] }),
  });

/** Two seats among the first 20 (rows 1 and 2), side by side, chosen by a buyer. */
const pair = (i: number) => {
  const n = (i * 7) % 19;
  const row = 1 + Math.floor(n / 10);
  const s = (n % 10) + 1;
  return s < 10 ? [`h-${row}-${s}`, `h-${row}-${s + 1}`] : [`h-${row}-${s}`, `h-${row}-${s - 1}`];
};

interface Answer {
  statusCode: number;
  json(): { seats: Array<{ seat_guid: string }>; error: { code: string } };
}

async function check(results: Answer[]) {
  expect(
    results.every((r) => r.statusCode === 201 || r.statusCode === 409),
    results.map((r) => r.statusCode).join(),
  ).toBe(true);
  for (const r of results.filter((x) => x.statusCode === 409))
    expect(['seat_unavailable', 'sold_out']).toContain(r.json().error.code);
  const ok = results.filter((r) => r.statusCode === 201).map((r) => r.json());
  for (const o of ok) expect(o.seats).toHaveLength(2);
  const given = ok.flatMap((o) => o.seats.map((s) => s.seat_guid));
  // never one seat twice, in the answers or in the database
  expect(new Set(given).size).toBe(given.length);
  const live = await sql<{ n: number; d: number }>`select count(*)::int as n, count(distinct seat_guid)::int as d
    from order_seats where released_at is null`.execute(t.ctx.db);
  expect(live.rows[0]).toEqual({ n: given.length, d: given.length });
  const inv = await sql<{ taken: number }>`select i.taken from inventory i join ticket_types tt on tt.inventory_id = i.id
    where tt.key = 'seat'`.execute(t.ctx.db);
  expect(inv.rows[0]!.taken).toBe(given.length);
  return ok.length;
}

describe('racing buyers of seats', () => {
  it('80 buyers at once, half naming seats among the best 20, half taking the best available: no seat twice', async () => {
    const results = await Promise.all(Array.from({ length: 80 }, (_, i) => buy(t, i % 2 ? pair(i) : undefined)));
    const sold = await check(results);
    // the hall has 60 seats, 30 pairs: best available fills what the named pairs leave
    expect(sold).toBeGreaterThanOrEqual(25);
    expect(sold).toBeLessThanOrEqual(30);
  });
});

describe.runIf(process.env.DATABASE_URL)('two app instances on one database', () => {
  it('buyers split over two instances, each batching on its own, racing for the same seats: no seat twice', async () => {
    await sql`update order_seats set released_at = now()`.execute(t.ctx.db);
    await sql`update orders set status = 'canceled'`.execute(t.ctx.db);
    await sql`update inventory set taken = 0`.execute(t.ctx.db);
    const second = await createTestApp({ sameDatabaseAs: t });
    try {
      const results = [];
      for (let wave = 0; wave < 4; wave++) {
        results.push(
          ...(await Promise.all(
            Array.from({ length: 30 }, (_, j) => {
              const i = wave * 30 + j;
              return buy(i % 2 ? second : t, i % 3 ? pair(i) : undefined);
            }),
          )),
        );
      }
      const ok = results.map((r, i) => (r.statusCode === 201 ? i : -1)).filter((i) => i >= 0);
      expect(ok.some((i) => i % 2 === 0) && ok.some((i) => i % 2 === 1)).toBe(true);
      await check(results);
    } finally {
      await second.close();
    }
  });
});
