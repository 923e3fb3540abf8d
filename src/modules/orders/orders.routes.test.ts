import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import type { Db } from '../../platform/db/database.ts';

let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let types: Record<string, number> & { vip: number };
let otherEventType: number;

async function rowCounts(db: Db): Promise<string> {
  const r = await sql<{ s: string }>`select concat_ws(',',
    (select count(*) from orders), (select count(*) from order_lines), (select count(*) from tickets),
    (select count(*) from idempotency_keys), (select count(*) from outbox), (select sum(taken) from inventory),
    (select sum(uses) from discount_codes)) as s`.execute(db);
  return r.rows[0]!.s;
}

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'gala',
          tax_mode: 'inclusive',
          starts_at: '2027-03-15T18:00:00Z',
          ticket_types: [
            {
              key: 'ga',
              name: 'General',
              price: 2500,
              capacity: 100,
              max_per_order: 10,
              tax_rate_bp: 700,
              group_discounts: [{ min_quantity: 5, percent_off: 10 }],
              includes: [{ good: 'prog' }],
            },
            { key: 'vip', name: 'VIP', price: 6000, capacity: 2, tax_rate_bp: 700 },
            { key: 'free', name: 'Free', price: 0 },
            { key: 'cheap', name: 'Cheap', price: 20 },
            { key: 'off', name: 'Off sale', price: 1000, on_sale: false },
            { key: 'old', name: 'Old', price: 1000, archived: true },
            { key: 'crew', name: 'Crew', price: 0, audience: 'crew' },
            { key: 'ws', name: 'Workshop', price: 1000, requires_session: true },
          ],
          goods: [{ key: 'prog', name: 'Programme', price: 0, capacity: 3 }],
          audiences: [{ key: 'crew', name: 'Crew' }],
          sessions: [{ key: 's1', starts_at: '2027-03-15T10:00:00Z', ticket_types: ['ws'] }],
        }),
        makeEvent({
          slug: 'closed',
          sales_end_at: '2026-11-01T00:00:00Z',
          ticket_types: [{ key: 'ga', name: 'GA', price: 1000 }],
        }),
        makeEvent({
          slug: 'other',
          ticket_types: [{ key: 'x', name: 'X', price: 1000 }],
          orders: [
            makeOrder({ ref: 'OTHER-1', lines: [{ kind: 'tickets', ref: 'x', quantity: 1, unit_price: 1000 }], payments: [] }),
          ],
        }),
      ],
    }),
  );
  const tt = await t.ctx.db
    .selectFrom('ticket_types as tt')
    .innerJoin('events as e', 'e.id', 'tt.event_id')
    .select(['tt.id', 'tt.key', 'e.slug'])
    .execute();
  types = Object.fromEntries(tt.filter((x) => x.slug === 'gala').map((x) => [x.key, x.id])) as typeof types;
  otherEventType = tt.find((x) => x.slug === 'other')!.id;
});
afterAll(() => t.close());

const create = (body: unknown, opts: { token?: string; key?: string; slug?: string; raw?: string; type?: string } = {}) =>
  t.call(opts.token ?? a.tokens.all, {
    method: 'POST',
    url: `/api/v1/events/${opts.slug ?? 'gala'}/orders`,
    headers: {
      'content-type': opts.type ?? 'application/json',
      ...(opts.key !== undefined ? { 'idempotency-key': opts.key } : {}),
    },
    payload: opts.raw ?? JSON.stringify(body),
  });

describe('POST /events/{slug}/orders', () => {
  it('creates a pending order with a payment_url, priced with group discount, tax and included goods', async () => {
    const res = await create({ items: [{ ticket_type_id: types.ga, quantity: 3 }], email: 'ada@example.org', name: 'Ada' });
    expect(res.statusCode).toBe(201);
    const o = res.json();
    expect(o).toMatchObject({
      status: 'pending',
      currency: 'eur',
      fx_rate: 1,
      subtotal_cents: 7500,
      discount_cents: 0,
      total_cents: 7500,
      refunded_cents: 0,
      name: 'Ada',
      email: 'ada@example.org',
      audience: null,
      portal: null,
      event: 'gala',
      paid_at: null,
    });
    expect(o.payment_url).toMatch(/^http:\/\/admit\.test\/pay\/[A-Za-z0-9_-]{32}$/);
    expect(o.url).toBeUndefined();
    expect(o.items).toEqual([
      { ticket_type_id: types.ga, name: 'General', quantity: 3, unit_price_cents: 2500, total_cents: 7500 },
    ]);
    expect(o.lines).toEqual([
      {
        kind: 'tickets',
        name: 'General',
        quantity: 3,
        unit_price_cents: 2500,
        total_cents: 7500,
        tax_cents: 491,
        tax_rate_bp: 700,
      },
      { kind: 'goods', name: 'Programme', quantity: 3, unit_price_cents: 0, total_cents: 0, tax_cents: 0, tax_rate_bp: 0 },
    ]);
    const read = await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/orders/${o.ref}` });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ ref: o.ref, tickets: [], answers: [], item_answers: [] });
    expect(read.body).not.toContain('/pay/');
    const row = await t.ctx.db.selectFrom('orders').select(['expires_at']).where('ref', '=', o.ref).executeTakeFirstOrThrow();
    expect(row.expires_at?.toISOString()).toBe('2027-03-16T18:00:00.000Z');
  });

  it('applies the highest group tier reached, rounding once per line', async () => {
    // the included programme (capacity 3) is exhausted by the first order, so use a type without it
    const rows = (await create({ items: [{ ticket_type_id: types.vip, quantity: 1 }] })).json();
    expect(rows.total_cents).toBe(6000);
    expect(rows.lines[0].tax_cents).toBe(393);
  });

  it('fulfils a zero-total order at once: paid, tickets minted, mail queued, url returned', async () => {
    const before = await t.ctx.db
      .selectFrom('outbox')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    const res = await create({ items: [{ ticket_type_id: types.free, quantity: 2 }], email: 'free@example.org' });
    expect(res.statusCode).toBe(201);
    const o = res.json();
    expect(o.status).toBe('paid');
    expect(o.paid_at).toBe('2026-11-22T12:00:00Z');
    expect(o.url).toMatch(/^http:\/\/admit\.test\/o\/[A-Za-z0-9_-]{32}$/);
    expect(o.payment_url).toBeUndefined();
    const read = (await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/orders/${o.ref}` })).json();
    expect(read.tickets).toEqual([`${o.ref}-1`, `${o.ref}-2`]);
    const qr = await t.ctx.db.selectFrom('tickets').select('qr_token').where('ref', 'like', `${o.ref}-%`).execute();
    expect(new Set(qr.map((x) => x.qr_token)).size).toBe(2);
    for (const x of qr) expect(Buffer.from(x.qr_token, 'base64url').length).toBeGreaterThanOrEqual(16);
    const after = await t.ctx.db
      .selectFrom('outbox')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n + 1);
  });

  it('refuses bad input with the documented codes and writes nothing', async () => {
    const cases: Array<[unknown, number, string, { raw?: string; type?: string; slug?: string; key?: string }?]> = [
      [null, 422, 'invalid_body', { raw: '{"items":' }],
      [null, 422, 'invalid_body', { raw: 'items=1', type: 'application/x-www-form-urlencoded' }],
      [null, 422, 'invalid_body', { raw: 'x', type: 'text/plain' }],
      [{ items: [{ ticket_type_id: types.ga, quantity: 1 }], extra: 1 }, 422, 'invalid_body'],
      [{ items: [{ ticket_type_id: types.ga, quantity: 1 }], email: null }, 422, 'invalid_body'],
      [{ items: [{ ticket_type_id: String(types.ga), quantity: 1 }] }, 422, 'invalid_body'],
      [{ items: [{ ticket_type_id: types.ga, quantity: 1.5 }] }, 422, 'invalid_body'],
      [{ items: 'all' }, 422, 'invalid_body'],
      [{ items: [{ ticket_type_id: types.ga, quantity: 1 }], email: 'not-an-email' }, 422, 'invalid_body'],
      [{ items: [] }, 422, 'invalid_items'],
      [{ items: [{ ticket_type_id: types.ga, quantity: 0 }] }, 422, 'invalid_items'],
      [{ items: [{ ticket_type_id: types.ga, quantity: -2 }] }, 422, 'invalid_items'],
      [
        {
          items: [
            { ticket_type_id: types.ga, quantity: 1 },
            { ticket_type_id: types.ga, quantity: 1 },
          ],
        },
        422,
        'invalid_items',
      ],
      [{ items: [{ ticket_type_id: types.ga, quantity: 11 }] }, 422, 'invalid_items'],
      [{ items: [{ ticket_type_id: 99999999, quantity: 1 }] }, 422, 'invalid_items'],
      [{ items: [{ ticket_type_id: otherEventType, quantity: 1 }] }, 422, 'invalid_items'],
      [{ items: [{ ticket_type_id: types.off, quantity: 1 }] }, 422, 'invalid_items'],
      [{ items: [{ ticket_type_id: types.old, quantity: 1 }] }, 422, 'invalid_items'],
      [{ items: [{ ticket_type_id: types.crew, quantity: 1 }], email: 'c@example.org' }, 422, 'invalid_items'],
      [{ items: [{ ticket_type_id: types.ws, quantity: 1 }] }, 422, 'invalid_items'],
      [{ items: [{ ticket_type_id: types.free, quantity: 1 }] }, 422, 'email_required'],
      [{ items: [{ ticket_type_id: types.cheap, quantity: 1 }] }, 422, 'amount_too_small'],
      [{ items: [{ ticket_type_id: types.vip, quantity: 3 }] }, 409, 'sold_out'],
      [{ items: [{ ticket_type_id: types.ga, quantity: 1 }] }, 422, 'invalid_idempotency_key', { key: 'k'.repeat(201) }],
      [{ items: [{ ticket_type_id: types.ga, quantity: 1 }] }, 422, 'sales_closed', { slug: 'closed' }],
      [{ items: [{ ticket_type_id: types.ga, quantity: 1 }] }, 404, 'not_found', { slug: 'nope' }],
    ];
    for (const [body, status, code, opts] of cases) {
      const before = await rowCounts(t.ctx.db);
      const res = await create(body, opts ?? {});
      expect(res.statusCode, `${JSON.stringify(body)} ${JSON.stringify(opts)} ${res.body}`).toBe(status);
      expect(res.json().error.code, res.body).toBe(code);
      expect(await rowCounts(t.ctx.db)).toBe(before);
    }
  });

  it('names the type in invalid_items and the remaining stock in sold_out', async () => {
    const r1 = await create({ items: [{ ticket_type_id: types.ws, quantity: 1 }] });
    expect(r1.json().error.message).toContain('Workshop');
    const r2 = await create({ items: [{ ticket_type_id: types.vip, quantity: 3 }] });
    expect(r2.json().error.message).toBe('"VIP": only 1 left');
    // the included good runs out first: 3 programmes were taken by the first order
    const r3 = await create({ items: [{ ticket_type_id: types.ga, quantity: 1 }] });
    expect(r3.statusCode).toBe(409);
    expect(r3.json().error.message).toContain('Programme');
  });

  it('checks capabilities and event visibility', async () => {
    const body = { items: [{ ticket_type_id: types.vip, quantity: 1 }] };
    expect((await create(body, { token: a.tokens.view })).statusCode).toBe(403);
    expect((await create(body, { token: a.tokens.orders })).statusCode).toBe(403);
    expect((await t.call(null, { method: 'POST', url: '/api/v1/events/gala/orders', payload: body })).statusCode).toBe(401);
  });
});

describe('Idempotency-Key', () => {
  it('first call 201, replays 200 with the same order, other tokens get their own', async () => {
    const body = { items: [{ ticket_type_id: types.vip, quantity: 1 }] };
    const first = await create(body, { key: 'abc' });
    expect(first.statusCode).toBe(201);
    const again = await create({ items: 'ignored' }, { key: 'abc' });
    expect(again.statusCode).toBe(200);
    expect(again.json().ref).toBe(first.json().ref);
    expect(again.json().payment_url).toBe(first.json().payment_url);
    const other = await create(body, { key: 'abc', token: a.tokens.manage });
    expect(other.statusCode).toBe(409); // VIP is now sold out: a different token's key is a new order
    await t.call(a.tokens.all, { method: 'POST', url: `/api/v1/orders/${first.json().ref}/cancel` });
  });
});

describe('reads', () => {
  it('lists newest first with a cursor; a full final page points at an empty page', async () => {
    const all = (await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/gala/orders?limit=500' })).json();
    expect(all.next_after).toBeNull();
    const n = all.orders.length;
    expect(n).toBeGreaterThanOrEqual(3);
    const page1 = (await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/events/gala/orders?limit=${n - 1}` })).json();
    expect(page1.orders.map((o: { ref: string }) => o.ref)).toEqual(
      all.orders.slice(0, n - 1).map((o: { ref: string }) => o.ref),
    );
    const page2 = (
      await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/events/gala/orders?limit=${n - 1}&after=${page1.next_after}` })
    ).json();
    expect(page2.orders.length).toBe(1);
    expect(page2.next_after).toBeNull();
    const exact = (await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/events/gala/orders?limit=${n}` })).json();
    expect(exact.next_after).toBe(all.orders[n - 1].ref);
    const empty = (
      await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/events/gala/orders?limit=${n}&after=${exact.next_after}` })
    ).json();
    expect(empty).toEqual({ orders: [], next_after: null });
    for (const limit of ['0', '-5', 'abc', '1e9']) {
      const r = await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/events/gala/orders?limit=${limit}` });
      expect(r.statusCode).toBe(200);
    }
    expect((await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/gala/orders?limit=0' })).json().orders.length).toBe(
      1,
    );
  });

  it('403 without orders.view, 404 for unknown refs and for orders outside a limited token', async () => {
    expect((await t.call(a.tokens.view, { method: 'GET', url: '/api/v1/events/gala/orders' })).statusCode).toBe(403);
    expect((await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/orders/NOPE' })).statusCode).toBe(404);
    expect((await t.call(a.tokens.limited, { method: 'GET', url: '/api/v1/orders/OTHER-1' })).statusCode).toBe(404);
    expect((await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/orders/OTHER-1' })).statusCode).toBe(200);
  });
});

describe('PATCH /orders/{ref}', () => {
  it('changes name and email only, refuses bad input, rotates the link on revoke', async () => {
    const o = (await create({ items: [{ ticket_type_id: types.free, quantity: 1 }], email: 'x@example.org' })).json();
    const patch = (body: unknown, raw?: string) =>
      t.call(a.tokens.all, {
        method: 'PATCH',
        url: `/api/v1/orders/${o.ref}`,
        headers: { 'content-type': 'application/json' },
        payload: raw ?? JSON.stringify(body),
      });
    const ok = await patch({ name: 'New Name' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ name: 'New Name', email: 'x@example.org' });
    for (const [body, raw] of [
      [{ name: null }],
      [{ name: '  ' }],
      [{ email: 'nope' }],
      [{ foo: 1 }],
      [{ revoke_link: 'yes' }],
      [null, '{'],
      [null, '[]'],
    ] as const) {
      const res = await patch(body, raw);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().error.code).toBe('invalid_body');
    }
    const secret = async () =>
      (await t.ctx.db.selectFrom('orders').select('access_secret').where('ref', '=', o.ref).executeTakeFirstOrThrow())
        .access_secret;
    const s1 = await secret();
    await patch({ email: 'y@example.org' });
    expect(await secret()).toBe(s1);
    await patch({ revoke_link: true });
    expect(await secret()).not.toBe(s1);
    expect(
      (await t.call(a.tokens.view, { method: 'PATCH', url: `/api/v1/orders/${o.ref}`, payload: { name: 'x' } })).statusCode,
    ).toBe(403);
  });
});

describe('POST /orders/{ref}/cancel', () => {
  it('cancels a pending order and releases its stock; anything else is not_cancelable; bodies are ignored', async () => {
    const created = await create({ items: [{ ticket_type_id: types.vip, quantity: 1 }] });
    expect(created.statusCode, created.body).toBe(201);
    const o = created.json();
    const taken = async () =>
      (
        await t.ctx.db
          .selectFrom('inventory as i')
          .innerJoin('ticket_types as tt', 'tt.inventory_id', 'i.id')
          .select('i.taken')
          .where('tt.id', '=', types.vip)
          .executeTakeFirstOrThrow()
      ).taken;
    const before = await taken();
    const res = await t.call(a.tokens.all, {
      method: 'POST',
      url: `/api/v1/orders/${o.ref}/cancel`,
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'canceled', canceled_at: '2026-11-22T12:00:00Z' });
    expect(await taken()).toBe(before - 1);
    const again = await t.call(a.tokens.all, { method: 'POST', url: `/api/v1/orders/${o.ref}/cancel` });
    expect(again.statusCode).toBe(422);
    expect(again.json().error.code).toBe('not_cancelable');
    expect((await t.call(a.tokens.view, { method: 'POST', url: `/api/v1/orders/${o.ref}/cancel` })).statusCode).toBe(403);
    expect((await t.call(a.tokens.all, { method: 'POST', url: '/api/v1/orders/NOPE/cancel' })).statusCode).toBe(404);
  });
});

describe('holds', () => {
  it('an expired hold frees its stock at once, and the sweeper cancels it', async () => {
    const o = (await create({ items: [{ ticket_type_id: types.vip, quantity: 1 }] })).json();
    const held = await create({ items: [{ ticket_type_id: types.vip, quantity: 2 }] });
    expect(held.statusCode).toBe(409);
    t.clock.set('2027-03-16T18:00:01Z'); // past the hold of `o`, but sales are closed by then: check the read only
    const avail = await t.ctx.db
      .selectFrom('inventory as i')
      .innerJoin('ticket_types as tt', 'tt.inventory_id', 'i.id')
      .select(['i.taken', 'i.capacity'])
      .where('tt.id', '=', types.vip)
      .executeTakeFirstOrThrow();
    expect(avail.taken).toBeGreaterThan(0);
    await t.jobs.runAll();
    const read = (await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/orders/${o.ref}` })).json();
    expect(read.status).toBe('canceled');
    expect(read.canceled_at).toBe('2027-03-16T18:00:00Z');
    t.clock.set('2026-11-22T12:00:00Z');
    expect((await create({ items: [{ ticket_type_id: types.vip, quantity: 2 }] })).statusCode).toBe(201);
  });
});
