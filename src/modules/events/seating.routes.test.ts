import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { theatrePlan } from './seating.fixture.ts';

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
const json = { 'content-type': 'application/json' };

const seatedEvent = () =>
  makeEvent({
    slug: 'play',
    ticket_types: [
      { key: 'stalls', name: 'Stalls', price: 4500, capacity: 5 },
      { key: 'balcony', name: 'Balcony', price: 2500 },
      { key: 'standing', name: 'Standing', price: 1000, capacity: 40 },
    ],
    seating: {
      plan: theatrePlan(),
      categories: { Stalls: 'stalls', Balcony: 'balcony' },
      blocked: ['stalls-A-1', 'balcony-1-8'],
    },
  });

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(t.ctx, makeAccountFile({ slug: 'seats', events: [seatedEvent()] }));
});
afterAll(() => t.close());

const get = (url: string, token = acct.tokens.all) => t.call(token, { method: 'GET', url: `/api/v1${url}` });
const put = (doc: unknown) =>
  t.call(acct.tokens.all, { method: 'PUT', url: '/api/v1/events/play/config', headers: json, payload: JSON.stringify(doc) });

describe('a pretix seating plan', () => {
  it('imports as it is: the document gives the plan back unchanged, unknown properties and all', async () => {
    const res = await get('/events/play/config');
    expect(res.statusCode).toBe(200);
    expect(res.json().seating).toEqual({
      plan: theatrePlan(),
      categories: { Stalls: 'stalls', Balcony: 'balcony' },
      blocked: ['stalls-A-1', 'balcony-1-8'],
    });
  });

  it("makes a seated type's capacity its number of unblocked seats", async () => {
    const types = (await get('/events/play/ticket-types')).json().ticket_types as Array<{ slug: string; capacity: number }>;
    expect(Object.fromEntries(types.map((x) => [x.slug, x.capacity]))).toEqual({ stalls: 71, balcony: 7, standing: 40 });
  });

  it('lists the seats in plan order with their labels, types and states', async () => {
    const res = await get('/events/play/seats');
    expect(res.statusCode).toBe(200);
    const { seats } = res.json() as { seats: Array<Record<string, unknown>> };
    expect(seats).toHaveLength(80);
    const types = (await get('/events/play/ticket-types')).json().ticket_types as Array<{ slug: string; id: number }>;
    const id = (slug: string) => types.find((x) => x.slug === slug)!.id;
    expect(seats[0]).toEqual({
      seat_guid: 'stalls-A-1',
      zone: 'Stalls',
      row: 'A',
      number: '1',
      label: 'Row A, Seat 1',
      category: 'Stalls',
      ticket_type_id: id('stalls'),
      status: 'blocked',
    });
    expect(seats[1]!.status).toBe('available');
    expect(seats[72]).toMatchObject({ seat_guid: 'balcony-1-1', zone: 'Balcony', row: '1', label: 'Row 1, Seat 1' });
    const blocked = (await get('/events/play/seats?status=blocked')).json().seats.map((s: { seat_guid: string }) => s.seat_guid);
    expect(blocked).toEqual(['stalls-A-1', 'balcony-1-8']);
    expect((await get('/events/play/seats?status=sideways')).statusCode).toBe(400);
    expect((await get('/events/nope/seats')).statusCode).toBe(404);
    expect((await get('/events/play/seats', acct.tokens.none)).statusCode).toBe(403);
  });

  it('refuses a plan it cannot read, naming where, and changes nothing', async () => {
    const doc = (await get('/events/play/config')).json();
    const plan = theatrePlan() as { zones: Array<{ rows: Array<{ seats: Array<Record<string, unknown>> }> }> };
    plan.zones[0]!.rows[0]!.seats[1]!.seat_guid = 'stalls-A-1';
    plan.zones[0]!.rows[1]!.seats[0]!.category = 'Gods';
    const res = await put({ ...doc, seating: { ...doc.seating, plan, categories: { Stalls: 'stalls', Nope: 'balcony' } } });
    expect(res.statusCode).toBe(422);
    const fields = Object.keys(res.json().error.fields);
    expect(fields).toEqual(
      expect.arrayContaining([
        '$.seating.plan.zones[0].rows[0].seats[1].seat_guid',
        '$.seating.plan.zones[0].rows[1].seats[0].category',
      ]),
    );
    expect((await get('/events/play/seats')).json().seats).toHaveLength(80);
  });

  it('takes a new plan and unblocks seats through the document', async () => {
    const doc = (await get('/events/play/config')).json();
    const res = await put({ ...doc, seating: { ...doc.seating, blocked: [] } });
    expect(res.statusCode).toBe(200);
    expect((await get('/events/play/seats?status=blocked')).json().seats).toEqual([]);
    const types = (await get('/events/play/ticket-types')).json().ticket_types as Array<{ slug: string; capacity: number }>;
    expect(types.find((x) => x.slug === 'stalls')!.capacity).toBe(72);
  });
});
