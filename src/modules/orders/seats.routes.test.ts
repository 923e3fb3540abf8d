import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { pdfText } from '../../../test/pdf-reader.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { theatrePlan } from '../events/seating.fixture.ts';
import { recordPayment } from '../payments/payments.service.ts';
import { sandboxProvider } from '../payments/providers.ts';
import { refundOrder } from '../refunds/refund-order.service.ts';

/** Orders of seated types through the API (contract section 12): seats named, best available, holds and their release. */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let ids: Record<string, number>;
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  t = await createTestApp();
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'theatre',
      events: [
        makeEvent({
          slug: 'play',
          payment_expires_at: '2026-11-23T12:00:00Z',
          ticket_types: [
            { key: 'stalls', name: 'Stalls', price: 4500 },
            { key: 'balcony', name: 'Balcony', price: 0 },
            { key: 'standing', name: 'Standing', price: 1000, capacity: 40 },
          ],
          seating: { plan: theatrePlan(), categories: { Stalls: 'stalls', Balcony: 'balcony' }, blocked: ['stalls-A-1'] },
          checkin_lists: [{ key: 'door', name: 'Door' }],
        }),
      ],
    }),
  );
  const rows = await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).execute();
  ids = Object.fromEntries(rows.map((r) => [r.key, r.id]));
});
afterAll(() => t.close());

type Item = { ticket_type_id: number; quantity: number; seats?: string[] };
const order = (items: Item[], email = 'buyer@example.org') =>
  t.call(a.tokens.all, {
    method: 'POST',
    url: '/api/v1/events/play/orders',
    headers: json,
    payload: JSON.stringify({ items, email }),
  });
const get = (url: string) => t.call(a.tokens.all, { method: 'GET', url: `/api/v1${url}` });
const statusOf = async (guid: string) =>
  ((await get('/events/play/seats')).json().seats as Array<{ seat_guid: string; status: string }>).find(
    (s) => s.seat_guid === guid,
  )!.status;
const seatGuids = (body: { seats: Array<{ seat_guid: string }> }) => body.seats.map((s) => s.seat_guid);

describe('buying seats', () => {
  it('holds the seats named, shows them on the order and the map, and never gives them to another order', async () => {
    // read once before: the map's answer is kept by the states it shows, never served stale
    expect(await statusOf('stalls-C-5')).toBe('available');
    const res = await order([{ ticket_type_id: ids.stalls!, quantity: 2, seats: ['stalls-C-5', 'stalls-C-6'] }]);
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created.seats).toEqual([
      { ticket: null, seat_guid: 'stalls-C-5', zone: 'Stalls', row: 'C', number: '5', label: 'Row C, Seat 5' },
      { ticket: null, seat_guid: 'stalls-C-6', zone: 'Stalls', row: 'C', number: '6', label: 'Row C, Seat 6' },
    ]);
    expect(seatGuids((await get(`/orders/${created.ref}`)).json())).toEqual(['stalls-C-5', 'stalls-C-6']);
    expect(await statusOf('stalls-C-5')).toBe('held');

    const again = await order([{ ticket_type_id: ids.stalls!, quantity: 2, seats: ['stalls-C-6', 'stalls-C-7'] }]);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'seat_unavailable', seats: ['stalls-C-6'] });
    expect(again.json().error.message).toContain('Row C, Seat 6');
    expect(await statusOf('stalls-C-7')).toBe('available');
  });

  it('chooses the best available together in one row, in plan order, skipping blocked and taken seats', async () => {
    const first = await order([{ ticket_type_id: ids.stalls!, quantity: 3 }]);
    expect(first.statusCode).toBe(201);
    expect(seatGuids(first.json())).toEqual(['stalls-A-2', 'stalls-A-3', 'stalls-A-4']);
    // row A has 8 left side by side; 9 together are first found in row B
    const second = await order([{ ticket_type_id: ids.stalls!, quantity: 9 }]);
    expect(seatGuids(second.json())).toEqual(Array.from({ length: 9 }, (_, i) => `stalls-B-${i + 1}`));
  });

  it("refuses seats that are not the type's, a wrong count, a seat named twice, and seats on an unseated type", async () => {
    const cases: Item[][] = [
      [{ ticket_type_id: ids.stalls!, quantity: 1, seats: ['balcony-1-1'] }],
      [{ ticket_type_id: ids.stalls!, quantity: 1, seats: ['nowhere'] }],
      [{ ticket_type_id: ids.stalls!, quantity: 2, seats: ['stalls-D-1'] }],
      [{ ticket_type_id: ids.stalls!, quantity: 2, seats: ['stalls-D-1', 'stalls-D-1'] }],
      [{ ticket_type_id: ids.standing!, quantity: 1, seats: ['stalls-D-1'] }],
    ];
    for (const items of cases) {
      const res = await order(items);
      expect(res.statusCode, JSON.stringify(items)).toBe(422);
      expect(res.json().error.code).toBe('invalid_items');
    }
    const blocked = await order([{ ticket_type_id: ids.stalls!, quantity: 1, seats: ['stalls-A-1'] }]);
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json().error).toMatchObject({ code: 'seat_unavailable', seats: ['stalls-A-1'] });
    expect(await statusOf('stalls-D-1')).toBe('available');
  });

  it("gives a paid order's tickets their seats", async () => {
    const res = await order([{ ticket_type_id: ids.balcony!, quantity: 2, seats: ['balcony-1-4', 'balcony-1-3'] }]);
    expect(res.statusCode).toBe(201);
    const detail = (await get(`/orders/${res.json().ref}`)).json();
    expect(detail.status).toBe('paid');
    expect(detail.seats.map((s: { ticket: string; seat_guid: string }) => [s.ticket, s.seat_guid])).toEqual([
      [`${detail.ref}-1`, 'balcony-1-4'],
      [`${detail.ref}-2`, 'balcony-1-3'],
    ]);
    expect(await statusOf('balcony-1-4')).toBe('sold');

    // the door: the list's tickets, the offline sync and a scan all say the seat
    const seat = { seat_guid: 'balcony-1-4', zone: 'Balcony', row: '1', number: '4', label: 'Row 1, Seat 4' };
    const list = await t.ctx.db.selectFrom('checkin_lists').select('id').executeTakeFirstOrThrow();
    const base = `/theatre/play/checkin_lists/${list.id}`;
    const tickets = (await t.call(a.tokens.all, { method: 'GET', url: `${base}/tickets` })).json().tickets;
    expect(tickets.find((x: { reference: string }) => x.reference === `${detail.ref}-1`).seat).toEqual(seat);
    const synced = (await t.call(a.tokens.all, { method: 'GET', url: `${base}/sync` })).json().tickets;
    expect(synced.find((x: { reference: string }) => x.reference === `${detail.ref}-1`).seat).toEqual(seat);
    const qr = await t.ctx.db
      .selectFrom('tickets')
      .select('qr_token')
      .where('ref', '=', `${detail.ref}-1`)
      .executeTakeFirstOrThrow();
    const scan = await t.call(a.tokens.all, { method: 'POST', url: `${base}/tickets/${qr.qr_token}/checkins` });
    expect(scan.json().seat).toEqual(seat);

    // the buyer's order page, the PDF and the attendee export print it
    const { access_secret: secret } = await t.ctx.db
      .selectFrom('orders')
      .select('access_secret')
      .where('ref', '=', detail.ref)
      .executeTakeFirstOrThrow();
    const page = await t.app.inject({ method: 'GET', url: `/o/${secret}` });
    expect(page.body).toContain('Balcony · Row 1, Seat 4');
    const pdf = await t.app.inject({ method: 'GET', url: `/o/${secret}/tickets.pdf` });
    const text = await pdfText(pdf.rawPayload);
    expect(text).toContain('Balcony · Row 1, Seat 4');
    expect(text).toContain('Balcony · Row 1, Seat 3');
    const csv = await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/play/orders.csv?kind=attendees' });
    expect(csv.body).toContain('Balcony · Row 1, Seat 4');
  });

  it('releases the seats on cancel and when the hold runs out', async () => {
    const held = (await order([{ ticket_type_id: ids.stalls!, quantity: 1, seats: ['stalls-E-1'] }])).json();
    const cancel = await t.call(a.tokens.all, { method: 'POST', url: `/api/v1/orders/${held.ref}/cancel` });
    expect(cancel.statusCode).toBe(200);
    expect(await statusOf('stalls-E-1')).toBe('available');
    expect((await get(`/orders/${held.ref}`)).json().seats).toEqual([]);

    const lapsing = (await order([{ ticket_type_id: ids.stalls!, quantity: 1, seats: ['stalls-E-2'] }])).json();
    t.clock.advance(2 * 86_400_000);
    expect(await statusOf('stalls-E-2')).toBe('available');
    // the seat of a hold that ran out is taken at once, before any sweep
    const next = await order([{ ticket_type_id: ids.stalls!, quantity: 1, seats: ['stalls-E-2'] }]);
    expect(next.statusCode).toBe(201);
    expect((await get(`/orders/${lapsing.ref}`)).json().status).toBe('canceled');
  });

  it('a late payment takes its seats back when they are still free, else the order stays canceled', async () => {
    const pay = async (ref: string) => {
      const o = await t.ctx.db.selectFrom('orders').selectAll().where('ref', '=', ref).executeTakeFirstOrThrow();
      return recordPayment(t.ctx, o, {
        rail: 'sandbox',
        provider: sandboxProvider,
        ref: `late-${ref}`,
        amount_cents: o.total_cents,
      });
    };
    const cancel = (ref: string) => t.call(a.tokens.all, { method: 'POST', url: `/api/v1/orders/${ref}/cancel` });
    const back = (await order([{ ticket_type_id: ids.stalls!, quantity: 1, seats: ['stalls-E-9'] }])).json();
    await cancel(back.ref);
    expect(await pay(back.ref)).toBe('reinstated');
    const detail = (await get(`/orders/${back.ref}`)).json();
    expect(detail.seats).toMatchObject([{ ticket: `${back.ref}-1`, seat_guid: 'stalls-E-9' }]);
    expect(await statusOf('stalls-E-9')).toBe('sold');

    const lost = (await order([{ ticket_type_id: ids.stalls!, quantity: 1, seats: ['stalls-E-10'] }])).json();
    await cancel(lost.ref);
    expect((await order([{ ticket_type_id: ids.stalls!, quantity: 1, seats: ['stalls-E-10'] }])).statusCode).toBe(201);
    expect(await pay(lost.ref)).toBe('refund_due');
    expect((await get(`/orders/${lost.ref}`)).json()).toMatchObject({ status: 'canceled', seats: [] });
    const live = await t.ctx.db
      .selectFrom('order_seats')
      .select('order_id')
      .where('seat_guid', '=', 'stalls-E-10')
      .where('released_at', 'is', null)
      .execute();
    expect(live).toHaveLength(1);
  });

  it("a partial refund frees the voided tickets' seats only; refunding the rest frees the others", async () => {
    const o = (await order([{ ticket_type_id: ids.stalls!, quantity: 2, seats: ['stalls-F-1', 'stalls-F-2'] }])).json();
    const row = await t.ctx.db.selectFrom('orders').selectAll().where('ref', '=', o.ref).executeTakeFirstOrThrow();
    expect(
      await recordPayment(t.ctx, row, {
        rail: 'sandbox',
        provider: sandboxProvider,
        ref: `pay-${o.ref}`,
        amount_cents: row.total_cents,
      }),
    ).toBe('paid');
    const target = { id: row.id, account_id: row.account_id, ref: row.ref, by: 'test' };
    await refundOrder(t.ctx, target, { ticket_refs: [`${o.ref}-2`] });
    expect(await statusOf('stalls-F-2')).toBe('available');
    expect(await statusOf('stalls-F-1')).toBe('sold');
    await refundOrder(t.ctx, target);
    expect(await statusOf('stalls-F-1')).toBe('available');
    const live = await t.ctx.db
      .selectFrom('order_seats')
      .select('id')
      .where('order_id', '=', row.id)
      .where('released_at', 'is', null)
      .execute();
    expect(live).toEqual([]);
  });

  it('refuses a plan change that drops, re-maps or blocks a held seat, naming it', async () => {
    const held = await order([{ ticket_type_id: ids.stalls!, quantity: 1, seats: ['stalls-F-12'] }]);
    expect(held.statusCode).toBe(201);
    const doc = (await get('/events/play/config')).json();
    const put = (seating: unknown) =>
      t.call(a.tokens.all, {
        method: 'PUT',
        url: '/api/v1/events/play/config',
        headers: json,
        payload: JSON.stringify({ ...doc, seating }),
      });
    const blocked = await put({ ...doc.seating, blocked: ['stalls-A-1', 'stalls-F-12'] });
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json().error.seats).toEqual(['stalls-F-12']);
    const remapped = await put({ ...doc.seating, categories: { Stalls: 'balcony', Balcony: 'stalls' } });
    expect(remapped.statusCode).toBe(409);
    expect(remapped.json().error.seats).toContain('stalls-F-12');
    const plan = theatrePlan() as { zones: Array<{ rows: Array<{ seats: unknown[] }> }> };
    plan.zones[0]!.rows[5]!.seats.pop();
    const dropped = await put({ ...doc.seating, plan });
    expect(dropped.statusCode).toBe(409);
    expect(dropped.json().error.seats).toEqual(['stalls-F-12']);
    expect((await get('/events/play/config')).json()).toEqual(doc);
  });
});

describe('the browser checkout', () => {
  const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
  async function submit(form: Record<string, string>) {
    const page = await t.app.inject({ method: 'GET', url: '/e/theatre/play' });
    return t.app.inject({
      method: 'POST',
      url: '/e/theatre/play/checkout',
      payload: new URLSearchParams({ csrf: csrfOf(page.body), ...form }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      remoteAddress: '10.9.9.9',
    });
  }
  const orderAt = async (location: string) => {
    const row = await t.ctx.db
      .selectFrom('orders')
      .select('ref')
      .where('access_secret', '=', location.split('/').pop()!)
      .executeTakeFirstOrThrow();
    return (await get(`/orders/${row.ref}`)).json();
  };

  it('buys the best available with a count alone (no script needed), and the seats picked on the map', async () => {
    const best = await submit({ [`qty_${ids.stalls}`]: '2', name: 'Bo', email: 'bo@example.org' });
    expect(best.statusCode, best.body).toBe(303);
    expect((await orderAt(best.headers.location as string)).seats).toHaveLength(2);
    const picked = await submit({ [`seats_${ids.stalls}`]: 'stalls-D-7,stalls-D-8', name: 'Pi', email: 'pi@example.org' });
    expect(picked.statusCode, picked.body).toBe(303);
    expect(seatGuids(await orderAt(picked.headers.location as string))).toEqual(['stalls-D-7', 'stalls-D-8']);
  });

  it('answers a taken seat by naming it and keeps the rest of the form', async () => {
    const res = await submit({ [`seats_${ids.stalls}`]: 'stalls-D-8', name: 'Late Comer', email: 'late@example.org' });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('Row D, Seat 8');
    expect(res.body).toContain('value="Late Comer"');
    expect(res.body).toContain('value="late@example.org"');
  });
});
