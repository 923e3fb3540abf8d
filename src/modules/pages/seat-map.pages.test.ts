import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { theatrePlan } from '../events/seating.fixture.ts';

/** The seat map on the event page and its states (`seats.json`): what a buyer's browser reads. */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let stalls: number;

beforeAll(async () => {
  t = await createTestApp();
  const seating = { plan: theatrePlan(), categories: { Stalls: 'stalls', Balcony: 'balcony' }, blocked: ['stalls-A-1'] };
  const types = [
    { key: 'stalls', name: 'Stalls seat', price: 4500 },
    { key: 'balcony', name: 'Balcony seat', price: 2500 },
  ];
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'th',
      events: [
        makeEvent({ slug: 'play', ticket_types: types, seating }),
        makeEvent({
          slug: 'draft',
          status: 'draft',
          ticket_types: [{ key: 'd', name: 'D', price: 1000 }],
          seating: { ...seating, categories: { Stalls: 'd' } },
        }),
        makeEvent({ slug: 'plain', ticket_types: [{ key: 'p', name: 'P', price: 1000, capacity: 5 }] }),
      ],
    }),
  );
  stalls = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'stalls').executeTakeFirstOrThrow()).id;
});
afterAll(() => t.close());

describe('the seat map', () => {
  it('draws every seat of the plan in plan order with its category colour, and a legend with prices', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/e/th/play' });
    expect(page.statusCode).toBe(200);
    const guids = [...page.body.matchAll(/<circle class="seat"[^>]*data-g="([^"]+)"/g)].map((m) => m[1]);
    expect(guids).toHaveLength(80);
    expect(guids.slice(0, 2)).toEqual(['stalls-A-1', 'stalls-A-2']);
    expect(page.body).toContain('fill="#a14d8b" data-g="balcony-1-1"');
    expect(page.body).toContain('Stalls · Stalls seat · €45.00');
    expect(page.body).toContain(`name="seats_${stalls}"`);
    expect(page.body).toContain('>Stage</text>');
    // a page with nothing seated draws no map
    expect((await t.app.inject({ method: 'GET', url: '/e/th/plain' })).body).not.toContain('data-seatmap');
  });

  it('seats.json gives one state a seat: blocked, held, sold, available', async () => {
    const held = await t.call(a.tokens.all, {
      method: 'POST',
      url: '/api/v1/events/play/orders',
      payload: { items: [{ ticket_type_id: stalls, quantity: 2, seats: ['stalls-B-1', 'stalls-B-2'] }], email: 'b@example.org' },
    });
    expect(held.statusCode).toBe(201);
    const res = await t.app.inject({ method: 'GET', url: '/e/th/play/seats.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { codes, version } = res.json() as { codes: string; version: string };
    expect(codes).toHaveLength(80);
    expect(version).not.toBe('');
    expect(codes.slice(0, 14)).toBe('baaaaaaaaaaahh');
    // a seat given back is available again
    expect((await t.call(a.tokens.all, { method: 'POST', url: `/api/v1/orders/${held.json().ref}/cancel` })).statusCode).toBe(
      200,
    );
    expect(
      ((await t.app.inject({ method: 'GET', url: '/e/th/play/seats.json' })).json() as { codes: string }).codes.slice(12, 14),
    ).toBe('aa');
  });

  it("a draft's or an unknown event's seats are not there; an event without a plan has none", async () => {
    expect((await t.app.inject({ method: 'GET', url: '/e/th/draft/seats.json' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/e/th/nope/seats.json' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/e/nobody/play/seats.json' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/e/th/plain/seats.json' })).json()).toEqual({ version: '', codes: '' });
  });
});
