import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { recordPayment } from '../payments/payments.service.ts';
import { sandboxProvider } from '../payments/providers.ts';
import { refundOrder } from '../refunds/refund-order.service.ts';

/** The waiting list through the API: its document field, list/add/remove, and freed units offered in turn. */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;
let ids: Record<string, number>;
const json = { 'content-type': 'application/json' };

const paid = (n: number, ref: string) =>
  makeOrder({
    ref,
    lines: [{ kind: 'tickets', ref: 'ga', quantity: n, unit_price: 2500 }],
    payments: [{ rail: 'sandbox', amount: 2500 * n, at: '2026-11-01T10:05:00Z', fee: 0, provider_ref: `sbx_${ref}` }],
  });

beforeAll(async () => {
  t = await createTestApp();
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'wl',
      events: [
        makeEvent({
          slug: 'gig',
          waiting_list: { enabled: true, offer_minutes: 60 },
          ticket_types: [
            { key: 'ga', name: 'General admission', price: 2500, capacity: 3, max_per_order: 4 },
            { key: 'free', name: 'Standing', price: 2500, capacity: 100 },
            { key: 'open', name: 'Unlimited', price: 2500 },
          ],
          orders: [paid(2, 'PD-1'), paid(1, 'PD-2')],
        }),
        makeEvent({ slug: 'closed', ticket_types: [{ key: 'ga', name: 'GA', price: 100, capacity: 1 }] }),
      ],
    }),
  );
  other = await seedAccount(
    t.ctx,
    makeAccountFile({ slug: 'wl-other', events: [makeEvent({ slug: 'theirs', waiting_list: { enabled: true } })] }),
  );
  const rows = await t.ctx.db
    .selectFrom('ticket_types as tt')
    .innerJoin('events as e', 'e.id', 'tt.event_id')
    .select(['tt.id', 'tt.key', 'e.slug'])
    .execute();
  ids = Object.fromEntries(rows.map((r) => [`${r.slug}/${r.key}`, r.id]));
});
afterAll(() => t.close());

const list = (slug = 'gig', token: string | null = a.tokens.all) =>
  t.call(token, { method: 'GET', url: `/api/v1/events/${slug}/waiting-list` });
const join = (body: Record<string, unknown>, slug = 'gig', token = a.tokens.all) =>
  t.call(token, { method: 'POST', url: `/api/v1/events/${slug}/waiting-list`, headers: json, payload: JSON.stringify(body) });
const remove = (id: number | string, slug = 'gig', token = a.tokens.all) =>
  t.call(token, { method: 'DELETE', url: `/api/v1/events/${slug}/waiting-list/${id}` });
const buy = (typeKey: string, quantity = 1) =>
  t.call(a.tokens.all, {
    method: 'POST',
    url: '/api/v1/events/gig/orders',
    headers: json,
    payload: JSON.stringify({ items: [{ ticket_type_id: ids[`gig/${typeKey}`], quantity }], email: 'public@example.org' }),
  });
const entry = async (id: number) => (await list()).json().entries.find((e: { id: number }) => e.id === id);
const inventoryOf = async (typeKey: string) =>
  t.ctx.db
    .selectFrom('inventory as i')
    .innerJoin('ticket_types as tt', 'tt.inventory_id', 'i.id')
    .innerJoin('events as e', 'e.id', 'tt.event_id')
    .select(['i.capacity', 'i.taken', 'i.waitlisted'])
    .where('tt.key', '=', typeKey)
    .where('e.slug', '=', 'gig')
    .executeTakeFirstOrThrow();
const mails = (kind: string) => t.ctx.db.selectFrom('outbox').select(['payload']).where('kind', '=', kind).execute();

describe('the event document', () => {
  it('reads back waiting_list, leaves it out at the default, and refuses a bad offer_minutes', async () => {
    const doc = (await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/gig/config' })).json();
    expect(doc.waiting_list).toEqual({ enabled: true, offer_minutes: 60 });
    const plain = (await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/closed/config' })).json();
    expect(plain.waiting_list).toBeUndefined();
    for (const bad of [{ offer_minutes: 1 }, { enabled: 'yes' }, { enabled: true, extra: 1 }]) {
      const res = await t.call(a.tokens.all, {
        method: 'PUT',
        url: '/api/v1/events/closed/config',
        headers: json,
        payload: JSON.stringify({ ...plain, waiting_list: bad }),
      });
      expect(res.statusCode).toBe(422);
      expect(JSON.stringify(res.json().error)).toContain('waiting_list');
    }
    const on = await t.call(a.tokens.all, {
      method: 'PUT',
      url: '/api/v1/events/closed/config',
      headers: json,
      payload: JSON.stringify({ ...plain, waiting_list: { enabled: true } }),
    });
    expect(on.statusCode).toBe(200);
    const back = (await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/closed/config' })).json();
    expect(back.waiting_list).toEqual({ enabled: true, offer_minutes: 1440 });
    const off = await t.call(a.tokens.all, {
      method: 'PUT',
      url: '/api/v1/events/closed/config',
      headers: json,
      payload: JSON.stringify(plain),
    });
    expect(off.statusCode).toBe(200);
    expect(
      (await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/closed/config' })).json().waiting_list,
    ).toBeUndefined();
  });
});

describe('list, add, remove', () => {
  it('refuses bad input with the documented errors and changes nothing', async () => {
    const ok = { ticket_type_id: ids['gig/ga'], quantity: 1, email: 'x@example.org', name: 'X' };
    const cases: Array<[Record<string, unknown>, number, string, string?]> = [
      [{ ...ok, quantity: 5 }, 422, 'validation_failed', 'quantity'],
      [{ ...ok, quantity: 0 }, 422, 'validation_failed'],
      [{ ...ok, email: 'nope' }, 422, 'validation_failed', 'email'],
      [{ ...ok, name: '  ' }, 422, 'validation_failed', 'name'],
      [{ ...ok, ticket_type_id: ids['closed/ga'] }, 422, 'validation_failed', 'ticket_type_id'],
      [{ ...ok, ticket_type_id: ids['theirs/ga'] }, 422, 'validation_failed', 'ticket_type_id'],
      [{ ...ok, ticket_type_id: ids['gig/open'] }, 422, 'validation_failed', 'ticket_type_id'],
      [{ ...ok, extra: true }, 422, 'validation_failed'],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await join(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json().error.code).toBe(code);
      if (field) expect(Object.keys(res.json().error.fields ?? {})).toContain(field);
    }
    expect((await join({ ...ok, ticket_type_id: ids['closed/ga'] }, 'closed')).json().error.code).toBe('waiting_list_disabled');
    expect((await list()).json().entries).toEqual([]);
    expect((await inventoryOf('ga')).waitlisted).toBe(false);
  });

  it('checks capabilities and never reaches another account or an event outside the token', async () => {
    const body = { ticket_type_id: ids['gig/ga'], quantity: 1, email: 'x@example.org', name: 'X' };
    expect((await list('gig', a.tokens.orders)).statusCode).toBe(200);
    expect((await join(body, 'gig', a.tokens.orders)).statusCode).toBe(403);
    expect((await list('gig', a.tokens.view)).statusCode).toBe(403);
    expect((await list('theirs')).statusCode).toBe(404);
    expect((await join(body, 'theirs')).statusCode).toBe(404);
    expect((await list('gig', other.tokens.all)).statusCode).toBe(404);
    expect((await list('gig', a.tokens.limited)).statusCode).toBe(200);
    expect((await list('closed', a.tokens.limited)).statusCode).toBe(404);
    expect((await list('gig', null)).statusCode).toBe(401);
    expect((await list()).json().entries).toEqual([]);
  });

  it('queues first come first served; the public sees the type sold out while anyone waits', async () => {
    expect((await buy('ga', 1)).statusCode).toBe(409); // 3 of 3 sold already
    const ann = await join({ ticket_type_id: ids['gig/ga'], quantity: 2, email: 'ann@example.org', name: 'Ann', locale: 'de' });
    expect(ann.statusCode).toBe(201);
    expect(ann.json()).toMatchObject({
      quantity: 2,
      email: 'ann@example.org',
      name: 'Ann',
      position: 1,
      status: 'waiting',
      order: null,
    });
    const bob = (await join({ ticket_type_id: ids['gig/ga'], quantity: 1, email: 'bob@example.org', name: 'Bob' })).json();
    expect(bob.position).toBe(2);
    const again = await join({ ticket_type_id: ids['gig/ga'], quantity: 1, email: 'ANN@example.org', name: 'Ann again' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('already_waiting');
    expect((await mails('mail.waiting_list_joined')).length).toBe(2);
    expect((await inventoryOf('ga')).waitlisted).toBe(true);

    const res = await list();
    expect(res.statusCode).toBe(200);
    expect(res.json().entries.map((e: { name: string; position: number }) => [e.name, e.position])).toEqual([
      ['Ann', 1],
      ['Bob', 2],
    ]);

    // one unit comes back (a refund voids a ticket of PD-2): Ann wants 2, so Bob, who fits, gets it
    const p2 = await t.ctx.db.selectFrom('orders').selectAll().where('ref', '=', 'PD-2').executeTakeFirstOrThrow();
    await refundOrder(t.ctx, { id: p2.id, account_id: p2.account_id, ref: p2.ref, by: 'test' });
    // the public cannot take it: Ann and Bob wait
    expect((await buy('ga', 1)).statusCode).toBe(409);
    await t.jobs.runAll();
    const offered = await entry(bob.id);
    expect(offered).toMatchObject({ status: 'offered', position: null });
    expect(offered.order).toMatch(/\S/);
    expect(Date.parse(offered.expires_at) - Date.parse(offered.offered_at)).toBe(60 * 60_000);
    expect((await entry(ann.json().id)).position).toBe(1);
    const order = (await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/orders/${offered.order}` })).json();
    expect(order).toMatchObject({ status: 'pending', email: 'bob@example.org' });
    expect((await mails('mail.waiting_list_offer')).map((m) => m.payload)).toEqual([{ entry_id: bob.id }]);
    // a second run offers nothing twice
    await t.jobs.runAll();
    expect((await mails('mail.waiting_list_offer')).length).toBe(1);
    expect((await inventoryOf('ga')).taken).toBe(3);

    // Bob lets it lapse: the unit goes on, but Ann still needs 2, and the public still cannot buy
    t.clock.advance(61 * 60_000);
    await t.jobs.runAll();
    expect((await entry(bob.id)).status).toBe('expired');
    expect((await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/orders/${offered.order}` })).json().status).toBe(
      'canceled',
    );
    expect((await entry(ann.json().id)).status).toBe('waiting');
    expect((await buy('ga', 1)).statusCode).toBe(409);

    // more capacity: Ann's 2 fit now, she is offered, nobody waits, the public may buy again
    const patched = await t.call(a.tokens.all, {
      method: 'PATCH',
      url: `/api/v1/events/gig/ticket-types/${ids['gig/ga']}`,
      headers: json,
      payload: JSON.stringify({ capacity: 5 }),
    });
    expect(patched.statusCode).toBe(200);
    await t.jobs.runAll();
    const annOffer = await entry(ann.json().id);
    expect(annOffer.status).toBe('offered');
    expect((await inventoryOf('ga')).waitlisted).toBe(false);
    expect((await buy('ga', 1)).statusCode).toBe(201);
    expect((await buy('ga', 1)).statusCode).toBe(409);

    // Ann pays: accepted
    const row = await t.ctx.db.selectFrom('orders').selectAll().where('ref', '=', annOffer.order).executeTakeFirstOrThrow();
    expect(
      await recordPayment(t.ctx, row, {
        rail: 'sandbox',
        provider: sandboxProvider,
        ref: 'wl-ann',
        amount_cents: row.total_cents,
      }),
    ).toBe('paid');
    await t.jobs.runAll();
    expect((await entry(ann.json().id)).status).toBe('accepted');
  });

  it('removes: a waiting entry leaves, an offered one gives its units to the next; history stays', async () => {
    const type = ids['gig/free'];
    // sell out "Standing" to the public, then queue two
    const all = await buy('free', 100);
    expect(all.statusCode).toBe(201);
    const c = (await join({ ticket_type_id: type, quantity: 1, email: 'c@example.org', name: 'C' })).json();
    const d = (await join({ ticket_type_id: type, quantity: 1, email: 'd@example.org', name: 'D' })).json();
    await t.call(a.tokens.all, { method: 'POST', url: `/api/v1/orders/${all.json().ref}/cancel` });
    await t.jobs.runAll();
    expect((await entry(c.id)).status).toBe('offered');
    expect((await entry(d.id)).status).toBe('offered');
    const e = (await join({ ticket_type_id: type, quantity: 1, email: 'e@example.org', name: 'E' })).json();
    // 98 units still free: E is offered at once
    expect(e.status).toBe('offered');

    expect((await remove(c.id, 'gig', a.tokens.orders)).statusCode).toBe(403);
    expect((await remove(c.id, 'theirs')).statusCode).toBe(404);
    expect((await remove(c.id, 'gig', other.tokens.all)).statusCode).toBe(404);
    expect((await remove(999_999)).statusCode).toBe(404);
    // a path segment that cannot name an entry names none
    expect((await remove('abc')).statusCode).toBe(404);
    const cOrder = (await entry(c.id)).order;
    expect((await remove(c.id)).statusCode).toBe(204);
    expect((await entry(c.id)).status).toBe('removed');
    expect((await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/orders/${cOrder}` })).json().status).toBe('canceled');
    expect((await remove(c.id)).statusCode).toBe(204);
    const ann = (await list()).json().entries.find((x: { name: string }) => x.name === 'Ann');
    const refused = await remove(ann.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('conflict');
  });

  it('delivers the waiting_list.offered webhook with the offered order', async () => {
    const hooks = await t.ctx.db
      .selectFrom('webhook_deliveries')
      .select(['type', 'subject'])
      .where('type', '=', 'waiting_list.offered')
      .execute();
    // no endpoint in this account: none is written; the type is known to the endpoint API
    expect(hooks).toEqual([]);
    const made = await t.call(a.tokens.all, {
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: json,
      payload: JSON.stringify({ url: 'https://hooks.example.org/in', events: ['waiting_list.offered'] }),
    });
    expect(made.statusCode).toBe(201);
    const full = await buy('free', 1);
    const f = (await join({ ticket_type_id: ids['gig/free'], quantity: 1, email: 'f@example.org', name: 'F' })).json();
    expect(full.statusCode === 201 || full.statusCode === 409).toBe(true);
    const offered = await t.ctx.db
      .selectFrom('webhook_deliveries')
      .select(['type', 'subject'])
      .where('type', '=', 'waiting_list.offered')
      .execute();
    const fRow = await t.ctx.db
      .selectFrom('waiting_list_entries')
      .select('order_id')
      .where('id', '=', f.id)
      .executeTakeFirstOrThrow();
    expect(offered).toEqual([{ type: 'waiting_list.offered', subject: { order_id: fRow.order_id } }]);
  });

  it('after sales end, freed units are offered to nobody and the line keeps its order', async () => {
    const g = await join({ ticket_type_id: ids['gig/ga'], quantity: 1, email: 'g@example.org', name: 'G' });
    expect(g.json()).toMatchObject({ status: 'waiting', position: 1 });
    t.clock.set(new Date('2027-04-01T00:00:00Z'));
    const p1 = await t.ctx.db.selectFrom('orders').selectAll().where('ref', '=', 'PD-1').executeTakeFirstOrThrow();
    await refundOrder(t.ctx, { id: p1.id, account_id: p1.account_id, ref: p1.ref, by: 'test' });
    await t.jobs.runAll();
    expect(await entry(g.json().id)).toMatchObject({ status: 'waiting', position: 1, order: null });
    expect((await mails('mail.waiting_list_offer')).map((m) => m.payload)).not.toContainEqual({ entry_id: g.json().id });
  });

  it('shows the routes in the OpenAPI document', async () => {
    const doc = (await t.call(null, { method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/events/{slug}/waiting-list', '/api/v1/events/{slug}/waiting-list/{id}']),
    );
  });
});
