import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { seatedBatchCounts } from '../../platform/metrics.ts';
import { hallPlan } from '../events/seating.fixture.ts';

/**
 * The one-statement path for seated orders (seated-orders.repo.ts): batches are chosen from what
 * this process last knew of the seats and written only while the row's seat_version says nothing
 * changed. Every other writer (here: SQL standing for another instance, a cancel, the clock
 * running a hold out) must be seen: a freed seat is sold, a taken one refused, a lapsed hold
 * expired by the transaction.
 */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let typeId: number;

beforeAll(async () => {
  t = await createTestApp();
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'fast',
      events: [
        makeEvent({
          slug: 'hall',
          // a hold lasts a day from its order (the API's floor), so the clock can run one out
          payment_expires_at: '2026-11-23T12:00:00Z',
          ticket_types: [{ key: 'seat', name: 'Seat', price: 3000 }],
          seating: { plan: hallPlan(8, 10), categories: { Hall: 'seat' } },
        }),
      ],
    }),
  );
  typeId = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'seat').executeTakeFirstOrThrow()).id;
});
afterAll(() => t.close());

const buy = (seats?: string[], quantity = seats?.length ?? 2) =>
  t.call(a.tokens.all, {
    method: 'POST',
    url: '/api/v1/events/hall/orders',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ items: [{ ticket_type_id: typeId, quantity, ...(seats ? { seats } : {}) }] }),
  });

/** Who holds the seat now (order ids of live holds). */
const holdersOf = async (guid: string) =>
  (
    await sql<{ order_id: number }>`select order_id from order_seats where seat_guid = ${guid} and released_at is null`.execute(
      t.ctx.db,
    )
  ).rows.map((r) => Number(r.order_id));

/** What another instance would do to an order: cancel it, freeing its seats and units. */
async function cancelElsewhere(ref: string) {
  await sql`with o as (update orders set status = 'canceled', canceled_at = now() where ref = ${ref} returning id),
    s as (update order_seats set released_at = now() where order_id in (select id from o) and released_at is null returning 1)
    update inventory i set taken = i.taken - (select count(*) from s) from ticket_types tt where tt.inventory_id = i.id and tt.id = ${typeId}`.execute(
    t.ctx.db,
  );
}

const seatVersion = async () =>
  Number(
    (
      await sql<{
        v: number;
      }>`select i.seat_version v from inventory i join ticket_types tt on tt.inventory_id = i.id where tt.id = ${typeId}`.execute(
        t.ctx.db,
      )
    ).rows[0]!.v,
  );

describe('seated orders by one statement', () => {
  it('writes one order after another by the statement, the version it keeps following the database', async () => {
    const before = await seatedBatchCounts();
    const v0 = await seatVersion();
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await buy());
    for (const r of answers) expect(r.statusCode).toBe(201);
    const after = await seatedBatchCounts();
    // the answer is the order as read back
    const { payment_url: _p, url: _u, ...answered } = answers[4]!.json();
    const read = await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/orders/${answered.ref as string}` });
    expect(read.json()).toMatchObject(answered);
    // the statement path each time: had the kept version drifted from the triggers' count, the
    // guard would have failed and the transaction written them
    expect(after.statement - before.statement).toBe(5);
    expect(after.transaction - before.transaction).toBe(0);
    expect(await seatVersion()).toBe(v0 + 5);
    // best available in plan order: row 1 filled first
    const held = await sql<{
      seat_guid: string;
    }>`select seat_guid from order_seats where released_at is null order by id`.execute(t.ctx.db);
    expect(held.rows.map((r) => r.seat_guid)).toEqual(Array.from({ length: 10 }, (_, i) => `h-1-${i + 1}`));
  });

  it('answers a batch of buyers at once with distinct seats, the refused ones naming the seat', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => buy(i % 3 ? undefined : ['h-7-1', 'h-7-2'])));
    const ok = results
      .filter((r) => r.statusCode === 201)
      .map((r) => r.json().seats.map((s: { seat_guid: string }) => s.seat_guid) as string[]);
    const refused = results.filter((r) => r.statusCode === 409);
    // four buyers named the same pair: one gets it, three are told it is taken
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.json().error.code).toBe('seat_unavailable');
    const given = ok.flat();
    expect(new Set(given).size).toBe(given.length);
    expect(given).toContain('h-7-1');
  });

  it('sells a seat another writer freed, though this process last knew it taken', async () => {
    const first = await buy(['h-5-1', 'h-5-2']);
    expect(first.statusCode).toBe(201);
    await cancelElsewhere(first.json().ref);
    // the kept snapshot still has h-5-1 held: the refusal is checked against the version, read again, and sold
    const again = await buy(['h-5-1', 'h-5-2']);
    expect(again.statusCode, again.body).toBe(201);
    expect(await holdersOf('h-5-1')).toEqual([Number(again.json().id ?? (await orderId(again.json().ref)))]);
  });

  it('refuses a seat another writer took, though this process last knew it free', async () => {
    expect((await buy(['h-6-9', 'h-6-10'])).statusCode).toBe(201);
    const other = await buy(['h-7-9', 'h-7-10']);
    const otherId = await orderId(other.json().ref);
    // another instance's order takes h-6-1 and its unit (the trigger moves the version on)
    await sql`with s as (insert into order_seats (account_id, event_id, order_id, line_position, seat_guid)
        select account_id, event_id, id, 0, 'h-6-1' from orders where id = ${otherId} returning 1)
      update inventory i set taken = i.taken + (select count(*) from s) from ticket_types tt
      where tt.inventory_id = i.id and tt.id = ${typeId}`.execute(t.ctx.db);
    const res = await buy(['h-6-1', 'h-6-2']);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('seat_unavailable');
    expect(res.json().error.message).toContain('h-6-1');
    expect(await holdersOf('h-6-1')).toEqual([otherId]);
    expect(await holdersOf('h-6-2')).toEqual([]);
    // gone again, seat and unit, so the order's lines and seats agree for what follows
    await sql`with s as (update order_seats set released_at = now() where seat_guid = 'h-6-1' and released_at is null returning 1)
      update inventory i set taken = i.taken - (select count(*) from s) from ticket_types tt
      where tt.inventory_id = i.id and tt.id = ${typeId}`.execute(t.ctx.db);
  });

  it('refuses a seat the organiser blocked since this process last read the seats', async () => {
    expect((await buy(['h-4-9', 'h-4-10'])).statusCode).toBe(201);
    const doc = (await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/hall/config' })).json();
    const put = await t.call(a.tokens.all, {
      method: 'PUT',
      url: '/api/v1/events/hall/config',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ ...doc, seating: { ...doc.seating, blocked: ['h-4-5'] } }),
    });
    expect(put.statusCode, put.body).toBe(200);
    const res = await buy(['h-4-5', 'h-4-6']);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.seats).toEqual(['h-4-5']);
    expect(await holdersOf('h-4-5')).toEqual([]);
  });

  it('leaves a hold that ran out to the transaction, which expires it and sells the seat', async () => {
    const lapsing = await buy(['h-8-1', 'h-8-2']);
    expect(lapsing.statusCode).toBe(201);
    const before = await seatedBatchCounts();
    t.clock.advance(3 * 86_400_000);
    const next = await buy(['h-8-1', 'h-8-2']);
    expect(next.statusCode, next.body).toBe(201);
    const after = await seatedBatchCounts();
    expect(after.transaction - before.transaction).toBe(1);
    const old = await t.ctx.db
      .selectFrom('orders')
      .select('status')
      .where('ref', '=', lapsing.json().ref)
      .executeTakeFirstOrThrow();
    expect(old.status).toBe('canceled');
    // and the next batch is back on the statement path, its snapshot read anew
    expect((await buy()).statusCode).toBe(201);
    expect((await seatedBatchCounts()).statement - after.statement).toBe(1);
  });

  it('keeps stock and seats equal: units taken are the seats held', async () => {
    const r = await sql<{ taken: number; held: number }>`select i.taken::int as taken,
        (select count(*)::int from order_seats where released_at is null) as held
      from inventory i join ticket_types tt on tt.inventory_id = i.id where tt.id = ${typeId}`.execute(t.ctx.db);
    expect(r.rows[0]!.taken).toBe(r.rows[0]!.held);
  });
});

async function orderId(ref: string): Promise<number> {
  return Number((await t.ctx.db.selectFrom('orders').select('id').where('ref', '=', ref).executeTakeFirstOrThrow()).id);
}
