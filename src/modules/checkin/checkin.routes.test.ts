import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;
const ids: Record<string, number> = {};

const types = [
  { key: 'ga', name: 'General admission', price: 2500, capacity: 100 },
  { key: 'vip', name: 'VIP', price: 5000, capacity: 10 },
];

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'gig',
          ticket_types: types,
          checkin_lists: [
            { key: 'main', name: 'Main door' },
            { key: 'vipdoor', name: 'VIP door', ticket_types: ['vip'] },
            { key: 'back', name: 'Backstage 50%', ticket_types: ['vip'] },
          ],
          orders: [
            makeOrder({
              ref: 'GIG-1',
              lines: [
                { kind: 'tickets', ref: 'ga', quantity: 2, unit_price: 2500, attendees: ['Ann', 'Bob'] },
                { kind: 'tickets', ref: 'vip', quantity: 1, unit_price: 5000, attendees: ['Cleo'] },
              ],
              payments: [{ rail: 'sandbox', amount: 10000, at: '2026-11-01T10:05:00Z', fee: 0 }],
            }),
            makeOrder({
              ref: 'GIG-2',
              status: 'refunded',
              refunds: [{ amount: 2500, at: '2026-11-02T10:00:00Z' }],
            }),
            makeOrder({
              ref: 'GIG-3',
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 2500, checked_in: ['main'] }],
            }),
            makeOrder({ ref: 'GIG-4', status: 'pending', paid_at: undefined, payments: [] }),
          ],
        }),
        makeEvent({
          slug: 'other-gig',
          ticket_types: types,
          checkin_lists: [{ key: 'main', name: 'Other door' }],
          orders: [makeOrder({ ref: 'OTH-1' })],
        }),
      ],
    }),
  );
  other = await seedAccount(t.ctx, makeAccountFile({ events: [makeEvent({ slug: 'gig' })] }));
  for (const l of await t.ctx.db.selectFrom('checkin_lists').select(['id', 'key', 'event_id']).execute()) {
    const ev = await t.ctx.db.selectFrom('events').select('slug').where('id', '=', l.event_id).executeTakeFirstOrThrow();
    ids[`${ev.slug}/${l.key}`] = Number(l.id);
  }
});
afterAll(() => t.close());

const get = (token: string, url: string) => t.call(token, { method: 'GET', url });
const base = () => `/${acct.slug}/gig/checkin_lists`;

async function qrOf(ref: string): Promise<string> {
  const row = await t.ctx.db.selectFrom('tickets').select('qr_token').where('ref', '=', ref).executeTakeFirstOrThrow();
  return row.qr_token;
}
async function orderQr(ref: string): Promise<string> {
  const row = await t.ctx.db.selectFrom('orders').select('qr_token').where('ref', '=', ref).executeTakeFirstOrThrow();
  return row.qr_token;
}

describe('GET /{account}/{event}/checkin_lists', () => {
  it('lists with the page meta, searched case-insensitively', async () => {
    const res = await get(acct.tokens.view, base());
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.checkin_lists.map((l: { name: string }) => l.name)).toEqual(['Backstage 50%', 'Main door', 'VIP door']);
    expect(body.meta).toEqual({ current_page: 1, next_page: null, prev_page: null, total_pages: 1, total_count: 3 });
    const main = body.checkin_lists[1];
    expect(main).toEqual({
      id: ids['gig/main'],
      name: 'Main door',
      checked_in_count: 1,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const q = await get(acct.tokens.view, `${base()}?q=DOOR`);
    expect(q.json().checkin_lists.map((l: { name: string }) => l.name)).toEqual(['Main door', 'VIP door']);
    expect(q.json().meta.total_count).toBe(2);
    // LIKE wildcards are literal text
    expect((await get(acct.tokens.view, `${base()}?q=50%25`)).json().meta.total_count).toBe(1);
    expect((await get(acct.tokens.view, `${base()}?q=_`)).json().meta.total_count).toBe(0);
  });

  it('pages: edges and nonsense values clamp, never an error', async () => {
    const p = async (qs: string) => (await get(acct.tokens.view, `${base()}?${qs}`)).json();
    let b = await p('per_page=2');
    expect(b.checkin_lists).toHaveLength(2);
    expect(b.meta).toEqual({ current_page: 1, next_page: 2, prev_page: null, total_pages: 2, total_count: 3 });
    b = await p('per_page=2&page=2');
    expect(b.checkin_lists.map((l: { name: string }) => l.name)).toEqual(['VIP door']);
    expect(b.meta).toEqual({ current_page: 2, next_page: null, prev_page: 1, total_pages: 2, total_count: 3 });
    b = await p('per_page=2&page=9');
    expect(b.checkin_lists).toEqual([]);
    expect(b.meta).toMatchObject({ current_page: 9, next_page: null, prev_page: 2, total_pages: 2 });
    for (const qs of ['page=abc', 'page=-4', 'page=0', 'page=1.5', 'page=', 'page=1&page=2', 'per_page=x']) {
      const r = await get(acct.tokens.view, `${base()}?${qs}`);
      expect(r.statusCode, qs).toBe(200);
      expect(r.json().meta.current_page, qs).toBe(1);
      expect(r.json().checkin_lists, qs).toHaveLength(3);
    }
    expect((await p('per_page=0')).checkin_lists).toHaveLength(1);
    expect((await p('per_page=-3')).meta.total_pages).toBe(3);
    expect((await p('per_page=100000')).meta.total_pages).toBe(1);
    expect((await p('page=99999999999999999999')).meta.current_page).toBe(1_000_000);
  });

  it('401 without a token, 404 for another account, an unknown or invisible event', async () => {
    expect((await t.call(null, { method: 'GET', url: base() })).statusCode).toBe(401);
    const wrong = await get(other.tokens.all, base());
    expect(wrong.statusCode).toBe(404);
    expect(wrong.json().error.code).toBe('not_found');
    expect((await get(acct.tokens.all, `/${acct.slug}/nope/checkin_lists`)).statusCode).toBe(404);
    // the limited token sees only the first event ("gig"), not "other-gig"
    expect((await get(acct.tokens.limited, base())).statusCode).toBe(200);
    expect((await get(acct.tokens.limited, `/${acct.slug}/other-gig/checkin_lists`)).statusCode).toBe(404);
    // any valid token of the account reads, even one without capabilities
    expect((await get(acct.tokens.none, base())).statusCode).toBe(200);
  });
});

describe('GET /{account}/{event}/checkin_lists/{id}', () => {
  it('shows one list; unknown, non-numeric and other-event ids are 404', async () => {
    const res = await get(acct.tokens.view, `${base()}/${ids['gig/vipdoor']}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: ids['gig/vipdoor'], name: 'VIP door', checked_in_count: 0 });
    for (const id of ['999999', 'abc', '1.0', '-1', '0', `${ids['other-gig/main']}`]) {
      const r = await get(acct.tokens.view, `${base()}/${id}`);
      expect(r.statusCode, id).toBe(404);
      expect(r.json().error.code).toBe('not_found');
    }
  });
});

describe('tickets and orders that can be checked in', () => {
  it('offers valid tickets of paid orders; restricted lists only their types', async () => {
    const res = await get(acct.tokens.view, `${base()}/${ids['gig/main']}/tickets`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.tickets.map((x: { reference: string }) => x.reference).sort()).toEqual(
      ['GIG-1-1', 'GIG-1-2', 'GIG-1-3', 'GIG-3-1'].sort(),
    );
    expect(body.meta).toEqual({ lookup_mode: 'test', pagination: { page: 1, items: 50, pages: 1, count: 4 } });
    const one = body.tickets.find((x: { reference: string }) => x.reference === 'GIG-1-3');
    const qr = await qrOf('GIG-1-3');
    expect(one).toEqual({
      qr_code_identifier: qr,
      qr_code_url: `http://admit.test/t/${qr}`,
      url_checksum: createHash('sha256').update(`http://admit.test/t/${qr}`).digest('hex'),
      reference: 'GIG-1-3',
      id: expect.any(Number),
      ticket_type: 'VIP',
      seat: null,
    });
    const vip = (await get(acct.tokens.view, `${base()}/${ids['gig/vipdoor']}/tickets`)).json();
    expect(vip.tickets.map((x: { reference: string }) => x.reference)).toEqual(['GIG-1-3']);
    const paged = (await get(acct.tokens.view, `${base()}/${ids['gig/main']}/tickets?per_page=3&page=2`)).json();
    expect(paged.tickets).toHaveLength(1);
    expect(paged.meta.pagination).toEqual({ page: 2, items: 3, pages: 2, count: 4 });
  });

  it('offers paid orders with their ticket-type counts', async () => {
    const res = await get(acct.tokens.view, `${base()}/${ids['gig/main']}/orders`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const qr = await orderQr('GIG-1');
    expect(body.orders).toEqual([
      {
        qr_code_identifier: qr,
        qr_code_url: `http://admit.test/t/o/${qr}`,
        url_checksum: createHash('sha256').update(`http://admit.test/t/o/${qr}`).digest('hex'),
        reference: 'GIG-1',
        order_id: expect.any(Number),
        ticket_types: { ga: 2, vip: 1 },
      },
      expect.objectContaining({ reference: 'GIG-3', ticket_types: { ga: 1 } }),
    ]);
    expect(body.meta.pagination).toEqual({ page: 1, items: 50, pages: 1, count: 2 });
    const vip = (await get(acct.tokens.view, `${base()}/${ids['gig/vipdoor']}/orders`)).json();
    expect(vip.orders.map((o: { reference: string; ticket_types: object }) => [o.reference, o.ticket_types])).toEqual([
      ['GIG-1', { vip: 1 }],
    ]);
    expect((await get(acct.tokens.view, `${base()}/999999/orders`)).statusCode).toBe(404);
    expect((await t.call(null, { method: 'GET', url: `${base()}/${ids['gig/main']}/orders` })).statusCode).toBe(401);
  });

  it('lookup_mode is live for an account whose payments are not in the sandbox', async () => {
    const live = await seedAccount(
      t.ctx,
      makeAccountFile({
        account: { slug: 'live-acct', name: 'Live', payments: { mode: 'none' } },
        slug: 'live-acct',
        events: [makeEvent({ slug: 'x', checkin_lists: [{ key: 'd', name: 'Door' }] })],
      }),
    );
    const list = (await get(live.tokens.view, `/live-acct/x/checkin_lists`)).json().checkin_lists[0];
    const res = await get(live.tokens.view, `/live-acct/x/checkin_lists/${list.id}/tickets`);
    expect(res.json().meta.lookup_mode).toBe('live');
  });
});
