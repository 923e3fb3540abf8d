import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';

/**
 * An event deleted while orders for it are being placed (contract section 11: only an event
 * without orders may go). Whatever the interleaving, either the delete wins and no order exists
 * anywhere, or an order wins and the delete answers 409 with the event whole. Never an order left
 * on a deleted event, never a server error.
 */
describe('delete racing order create', () => {
  let t: TestApp;
  let acct: Awaited<ReturnType<typeof seedAccount>>;
  beforeAll(async () => {
    t = await createTestApp();
    acct = await seedAccount(t.ctx, makeAccountFile({ slug: 'racing', events: [] }));
  });
  afterAll(() => t.close());

  it('ends with the event and its orders, or with neither', async () => {
    const outcomes = new Set<string>();
    for (let round = 0; round < 6; round++) {
      const slug = `race-${round}`;
      const put = await t.call(acct.tokens.all, {
        method: 'PUT',
        url: `/api/v1/events/${slug}/config`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(makeEvent({ slug, ticket_types: [{ key: 'ga', name: 'GA', price: 1000 }] })),
      });
      expect(put.statusCode).toBe(201);
      const typeId = (
        await t.ctx.db
          .selectFrom('ticket_types as tt')
          .innerJoin('events as e', 'e.id', 'tt.event_id')
          .select('tt.id')
          .where('e.slug', '=', slug)
          .executeTakeFirstOrThrow()
      ).id;
      const buy = () =>
        t.call(acct.tokens.all, {
          method: 'POST',
          url: `/api/v1/events/${slug}/orders`,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ items: [{ ticket_type_id: typeId, quantity: 1 }], email: 'r@example.org' }),
        });
      // the delete goes first, last or in the middle of the orders
      const orders = Array.from({ length: 4 }, buy);
      const del = t.call(acct.tokens.all, { method: 'DELETE', url: `/api/v1/events/${slug}` });
      const [deleted, ...placed] = await Promise.all([del, ...(round % 2 ? orders.reverse() : orders)]);
      const statuses = placed.map((o) => o.statusCode);
      // refused orders: the event is gone (404), or its ticket type was gone when the order read
      // its catalogue after the event (422 invalid_items); nothing else, never a 5xx
      expect(
        placed.every((o) => o.statusCode === 201 || o.statusCode === 404 || o.json().error?.code === 'invalid_items'),
        placed.map((o) => o.body).join('\n'),
      ).toBe(true);
      const event = await t.ctx.db.selectFrom('events').select('id').where('slug', '=', slug).executeTakeFirst();
      const orphans = await t.ctx.db
        .selectFrom('orders as o')
        .leftJoin('events as e', 'e.id', 'o.event_id')
        .select('o.id')
        .where('e.id', 'is', null)
        .execute();
      expect(orphans).toEqual([]);
      if (deleted.statusCode === 204) {
        expect(event).toBeUndefined();
        expect(statuses.filter((s) => s === 201)).toEqual([]);
        outcomes.add('deleted');
      } else {
        expect(deleted.statusCode).toBe(409);
        expect(event).toBeDefined();
        const count = await t.ctx.db.selectFrom('orders').select('id').where('event_id', '=', event!.id).execute();
        expect(count.length).toBe(statuses.filter((s) => s === 201).length);
        expect(count.length).toBeGreaterThan(0);
        outcomes.add('kept');
      }
    }
    expect(outcomes.size).toBeGreaterThan(0);
  });
});
