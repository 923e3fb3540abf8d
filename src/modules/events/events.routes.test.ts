import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      series: [
        { slug: 'zeta', name: 'Zeta nights' },
        { slug: 'alpha', name: 'Alpha days' },
      ],
      events: [
        makeEvent({
          slug: 'older',
          series: 'zeta',
          starts_at: '2027-01-01T18:00:00Z',
          ticket_types: [
            { key: 'late', name: 'Late', price: 100, position: 2 },
            { key: 'gone', name: 'Gone', price: 100, archived: true, position: 0 },
            { key: 'first', name: 'First', price: 2500, capacity: 10, max_per_order: 4, position: 1 },
          ],
        }),
        makeEvent({
          slug: 'newer',
          currency: 'jpy',
          timezone: 'Asia/Tokyo',
          starts_at: '2027-05-01T10:00:00Z',
          ticket_types: [],
        }),
      ],
    }),
  );
  other = await seedAccount(t.ctx, makeAccountFile({ events: [makeEvent({ slug: 'elsewhere' })] }));
});
afterAll(() => t.close());

describe('GET /api/v1/events', () => {
  it('lists newest first with the contract fields', async () => {
    const res = await t.call(acct.tokens.view, { method: 'GET', url: '/api/v1/events' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.events.map((e: { slug: string }) => e.slug)).toEqual(['newer', 'older']);
    expect(body.events[1]).toEqual({
      slug: 'older',
      name: expect.any(String),
      series: 'zeta',
      currency: 'eur',
      currencies: ['eur'],
      timezone: 'Europe/Berlin',
      starts_at: '2027-01-01T18:00:00Z',
      ends_at: null,
      sales_end_at: null,
      tax_mode: 'inclusive',
      url: `http://admit.test/e/${acct.slug}/older`,
      description: null,
      venue: null,
      locale: 'en',
    });
  });

  it('shows an event-limited token only its events', async () => {
    const res = await t.call(acct.tokens.limited, { method: 'GET', url: '/api/v1/events' });
    expect(res.json().events.map((e: { slug: string }) => e.slug)).toEqual(['older']);
  });

  it('401 without or with a bad token, 403 without events.view', async () => {
    expect((await t.call(null, { method: 'GET', url: '/api/v1/events' })).statusCode).toBe(401);
    const bad = await t.call('adm_nope', { method: 'GET', url: '/api/v1/events' });
    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    for (const tok of [acct.tokens.orders, acct.tokens.manage, acct.tokens.refund, acct.tokens.none]) {
      const res = await t.call(tok, { method: 'GET', url: '/api/v1/events' });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
    }
  });
});

describe('GET /api/v1/events/:slug', () => {
  it('reads one event', async () => {
    const res = await t.call(acct.tokens.view, { method: 'GET', url: '/api/v1/events/newer' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ slug: 'newer', currency: 'jpy', timezone: 'Asia/Tokyo', series: null });
  });

  it('404 for unknown, another account, or outside a limited token', async () => {
    for (const [tok, slug] of [
      [acct.tokens.view, 'nope'],
      [acct.tokens.view, 'elsewhere'],
      [acct.tokens.limited, 'newer'],
    ] as const) {
      const res = await t.call(tok, { method: 'GET', url: `/api/v1/events/${slug}` });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
  });

  it('403 before 404 for a token lacking events.view', async () => {
    expect((await t.call(acct.tokens.orders, { method: 'GET', url: '/api/v1/events/nope' })).statusCode).toBe(403);
  });
});

describe('GET /api/v1/events/:slug/ticket-types', () => {
  it('lists in display order without archived types', async () => {
    const res = await t.call(acct.tokens.view, { method: 'GET', url: '/api/v1/events/older/ticket-types' });
    expect(res.statusCode).toBe(200);
    const types = res.json().ticket_types;
    expect(types.map((x: { slug: string }) => x.slug)).toEqual(['first', 'late']);
    expect(types[0]).toEqual({
      id: expect.any(Number),
      slug: 'first',
      name: 'First',
      price_cents: 2500,
      currency: 'eur',
      capacity: 10,
      max_per_order: 4,
      on_sale: true,
      position: 1,
    });
    expect(types[1].capacity).toBeNull();
  });

  it('[] with 200 for an unknown slug and for an event with no types', async () => {
    for (const slug of ['nope', 'newer', 'elsewhere']) {
      const res = await t.call(acct.tokens.view, { method: 'GET', url: `/api/v1/events/${slug}/ticket-types` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ticket_types: [] });
    }
  });
});

describe('GET /api/v1/series and /account', () => {
  it('lists series by name', async () => {
    const res = await t.call(acct.tokens.view, { method: 'GET', url: '/api/v1/series' });
    expect(res.json()).toEqual({
      series: [
        { slug: 'alpha', name: 'Alpha days' },
        { slug: 'zeta', name: 'Zeta nights' },
      ],
    });
    expect((await t.call(acct.tokens.refund, { method: 'GET', url: '/api/v1/series' })).statusCode).toBe(403);
  });

  it('reads the token account, region only when set', async () => {
    const res = await t.call(acct.tokens.view, { method: 'GET', url: '/api/v1/account' });
    expect(res.json()).toEqual({ slug: acct.slug, name: `Account ${acct.slug}` });
    const o = await t.call(other.tokens.all, { method: 'GET', url: '/api/v1/account' });
    expect(o.json().slug).toBe(other.slug);
    expect((await t.call(acct.tokens.none, { method: 'GET', url: '/api/v1/account' })).statusCode).toBe(403);
  });
});

describe('errors in the documented shape', () => {
  it('unknown API path is JSON 404, wrong method 405', async () => {
    const res = await t.call(null, { method: 'GET', url: '/api/v1/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.json().error.code).toBe('not_found');
    const m = await t.call(acct.tokens.view, { method: 'DELETE', url: '/api/v1/events' });
    expect(m.statusCode).toBe(405);
    expect(m.json().error.code).toBe('method_not_allowed');
    expect(m.headers.allow).toContain('GET');
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const res = await t.call(null, { method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/events', '/api/v1/events/{slug}/ticket-types']));
    const docs = await t.call(null, { method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(docs.statusCode);
  });
});
