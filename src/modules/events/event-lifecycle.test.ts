import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

// The event lifecycle through HTTP (contract section 11): drafts, the sales start, archive,
// delete and the default check-in list; and what a draft must not give away.

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'life',
      limitedTo: ['live'],
      events: [
        makeEvent({
          slug: 'live',
          name: 'Live show',
          orders: [makeOrder({ ref: 'LIVE-1' })],
          discount_codes: [{ code: 'HALF', percent_off: 50 }],
        }),
        makeEvent({
          slug: 'secret-gig',
          name: 'Secret gig',
          status: 'draft',
          audiences: [{ key: 'vip', name: 'VIP' }],
          portals: [{ key: 'box', name: 'Box office' }],
        }),
        makeEvent({ slug: 'soon', name: 'Soon', sales_start_at: '2026-12-01T10:00:00Z' }),
        makeEvent({ slug: 'empty', name: 'Nothing yet', ticket_types: [] }),
        makeEvent({ slug: 'bare', name: 'Bare', checkin_lists: [{ key: 'door', name: 'Door' }] }),
        makeEvent({ slug: 'old', name: 'Old show', archived: true, orders: [makeOrder({ ref: 'OLD-1' })] }),
      ],
    }),
  );
  other = await seedAccount(t.ctx, makeAccountFile({ slug: 'elsewhere', events: [makeEvent({ slug: 'theirs' })] }));
});
afterAll(() => t.close());

const typeId = async (slug: string) =>
  (
    await t.ctx.db
      .selectFrom('ticket_types as tt')
      .innerJoin('events as e', 'e.id', 'tt.event_id')
      .select('tt.id')
      .where('e.slug', '=', slug)
      .executeTakeFirstOrThrow()
  ).id;
const createOrder = async (slug: string, token = acct.tokens.all) =>
  t.call(token, {
    method: 'POST',
    url: `/api/v1/events/${slug}/orders`,
    headers: json,
    payload: { items: [{ ticket_type_id: await typeId(slug), quantity: 1 }], email: 'b@example.org' },
  });
const config = (slug: string, token = acct.tokens.all) => t.call(token, { method: 'GET', url: `/api/v1/events/${slug}/config` });
const put = (slug: string, doc: object, token = acct.tokens.all) =>
  t.call(token, { method: 'PUT', url: `/api/v1/events/${slug}/config`, headers: json, payload: doc });
const page = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
/** Every row the event owns, counted per table: what a refused delete must leave as it was. */
const footprint = async (slug: string) => {
  const event = await t.ctx.db.selectFrom('events').select('id').where('slug', '=', slug).executeTakeFirst();
  if (!event) return null;
  const out: Record<string, number> = {};
  for (const table of ['ticket_types', 'checkin_lists', 'discount_codes', 'orders', 'tickets', 'inventory'] as const) {
    const r = await t.ctx.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('event_id', '=', event.id)
      .executeTakeFirstOrThrow();
    out[table] = Number(r.n);
  }
  return out;
};

describe('a draft', () => {
  it('is unknown to buyers: its pages, audience and portal pages, calendar file and checkout are 404', async () => {
    for (const url of [
      '/e/life/secret-gig',
      '/e/life/secret-gig/a/vip',
      '/e/life/secret-gig/p/box',
      '/e/life/secret-gig/calendar.ics',
    ]) {
      const res = await page(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).not.toContain('Secret gig');
      expect(res.body, url).not.toContain('General admission');
    }
    const post = await t.app.inject({
      method: 'POST',
      url: '/e/life/secret-gig/checkout',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `qty_${await typeId('secret-gig')}=1&name=A&email=a%40example.org`,
    });
    expect(post.statusCode).toBe(404);
  });

  it('is on neither the account page nor the front page; published events are', async () => {
    for (const url of ['/e/life', '/']) {
      const body = (await page(url)).body;
      expect(body, url).toContain('Live show');
      expect(body, url).not.toContain('Secret gig');
    }
  });

  it('takes no API order (404, nothing written), but staff read and edit it', async () => {
    const before = await footprint('secret-gig');
    const res = await createOrder('secret-gig');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    expect(await footprint('secret-gig')).toEqual(before);
    expect((await t.call(acct.tokens.view, { method: 'GET', url: '/api/v1/events/secret-gig' })).statusCode).toBe(200);
    const doc = (await config('secret-gig')).json();
    expect(doc.status).toBe('draft');
    const renamed = await put('secret-gig', { ...doc, name: 'Secret gig (renamed)' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ status: 'draft', name: 'Secret gig (renamed)' });
  });

  it('once published is on sale; a file or document without status means published', async () => {
    expect((await config('live')).json().status).toBe('published');
    const doc = (await config('secret-gig')).json();
    expect((await put('secret-gig', { ...doc, status: 'published' })).statusCode).toBe(200);
    expect((await page('/e/life/secret-gig')).statusCode).toBe(200);
    const order = await createOrder('secret-gig');
    expect(order.statusCode).toBe(201);
    // with an order it cannot hide again: 409 naming $.status, nothing changed
    const back = await put('secret-gig', { ...doc, status: 'draft' });
    expect(back.statusCode).toBe(409);
    expect(back.json().error).toMatchObject({ code: 'conflict', fields: { '$.status': [expect.any(String)] } });
    expect((await config('secret-gig')).json().status).toBe('published');
  });

  it('refuses a status that is not draft or published', async () => {
    const doc = (await config('bare')).json();
    const res = await put('bare', { ...doc, status: 'hidden' });
    expect(res.statusCode).toBe(422);
    expect(Object.keys(res.json().error.fields)).toContain('$.status');
  });
});

describe('sales_start_at', () => {
  it('before it the event page says when sales open (en, de) and has no checkout', async () => {
    const en = await page('/e/life/soon');
    expect(en.statusCode).toBe(200);
    expect(en.body).toContain('Tickets go on sale');
    expect(en.body).toContain('2026');
    expect(en.body).not.toContain('Continue to payment');
    expect(en.body).not.toContain('<form class="admit-shop"');
    const de = await page('/e/life/soon?lang=de');
    expect(de.body).toContain('Der Ticketverkauf beginnt');
  });

  it('API order create answers 422 sales_not_started, then 201 once sales open', async () => {
    const early = await createOrder('soon');
    expect(early.statusCode).toBe(422);
    expect(early.json().error).toMatchObject({ code: 'sales_not_started', sales_start_at: '2026-12-01T10:00:00.000Z' });
    expect(await t.ctx.db.selectFrom('orders').select('id').where('email', '=', 'b@example.org').execute()).toHaveLength(1);
    // a form sent anyway is refused too
    const form = await t.app.inject({
      method: 'POST',
      url: '/e/life/soon/checkout',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `qty_${await typeId('soon')}=1&name=A&email=a%40example.org`,
    });
    expect(form.statusCode).not.toBe(303);
    t.clock.set('2026-12-01T10:00:01Z');
    try {
      expect((await createOrder('soon')).statusCode).toBe(201);
      const open = await page('/e/life/soon');
      expect(open.body).toContain('Continue to payment');
    } finally {
      t.clock.set('2026-11-22T12:00:00Z');
    }
  });

  it('must come before the end of sales; it can be cleared', async () => {
    const doc = (await config('soon')).json();
    expect(doc.sales_start_at).toBe('2026-12-01T10:00:00Z');
    const late = await put('soon', { ...doc, sales_start_at: '2027-04-01T00:00:00Z' });
    expect(late.statusCode).toBe(422);
    expect(late.json().error.fields['$.sales_start_at']).toBeDefined();
    const { sales_start_at: _drop, ...cleared } = doc;
    const res = await put('soon', cleared);
    expect(res.statusCode).toBe(200);
    expect(res.json().sales_start_at).toBeUndefined();
    expect((await put('soon', doc)).statusCode).toBe(200);
  });
});

describe('an event with nothing on sale', () => {
  it('shows a plain message, not an empty Tickets box with a payment button', async () => {
    const res = await page('/e/life/empty');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('No tickets are on sale for this event at the moment.');
    expect(res.body).not.toContain('Continue to payment');
    expect(res.body).not.toContain('<legend>Tickets</legend>');
  });
});

describe('DELETE /api/v1/events/{slug}', () => {
  it('needs events.manage (403) and answers 404 outside the token or account', async () => {
    const before = await footprint('bare');
    for (const tok of [acct.tokens.view, acct.tokens.manage, acct.tokens.orders, acct.tokens.none]) {
      const res = await t.call(tok, { method: 'DELETE', url: '/api/v1/events/bare' });
      expect(res.statusCode).toBe(403);
    }
    expect((await t.call(acct.tokens.limited, { method: 'DELETE', url: '/api/v1/events/bare' })).statusCode).toBe(404);
    expect((await t.call(other.tokens.all, { method: 'DELETE', url: '/api/v1/events/bare' })).statusCode).toBe(404);
    expect((await t.call(acct.tokens.all, { method: 'DELETE', url: '/api/v1/events/theirs' })).statusCode).toBe(404);
    expect((await t.call(acct.tokens.all, { method: 'DELETE', url: '/api/v1/events/nope' })).statusCode).toBe(404);
    expect(await footprint('bare')).toEqual(before);
  });

  it('an event with orders: 409 conflict and nothing changes', async () => {
    const before = await footprint('live');
    const res = await t.call(acct.tokens.all, { method: 'DELETE', url: '/api/v1/events/live' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('conflict');
    expect(await footprint('live')).toEqual(before);
    expect((await page('/e/life/live')).statusCode).toBe(200);
  });

  it('an event without orders: 204, with its catalogue, lists and codes', async () => {
    const doc = (await config('bare')).json();
    await put('bare', { ...doc, discount_codes: [{ code: 'GONE', percent_off: 10 }] });
    expect((await footprint('bare'))!.discount_codes).toBe(1);
    const res = await t.call(acct.tokens.all, { method: 'DELETE', url: '/api/v1/events/bare' });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await footprint('bare')).toBeNull();
    expect(await t.ctx.db.selectFrom('discount_codes').select('id').where('code', '=', 'GONE').execute()).toEqual([]);
    expect((await config('bare')).statusCode).toBe(404);
    expect((await page('/e/life/bare')).statusCode).toBe(404);
    expect((await t.call(acct.tokens.all, { method: 'DELETE', url: '/api/v1/events/bare' })).statusCode).toBe(404);
    // the slug can be used again
    expect((await put('bare', { ...doc, checkin_lists: undefined, discount_codes: [] })).statusCode).toBe(201);
  });
});

describe('archived', () => {
  it('is off the API list, the account page and the shop, while its orders keep working', async () => {
    const list = (await t.call(acct.tokens.view, { method: 'GET', url: '/api/v1/events' })).json();
    expect(list.events.map((e: { slug: string }) => e.slug)).not.toContain('old');
    expect((await page('/e/life')).body).not.toContain('Old show');
    expect((await page('/e/life/old')).statusCode).toBe(404);
    expect((await createOrder('old')).statusCode).toBe(404);
    const order = await t.call(acct.tokens.all, { method: 'GET', url: '/api/v1/orders/OLD-1' });
    expect(order.statusCode).toBe(200);
    const secret = (
      await t.ctx.db.selectFrom('orders').select('access_secret').where('ref', '=', 'OLD-1').executeTakeFirstOrThrow()
    ).access_secret;
    const orderPage = await page(`/o/${secret}`);
    expect(orderPage.statusCode).toBe(200);
    expect(orderPage.body).toContain('Old show');
  });

  it('comes back when unarchived', async () => {
    const doc = (await config('old')).json();
    expect(doc.archived).toBe(true);
    expect((await put('old', { ...doc, archived: false })).statusCode).toBe(200);
    const list = (await t.call(acct.tokens.view, { method: 'GET', url: '/api/v1/events' })).json();
    expect(list.events.map((e: { slug: string }) => e.slug)).toContain('old');
    expect((await put('old', { ...doc, archived: true })).statusCode).toBe(200);
  });
});

describe('check-in lists of a new event', () => {
  it('gets "All tickets" (every ticket type) when its document lists none', async () => {
    const res = await put('fresh', {
      name: 'Fresh',
      currency: 'eur',
      timezone: 'UTC',
      starts_at: '2027-06-01T18:00:00Z',
      ticket_types: [{ key: 'ga', name: 'GA', price: 1000 }],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().checkin_lists).toEqual([{ key: 'all-tickets', name: 'All tickets' }]);
    expect(res.json().status).toBe('published');
    const lists = await t.call(acct.tokens.view, { method: 'GET', url: '/life/fresh/checkin_lists' });
    expect(lists.json().checkin_lists.map((l: { name: string }) => l.name)).toEqual(['All tickets']);
  });

  it('keeps only its own lists when it names them', async () => {
    const doc = (await config('live')).json();
    expect(doc.checkin_lists).toEqual([{ key: 'all-tickets', name: 'All tickets' }]);
    const res = await put('own-lists', {
      name: 'Own',
      currency: 'eur',
      timezone: 'UTC',
      starts_at: '2027-06-01T18:00:00Z',
      checkin_lists: [{ key: 'front', name: 'Front door' }],
    });
    expect(res.json().checkin_lists).toEqual([{ key: 'front', name: 'Front door' }]);
  });

  it('an update that leaves every list out is taken as meant: none is added back', async () => {
    const doc = (await config('own-lists')).json();
    const res = await put('own-lists', { ...doc, checkin_lists: [] });
    expect(res.statusCode).toBe(200);
    expect(res.json().checkin_lists).toEqual([]);
  });
});
