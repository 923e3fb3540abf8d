import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';

/** The event page's running total with a typed code: the checkout's prices and codes, nothing written. */
let t: TestApp;
let typeId: number;

beforeAll(async () => {
  t = await createTestApp();
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'quoting',
      events: [
        makeEvent({
          slug: 'gig',
          ticket_types: [{ key: 'ga', name: 'GA', price: 2500, capacity: 100 }],
          discount_codes: [
            { code: 'TENOFF', percent_off: 10, max_uses: 1 },
            { code: 'FIVE', amount_off: 500 },
          ],
        }),
      ],
    }),
  );
  typeId = Number((await t.ctx.db.selectFrom('ticket_types').select('id').executeTakeFirstOrThrow()).id);
});
afterAll(() => t.close());

const quote = (form: Record<string, string>) => t.app.inject({ method: 'POST', url: '/e/quoting/gig/quote', payload: form });

describe('quote', () => {
  it('prices the basket with the typed code as the checkout would, and writes nothing', async () => {
    const ten = await quote({ [`qty_${typeId}`]: '2', code: 'tenoff' });
    expect(ten.statusCode).toBe(200);
    expect(ten.headers['cache-control']).toBe('no-store');
    expect(ten.json()).toEqual({ state: 'priced', total_cents: 4500, discount_cents: 500 });
    expect((await quote({ [`qty_${typeId}`]: '1', code: 'FIVE' })).json()).toMatchObject({ total_cents: 2000 });
    // a code with one use left is quoted again and again: nothing is taken
    for (let i = 0; i < 3; i++)
      expect((await quote({ [`qty_${typeId}`]: '1', code: 'TENOFF' })).json()).toMatchObject({ total_cents: 2250 });
    const unknown = await quote({ [`qty_${typeId}`]: '1', code: 'NOPE' });
    expect(unknown.json()).toMatchObject({ state: 'refused', message: expect.stringContaining('code') });
    expect((await quote({ code: 'FIVE' })).json()).toEqual({ state: 'empty' });
    expect((await quote({ [`qty_${typeId}`]: 'lots', code: 'FIVE' })).json()).toEqual({ state: 'empty' });
    expect(await t.ctx.db.selectFrom('orders').select('id').execute()).toEqual([]);
    const uses = await t.ctx.db.selectFrom('discount_codes').select(['code', 'uses']).orderBy('code').execute();
    expect(uses.map((u) => Number(u.uses))).toEqual([0, 0]);
    // the event page tells its script where to ask
    const page = await t.app.inject({ method: 'GET', url: '/e/quoting/gig' });
    expect(page.body).toContain('data-quote="/e/quoting/gig/quote"');
  });
});
