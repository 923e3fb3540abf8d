import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { findEventBySlug, type EventRow } from '../events/events.repo.ts';
import { writeBatch, writeOrder, type PreparedOrder, type WriteOutcome } from './order-writer.repo.ts';
import { plainInventory, writePlainGroups } from './plain-orders.repo.ts';
import { prepareOrder, type PlaceOrderInput } from './place-order.service.ts';

/**
 * The write stage on its own: several prepared orders in one batch (one transaction), as group
 * commit forms them under load. HTTP-level races are in orders.race.test.ts.
 */
let t: TestApp;
let accountId: number;
let event: EventRow;
let ids: Record<string, number>;

beforeAll(async () => {
  t = await createTestApp();
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'writer',
      events: [
        makeEvent({
          slug: 'batch',
          ticket_types: [
            { key: 'three', name: 'Three', price: 1000, capacity: 3 },
            { key: 'one', name: 'One', price: 1000, capacity: 1 },
            { key: 'many', name: 'Many', price: 1000, capacity: 1000 },
            { key: 'none', name: 'None', price: 1000, capacity: 0 },
            { key: 'race', name: 'Race', price: 1000, capacity: 30 },
            { key: 'race2', name: 'Race two', price: 1000, capacity: 35 },
            { key: 'race4', name: 'Race four', price: 1000, capacity: 25 },
          ],
          discount_codes: [{ code: 'ONCE', amount_off: 100, max_uses: 1 }],
        }),
      ],
    }),
  );
  const account = await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', 'writer').executeTakeFirstOrThrow();
  accountId = account.id;
  event = (await findEventBySlug(t.ctx.db, accountId, 'batch'))!;
  const rows = await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).where('event_id', '=', event.id).execute();
  ids = Object.fromEntries(rows.map((r) => [r.key, r.id]));
});
afterAll(() => t.close());

const input = (key: string, quantity: number, extra: Partial<PlaceOrderInput> = {}): PlaceOrderInput => ({
  accountId,
  event,
  items: [{ ticket_type_id: ids[key]!, quantity }],
  email: 'buyer@example.org',
  channel: 'api',
  ...extra,
});

async function batch(...inputs: PlaceOrderInput[]): Promise<WriteOutcome[]> {
  const prepared = [];
  for (const i of inputs) prepared.push(await prepareOrder(t.ctx, i));
  return writeBatch(t.ctx, prepared);
}

const taken = async (key: string) =>
  (
    await t.ctx.db
      .selectFrom('inventory as i')
      .innerJoin('ticket_types as tt', 'tt.inventory_id', 'i.id')
      .select('i.taken')
      .where('tt.id', '=', ids[key]!)
      .executeTakeFirstOrThrow()
  ).taken;

const rejection = (o: WriteOutcome | undefined) => (o && 'rejected' in o ? `${o.rejected.code}: ${o.rejected.message}` : null);

describe('one batch, one transaction', () => {
  it('grants first come, first served; a later order that still fits is granted after one that does not', async () => {
    const out = await batch(input('three', 2), input('three', 2), input('three', 1));
    expect('created' in out[0]! && out[0].created).toBe(true);
    expect(rejection(out[1])).toBe('sold_out: "Three": only 1 left');
    expect('created' in out[2]! && out[2].created).toBe(true);
    expect(await taken('three')).toBe(3);
    const written = await t.ctx.db.selectFrom('orders').select('id').where('event_id', '=', event.id).execute();
    expect(written).toHaveLength(2);
  });

  it('names the item that is sold out, and writes nothing for it', async () => {
    const out = await batch(input('none', 1));
    expect(rejection(out[0])).toBe('sold_out: "None" is sold out');
    expect(await taken('none')).toBe(0);
  });

  it('releases an expired hold under the lock before refusing, and sells its unit', async () => {
    const [first] = await batch(input('one', 1, { holdMs: 60_000 }));
    expect(first && 'created' in first && first.created).toBe(true);
    const heldId = first && 'created' in first && first.created ? first.order.id : 0;
    t.clock.advance(120_000); // the hold ran out; the sweeper has not run
    try {
      const [second] = await batch(input('one', 1));
      expect(second && 'created' in second && second.created).toBe(true);
      const held = await t.ctx.db.selectFrom('orders').select('status').where('id', '=', heldId).executeTakeFirstOrThrow();
      expect(held.status).toBe('canceled');
      expect(await taken('one')).toBe(1);
    } finally {
      t.clock.set('2026-11-22T12:00:00Z');
    }
  });

  it('counts a code with one use left once: the second order in the batch is refused with invalid_code', async () => {
    const out = await batch(input('many', 1, { codes: ['ONCE'] }), input('many', 1, { codes: ['ONCE'] }));
    expect('created' in out[0]! && out[0].created).toBe(true);
    expect(rejection(out[1])).toBe('invalid_code: The code "ONCE" has been used up');
    const code = await t.ctx.db.selectFrom('discount_codes').select('uses').where('code', '=', 'ONCE').executeTakeFirstOrThrow();
    expect(code.uses).toBe(1);
  });

  it('one Idempotency-Key twice in a batch makes one order; the second answers as its replay', async () => {
    const idem = { tokenId: 1, key: 'same-key-in-batch' };
    const out = await batch(input('many', 1, { idempotency: idem }), input('many', 1, { idempotency: idem }));
    expect(out[0] && 'created' in out[0] && out[0].created).toBe(true);
    const id = out[0] && 'created' in out[0] && out[0].created ? out[0].order.id : -1;
    expect(out[1]).toEqual({ created: false, orderId: id });
    const keys = await t.ctx.db.selectFrom('idempotency_keys').select('order_id').where('key', '=', idem.key).execute();
    expect(keys).toEqual([{ order_id: id }]);
  });

  it('a refused order gives its Idempotency-Key back, so a retry can create the order later', async () => {
    const idem = { tokenId: 1, key: 'refused-key' };
    const [out] = await batch(input('none', 1, { idempotency: idem }));
    expect(rejection(out)).toMatch(/^sold_out/);
    const keys = await t.ctx.db.selectFrom('idempotency_keys').select('order_id').where('key', '=', idem.key).execute();
    expect(keys).toEqual([]);
  });
});

describe('plain orders on one row, one statement', () => {
  /** what a written order consists of, without what is generated per order */
  async function written(orderId: number) {
    const db = t.ctx.db;
    const o = await db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
    const lines = await db.selectFrom('order_lines').selectAll().where('order_id', '=', orderId).orderBy('position').execute();
    const log = await db
      .selectFrom('order_log')
      .select(['action', 'data', 'created_at'])
      .where('order_id', '=', orderId)
      .execute();
    const { id: _id, ref: _ref, access_secret: _secret, qr_token: _qr, ...order } = o;
    return { order, lines: lines.map(({ id: _line, order_id: _order, ...l }) => l), log };
  }
  const created = (o: WriteOutcome | undefined) => {
    if (!o || !('created' in o) || !o.created) throw new Error(`not created: ${JSON.stringify(o)}`);
    return o.order;
  };

  it('writes the same order, lines and log entry as the batch transaction', async () => {
    const extra: Partial<PlaceOrderInput> = {
      name: 'Ada Lovelace',
      answers: [{ question: 'Diet', answer: 'Vegan, "no nuts"' }],
      itemAnswers: [{ ticket_type_id: ids.many!, position: 0, answers: [{ question: 'Name', answer: 'Ada' }] }],
      locale: 'de-AT',
    };
    // alone and as a pair (the one statement), then with a companion that holds an
    // Idempotency-Key (the batch transaction): the same columns (the batch's rows go as one JSON
    // parameter), and a companion without the extras (rows that name other columns go through
    // the query builder)
    const lone = created((await batch(input('many', 2, extra)))[0]);
    const [inPair, pairTwin] = await batch(input('many', 2, extra), input('many', 2, extra));
    const [inBatch, twin] = await batch(
      input('many', 2, extra),
      input('many', 2, { ...extra, idempotency: { tokenId: 1, key: 'forces-the-transaction' } }),
    );
    const [inMixed] = await batch(input('many', 2, extra), input('many', 1, { idempotency: { tokenId: 1, key: 'mixed' } }));
    const a = await written(lone.id);
    const b = await written(created(inBatch).id);
    expect(b).toEqual(await written(created(twin).id));
    expect(a).toEqual(b);
    expect(await written(created(inPair).id)).toEqual(a);
    expect(await written(created(pairTwin).id)).toEqual(a);
    expect(await written(created(inMixed).id)).toEqual(a);
    expect(a.order.answers).toEqual(extra.answers);
    expect(a.order.item_answers).toEqual(extra.itemAnswers);
    expect(a.lines).toHaveLength(1);
    expect(a.log).toHaveLength(1);
    // what the caller is answered with is the row as stored
    const { id: _id, ref: _ref, access_secret: _s, qr_token: _q, ...answered } = lone;
    expect(answered).toEqual(a.order);
  });

  it('takes nothing when the row is short, and the batch transaction names what is left', async () => {
    const before = await taken('three');
    const out = await batch(input('three', 5));
    expect(rejection(out[0])).toMatch(/^sold_out: "Three"/);
    expect(await taken('three')).toBe(before);
  });

  it('100 lone orders racing on their own connections for 30 seats: exactly 30 written', async () => {
    const prepared = [];
    for (let i = 0; i < 100; i++) prepared.push(await prepareOrder(t.ctx, input('race', 1)));
    // straight to the writer, one order per call: no batching, every call its own statement
    const out = (await Promise.all(prepared.map((p) => writeBatch(t.ctx, [p])))).flat();
    expect(out.filter((o) => 'created' in o && o.created)).toHaveLength(30);
    expect(out.filter((o) => rejection(o)?.startsWith('sold_out'))).toHaveLength(70);
    expect(await taken('race')).toBe(30);
    const sold = await t.ctx.db
      .selectFrom('order_lines')
      .select((eb) => eb.fn.sum<number>('quantity').as('n'))
      .where('ticket_type_id', '=', ids.race!)
      .executeTakeFirstOrThrow();
    expect(Number(sold.n)).toBe(30);
  });

  it('10 batches of 10 racing for 35 seats: whole batches while they fit, then first come, first served', async () => {
    const batches: PreparedOrder[][] = [];
    for (let b = 0; b < 10; b++) {
      const prepared = [];
      for (let i = 0; i < 10; i++) prepared.push(await prepareOrder(t.ctx, input('race2', 1)));
      batches.push(prepared);
    }
    const results = await Promise.all(batches.map((b) => writeBatch(t.ctx, b)));
    const out = results.flat();
    expect(out.filter((o) => 'created' in o && o.created)).toHaveLength(35);
    expect(out.filter((o) => rejection(o)?.startsWith('sold_out'))).toHaveLength(65);
    // three batches took ten seats each in one statement; one found five left and took them in order
    const perBatch = results.map((r) => r.filter((o) => 'created' in o && o.created).length).sort((x, y) => y - x);
    expect(perBatch.slice(0, 4)).toEqual([10, 10, 10, 5]);
    expect(await taken('race2')).toBe(35);
    const lines = await t.ctx.db
      .selectFrom('order_lines')
      .select((eb) => [eb.fn.sum<number>('quantity').as('n'), eb.fn.count<number>('order_id').distinct().as('orders')])
      .where('ticket_type_id', '=', ids.race2!)
      .executeTakeFirstOrThrow();
    expect(Number(lines.n)).toBe(35);
    expect(Number(lines.orders)).toBe(35);
    const log = await t.ctx.db
      .selectFrom('order_log as g')
      .innerJoin('order_lines as l', 'l.order_id', 'g.order_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('l.ticket_type_id', '=', ids.race2!)
      .where('g.action', '=', 'created')
      .executeTakeFirstOrThrow();
    expect(Number(log.n)).toBe(35);
  });
});

describe('plain batches of several events, one statement', () => {
  let other: { accountId: number; event: EventRow; ids: Record<string, number> };
  beforeAll(async () => {
    await seedAccount(
      t.ctx,
      makeAccountFile({
        slug: 'writer-two',
        events: [
          makeEvent({
            slug: 'other',
            ticket_types: [
              { key: 'wide', name: 'Wide', price: 1500, capacity: 1000 },
              { key: 'race3', name: 'Race three', price: 1500, capacity: 20 },
            ],
          }),
        ],
      }),
    );
    const a = await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', 'writer-two').executeTakeFirstOrThrow();
    const e = (await findEventBySlug(t.ctx.db, a.id, 'other'))!;
    const rows = await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).where('event_id', '=', e.id).execute();
    other = { accountId: a.id, event: e, ids: Object.fromEntries(rows.map((r) => [r.key, r.id])) };
  });
  const otherInput = (key: string, quantity: number): PlaceOrderInput => ({
    accountId: other.accountId,
    event: other.event,
    items: [{ ticket_type_id: other.ids[key]!, quantity }],
    email: 'other@example.org',
    channel: 'api',
  });
  const group = async (inputs: PlaceOrderInput[]) => {
    const orders = [];
    for (const i of inputs) orders.push(await prepareOrder(t.ctx, i));
    return { orders, ...plainInventory(orders)! };
  };

  it('writes each group whole when its row has room and not at all when it is short, each order with its own lines and log', async () => {
    const before = { many: await taken('many'), three: await taken('three') };
    const groups = [
      await group([input('many', 2), input('many', 1)]),
      await group([input('three', 5)]),
      await group([otherInput('wide', 3), otherInput('wide', 1)]),
    ];
    const out = await writePlainGroups(t.ctx.db, groups);
    expect(out.map((rows) => rows?.length ?? null)).toEqual([2, null, 2]);
    // each caller is answered with its own row as stored
    for (const o of [...out[0]!, ...out[2]!]) {
      expect(o).toStrictEqual(await t.ctx.db.selectFrom('orders').selectAll().where('id', '=', o.id).executeTakeFirstOrThrow());
    }
    expect(await taken('many')).toBe(before.many + 3);
    expect(await taken('three')).toBe(before.three);
    for (const rows of [out[0]!, out[2]!]) {
      for (const o of rows) {
        const lines = await t.ctx.db.selectFrom('order_lines').selectAll().where('order_id', '=', o.id).execute();
        const log = await t.ctx.db.selectFrom('order_log').selectAll().where('order_id', '=', o.id).execute();
        expect(lines).toHaveLength(1);
        expect(log.map((l) => l.action)).toEqual(['created']);
        expect([lines[0]!.account_id, lines[0]!.event_id, log[0]!.account_id]).toEqual([o.account_id, o.event_id, o.account_id]);
        expect(lines[0]!.quantity).toBe(o.ticket_units);
      }
    }
    expect(out[2]!.map((o) => [o.account_id, o.total_cents])).toEqual([
      [other.accountId, 4500],
      [other.accountId, 1500],
    ]);
  });

  it('lone orders of two events racing through the queues: each row sells exactly its capacity', async () => {
    const prepared = [];
    for (let i = 0; i < 120; i++) prepared.push(await prepareOrder(t.ctx, i % 2 ? input('race4', 1) : otherInput('race3', 1)));
    const out = await Promise.all(prepared.map((p) => writeOrder(t.ctx, p)));
    expect(out.filter((o) => 'created' in o && o.created)).toHaveLength(25 + 20);
    expect(out.filter((o) => rejection(o)?.startsWith('sold_out'))).toHaveLength(120 - 45);
    const [race3] = await t.ctx.db
      .selectFrom('inventory as i')
      .innerJoin('ticket_types as tt', 'tt.inventory_id', 'i.id')
      .select('i.taken')
      .where('tt.id', '=', other.ids.race3!)
      .execute();
    expect(race3!.taken).toBe(20);
    expect(await taken('race4')).toBe(25);
    // the orders report's counters, kept by the statement's triggers over both events at once
    for (const id of [event.id, other.event.id]) {
      const [{ counted, orders }] = (
        await sql<{ counted: number; orders: number }>`
          select (select coalesce(sum(orders), 0)::int from order_report_counters
                  where event_id = ${id} and stamp = 'started' and grain = 'day') as counted,
                 (select count(*)::int from orders where event_id = ${id}) as orders`.execute(t.ctx.db)
      ).rows as [{ counted: number; orders: number }];
      expect(counted).toBe(orders);
    }
  });
});
