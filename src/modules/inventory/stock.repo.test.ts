import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { findEventBySlug, type EventRow } from '../events/events.repo.ts';
import { writeBatch, type WriteOutcome } from '../orders/order-writer.repo.ts';
import { prepareOrder, type PlaceOrderInput } from '../orders/place-order.service.ts';
import { expireLapsedHolds } from '../orders/order-state.repo.ts';
import { availabilityQuery, lapsedHolds, readAvailability } from './stock.repo.ts';

/**
 * The order path's search for lapsed holds on one inventory row (before it refuses an order as
 * sold out) must not pay for other events' lapsed holds: an account with a big sale whose holds
 * ran out and a small event next to it.
 */
let t: TestApp;
let accountId: number;
const events: Record<string, EventRow> = {};
const types: Record<string, number> = {};
const inventory: Record<string, number> = {};
const FAR_HOLDS = 1200;

const input = (slug: string, quantity: number, holdMs = 60_000): PlaceOrderInput => ({
  accountId,
  event: events[slug]!,
  items: [{ ticket_type_id: types[slug]!, quantity }],
  email: 'buyer@example.org',
  channel: 'api',
  holdMs,
});

const created = (o: WriteOutcome | undefined) => {
  if (!o || !('created' in o) || !o.created) throw new Error(`not created: ${JSON.stringify(o)}`);
  return o.order.id;
};

beforeAll(async () => {
  t = await createTestApp();
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'holds',
      events: [
        makeEvent({ slug: 'near', ticket_types: [{ key: 'seat', name: 'Seat', price: 1000, capacity: 2 }] }),
        makeEvent({ slug: 'far', ticket_types: [{ key: 'crowd', name: 'Crowd', price: 1000, capacity: 2 * FAR_HOLDS }] }),
      ],
    }),
  );
  accountId = (await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', 'holds').executeTakeFirstOrThrow()).id;
  for (const slug of ['near', 'far']) {
    events[slug] = (await findEventBySlug(t.ctx.db, accountId, slug))!;
    const tt = await t.ctx.db
      .selectFrom('ticket_types')
      .select(['id', 'inventory_id'])
      .where('event_id', '=', events[slug]!.id)
      .executeTakeFirstOrThrow();
    types[slug] = tt.id;
    inventory[slug] = tt.inventory_id!;
  }
}, 60_000);
afterAll(() => t.close());

/** Rows the plan read from orders and order_lines: what each scan returned and what its filter threw away. */
function rowsRead(plan: Record<string, unknown>): number {
  const own =
    plan['Relation Name'] === 'orders' || plan['Relation Name'] === 'order_lines'
      ? (Number(plan['Actual Rows']) + Number(plan['Rows Removed by Filter'] ?? 0)) * Number(plan['Actual Loops'] ?? 1)
      : 0;
  const children = (plan['Plans'] as Array<Record<string, unknown>> | undefined) ?? [];
  return own + children.reduce((n, c) => n + rowsRead(c), 0);
}

describe('lapsed holds on one inventory row', () => {
  it("finds the row's lapsed hold without reading another event's lapsed holds, and releases only it", async () => {
    // the far event: a sale's worth of holds, 200 orders per batch
    const holdFar = async (holdMs: number) => {
      const ids: number[] = [];
      for (let n = 0; n < FAR_HOLDS; n += 200) {
        const prepared = [];
        for (let i = 0; i < 200; i++) prepared.push(await prepareOrder(t.ctx, input('far', 1, holdMs)));
        for (const o of await writeBatch(t.ctx, prepared)) ids.push(created(o));
      }
      return ids;
    };
    // those that all run out together
    const farIds = await holdFar(60_000);
    // and as many that are still live, ending a day later (the API's hold): pending orders of
    // other events in hold-end order are no way to find this row's lapsed ones
    await holdFar(86_400_000);
    const nearId = created((await writeBatch(t.ctx, [await prepareOrder(t.ctx, input('near', 1))]))[0]);
    t.clock.advance(120_000);
    await sql`analyze orders; analyze order_lines`.execute(t.ctx.db);

    const now = t.clock.now();
    const explained = await t.ctx.db
      .transaction()
      .execute((trx) => lapsedHolds(trx, now, { inventoryId: inventory['near']! }).explain('json', sql`analyze`));
    const plan = (explained[0] as Record<string, Array<{ Plan: Record<string, unknown> }>>)['QUERY PLAN']![0]!.Plan;
    // one order and its line, give or take what an index hands over; not the far event's 1,200 of each
    expect(rowsRead(plan)).toBeLessThan(20);

    // the shop's availability read of the same row: the same bound, and the lapsed hold counted back
    const shown = await sql<{
      'QUERY PLAN': Array<{ Plan: Record<string, unknown> }>;
    }>`explain (analyze, format json) ${availabilityQuery(accountId, [inventory['near']!], now)}`.execute(t.ctx.db);
    expect(rowsRead(shown.rows[0]!['QUERY PLAN'][0]!.Plan)).toBeLessThan(20);
    const avail = await readAvailability(t.ctx.db, accountId, [inventory['near']!, inventory['far']!], now);
    expect([avail.get(inventory['near']!)?.remaining, avail.get(inventory['far']!)?.remaining]).toEqual([2, FAR_HOLDS]);

    const released = await t.ctx.db
      .transaction()
      .execute((trx) => expireLapsedHolds(trx, now, { inventoryId: inventory['near']! }));
    expect(released).toEqual([nearId]);
    const far = await t.ctx.db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('id', 'in', farIds)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    expect(Number(far.n)).toBe(FAR_HOLDS);
    const inv = await t.ctx.db
      .selectFrom('inventory')
      .select(['id', 'taken'])
      .where('id', 'in', Object.values(inventory))
      .execute();
    expect(Object.fromEntries(inv.map((r) => [r.id, r.taken]))).toEqual({
      [inventory['near']!]: 0,
      [inventory['far']!]: 2 * FAR_HOLDS,
    });
  }, 60_000);
});
