import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';

/**
 * An organiser gives an unlimited ticket type a capacity while it sells, on two instances whose
 * catalogue caches still say "no limit" (1 s TTL on the second): no order may slip past the new
 * limit, and the new inventory row must hold exactly what the live orders hold.
 */
describe.runIf(process.env.DATABASE_URL)('capacity set on an unlimited type during a sale, two instances', () => {
  let t: TestApp;
  let second: TestApp;
  let acct: Awaited<ReturnType<typeof seedAccount>>;
  beforeAll(async () => {
    t = await createTestApp();
    second = await createTestApp({ sameDatabaseAs: t, config: { catalogueCacheMs: 1_000 } });
    acct = await seedAccount(
      t.ctx,
      makeAccountFile({
        slug: 'limits',
        events: [makeEvent({ slug: 'limits', ticket_types: [{ key: 'open', name: 'Open', price: 1000 }] })],
      }),
    );
  });
  afterAll(async () => {
    await second.close();
    await t.close();
  });

  it('never sells past the new capacity; the new row counts every live order', async () => {
    const typeId = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'open').executeTakeFirstOrThrow())
      .id;
    const buy = (app: TestApp) =>
      app.call(acct.tokens.all, {
        method: 'POST',
        url: '/api/v1/events/limits/orders',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ items: [{ ticket_type_id: typeId, quantity: 1 }], email: 'r@example.com' }),
      });
    // the second instance caches the catalogue as it is now: no limit
    expect((await buy(second)).statusCode).toBe(201);
    const doc = (await t.call(acct.tokens.all, { method: 'GET', url: '/api/v1/events/limits/config' })).json();
    doc.ticket_types[0].capacity = 25;
    const [put, ...orders] = await Promise.all([
      t.call(acct.tokens.all, {
        method: 'PUT',
        url: '/api/v1/events/limits/config',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(doc),
      }),
      ...Array.from({ length: 60 }, (_, i) => buy(i % 3 === 0 ? t : second)),
    ]);
    const statuses = orders.map((o) => o.statusCode);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      JSON.stringify(orders.filter((o) => o.statusCode >= 500).map((o) => o.body)),
    ).toBe(true);
    const live = await sql<{
      n: number;
    }>`select coalesce(sum(l.quantity), 0)::int as n from order_lines l join orders o on o.id = l.order_id
      where l.ticket_type_id = ${typeId} and o.status in ('paid', 'pending')`.execute(t.ctx.db);
    const inv = await sql<{ capacity: number; taken: number } | undefined>`select i.capacity, i.taken from inventory i
      join ticket_types tt on tt.inventory_id = i.id where tt.id = ${typeId}`.execute(t.ctx.db);
    if (put.statusCode === 200) {
      expect(inv.rows[0]).toEqual({ capacity: 25, taken: live.rows[0]!.n });
      expect(live.rows[0]!.n).toBeLessThanOrEqual(25);
      // every order either counted before the change or checked against the row after it
      const unlinked = await sql<{ n: number }>`select count(*)::int as n from order_lines l join orders o on o.id = l.order_id
        where l.ticket_type_id = ${typeId} and o.status in ('paid', 'pending') and l.inventory_id is null`.execute(t.ctx.db);
      expect(unlinked.rows[0]!.n).toBe(0);
    } else {
      // more than 25 were sold before the change could take its lock: refused, nothing changed
      expect([put.statusCode, put.json().error.code]).toEqual([409, 'conflict']);
      expect(inv.rows).toEqual([]);
    }
  });

  it('a change is visible at once on the instance that made it and within 1 s on another', async () => {
    const types = (app: TestApp) =>
      app.call(acct.tokens.all, { method: 'GET', url: '/api/v1/events/limits/ticket-types' }).then((r) => r.json().ticket_types);
    // the second instance has the list cached
    const before = (await types(second))[0].price_cents;
    const doc = (await t.call(acct.tokens.all, { method: 'GET', url: '/api/v1/events/limits/config' })).json();
    doc.ticket_types[0].price = before + 100;
    const put = await t.call(acct.tokens.all, {
      method: 'PUT',
      url: '/api/v1/events/limits/config',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(doc),
    });
    expect(put.statusCode).toBe(200);
    expect((await types(t))[0].price_cents).toBe(before + 100);
    await new Promise((r) => setTimeout(r, 1_050));
    expect((await types(second))[0].price_cents).toBe(before + 100);
  });
});
