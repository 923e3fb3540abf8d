import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { cleanUrl, unstorableFields } from './input-hygiene.ts';

describe('cleanUrl', () => {
  it('keeps clean URLs as they are, byte for byte', () => {
    for (const url of ['/api/v1/events/a', '/e/x/y?q=%C3%A9t%C3%A9&a=%2F%3F', '/x/%E2%82%AC', '/x?a=b+c']) {
      expect(cleanUrl(url)).toBe(url);
    }
  });
  it('turns NUL, bytes that are not UTF-8 and stray percents into ordinary text', () => {
    expect(cleanUrl('/e/%00')).toBe('/e/%EF%BF%BD');
    expect(cleanUrl('/e/a%00b?after=%00')).toBe('/e/a%EF%BF%BDb?after=%EF%BF%BD');
    expect(cleanUrl('/e/%FF')).toBe('/e/%EF%BF%BD');
    // an encoded surrogate half is not UTF-8 either
    expect(decodeURIComponent(cleanUrl('/e/%ED%A0%80'))).not.toMatch(/[\uD800-\uDFFF]/);
    expect(cleanUrl('/e/100%')).toBe('/e/100%25');
    expect(cleanUrl('/e/%zz')).toBe('/e/%25zz');
    // a run holding an encoded slash keeps it encoded
    expect(cleanUrl('/e/%2F%FF')).toBe('/e/%2F%EF%BF%BD');
  });
});

describe('unstorableFields', () => {
  it('names every string and key holding NUL or a lone surrogate, and only those', () => {
    expect(unstorableFields({ name: 'fine', email: 'a\u0000b' })).toEqual({ email: ['must not contain a NUL character'] });
    expect(unstorableFields({ items: [{ note: '\uD800' }, { note: 'ok 😀' }] })).toEqual({
      'items.0.note': ['must not contain a lone UTF-16 surrogate'],
    });
    expect(unstorableFields({ ['k\u0000']: 1 })).toEqual({ 'k\uFFFD': ['name must not contain a NUL character'] });
    expect(unstorableFields('\uDC00')).toEqual({ body: ['must not contain a lone UTF-16 surrogate'] });
    expect(unstorableFields({ a: ['😀', 'é', 1, null, true] })).toEqual({});
  });
});

describe('hostile input through HTTP', () => {
  let t: TestApp;
  let acct: Awaited<ReturnType<typeof seedAccount>>;
  let token: string;

  const fingerprint = async () =>
    (
      await sql<{ f: string }>`select (select string_agg(concat_ws('|', ref, name, email, status), ',' order by ref) from orders)
        || (select count(*)::text from themes) || (select count(*)::text from checkins) as f`.execute(t.ctx.db)
    ).rows[0]!.f;

  beforeAll(async () => {
    t = await createTestApp();
    acct = await seedAccount(
      t.ctx,
      makeAccountFile({
        slug: 'hyg',
        events: [
          makeEvent({
            slug: 'hyg-fest',
            checkin_lists: [{ key: 'main', name: 'Main' }],
            orders: [makeOrder({ ref: 'HYG-0001', name: 'Ada', email: 'ada@example.com' })],
          }),
        ],
      }),
    );
    token = acct.tokens.all;
  });
  afterAll(() => t.close());

  const get = (url: string) => t.call(token, { method: 'GET', url });

  it('NUL, invalid UTF-8 and stray percents in a path parameter are an unknown value: 404', async () => {
    const listId = (await t.ctx.db.selectFrom('checkin_lists').select('id').executeTakeFirstOrThrow()).id;
    const paths = (bad: string) => [
      `/api/v1/events/${bad}`,
      `/api/v1/events/${bad}/ticket-types`,
      `/api/v1/events/${bad}/orders`,
      `/api/v1/events/${bad}/income`,
      `/api/v1/events/${bad}/availability`,
      `/api/v1/orders/${bad}`,
      `/hyg/${bad}/checkin_lists`,
      `/hyg/hyg-fest/checkin_lists/${bad}/checkins`,
      `/${bad}/hyg-fest/checkin_lists`,
    ];
    for (const bad of ['%00', 'ab%00cd', '%FF', '%ED%A0%80', '%C3', '%zz', '100%', 'A'.repeat(1006), 'B'.repeat(8000)]) {
      for (const url of paths(bad)) {
        const res = await get(url);
        if (url.endsWith('/ticket-types')) {
          // spec 4.1: an unknown slug lists no ticket types (no 404)
          expect([res.statusCode, res.json()], url.slice(0, 80)).toEqual([200, { ticket_types: [] }]);
          continue;
        }
        expect([res.statusCode, res.json().error?.code], `${url.slice(0, 80)}: ${res.body.slice(0, 200)}`).toEqual([
          404,
          'not_found',
        ]);
      }
    }
    for (const bad of ['%00', '%FF', '%zz', 'C'.repeat(5000)]) {
      const scan = await t.call(token, { method: 'POST', url: `/hyg/hyg-fest/checkin_lists/${listId}/tickets/${bad}/checkins` });
      expect([scan.statusCode, scan.json().error?.code], scan.body.slice(0, 200)).toEqual([404, 'not_found']);
    }
    // a buyer page answers with its HTML 404 page
    const page = await t.app.inject({ method: 'GET', url: '/e/hyg/%00' });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('NUL and invalid UTF-8 in a query value get the answer any other unknown value gets', async () => {
    for (const bad of ['%00', 'x%00', '%FF', '%ED%A0%80', '%zz']) {
      const plain = async (url: string) => {
        const res = await get(url);
        expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
        return res;
      };
      // report options fall back to their defaults, exactly as for an unknown word
      const income = await plain(`/api/v1/events/hyg-fest/income?range=${bad}`);
      const unknown = await plain(`/api/v1/events/hyg-fest/income?range=nonsense`);
      expect([income.statusCode, income.json()]).toEqual([unknown.statusCode, unknown.json()]);
      const orders = await plain(`/api/v1/events/hyg-fest/orders?after=${bad}`);
      const unknownAfter = await plain(`/api/v1/events/hyg-fest/orders?after=nonsense`);
      expect([orders.statusCode, orders.json()]).toEqual([unknownAfter.statusCode, unknownAfter.json()]);
      const events = await plain(`/api/v1/events?audience=${bad}`);
      const unknownAudience = await plain(`/api/v1/events?audience=nonsense`);
      expect([events.statusCode, events.json()]).toEqual([unknownAudience.statusCode, unknownAudience.json()]);
      await plain(`/api/v1/events/hyg-fest/report?group=${bad}&status=${bad}`);
      await plain(`/hyg/hyg-fest/checkin_lists?after=${bad}`);
    }
  });

  it("NUL or a lone surrogate in a JSON string is the route's validation error, naming the field, and writes nothing", async () => {
    const before = await fingerprint();
    const cases: Array<[string, string, string, number, string, string]> = [
      ['PATCH', '/api/v1/orders/HYG-0001', '{"name":"Ad\\u0000a"}', 422, 'invalid_body', 'name'],
      ['PATCH', '/api/v1/orders/HYG-0001', '{"email":"a\\u0000@example.com"}', 422, 'invalid_body', 'email'],
      ['PATCH', '/api/v1/orders/HYG-0001', '{"name":"\\ud800"}', 422, 'invalid_body', 'name'],
      ['PATCH', '/api/v1/orders/HYG-0001', '{"name":"x\\udc00y"}', 422, 'invalid_body', 'name'],
      [
        'POST',
        '/api/v1/events/hyg-fest/orders',
        '{"items":[{"ticket_type_id":1,"quantity":1}],"name":"\\u0000","email":"b@example.com"}',
        422,
        'invalid_body',
        'name',
      ],
      ['POST', '/hyg/themes', '{"name":"Th\\u0000eme","settings":{}}', 422, 'validation_failed', 'name'],
      [
        'POST',
        '/hyg/themes',
        '{"name":"Theme","settings":{"color\\u0000":"#fff"}}',
        422,
        'validation_failed',
        'settings.color\uFFFD',
      ],
    ];
    for (const [method, url, payload, status, code, field] of cases) {
      const res = await t.call(token, {
        method: method as 'POST',
        url,
        payload,
        headers: { 'content-type': 'application/json' },
      });
      const where = `${method} ${url} ${payload}: ${res.body.slice(0, 300)}`;
      expect(res.statusCode, where).toBe(status);
      expect(res.json().error.code, where).toBe(code);
      expect(Object.keys(res.json().error.fields ?? {}), where).toContain(field);
    }
    expect(await fingerprint()).toBe(before);
  });

  it('a form-encoded body on a JSON route is refused like any other non-JSON body and changes nothing', async () => {
    const before = await fingerprint();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const patch = await t.call(token, {
      method: 'PATCH',
      url: '/api/v1/orders/HYG-0001',
      headers: form,
      payload: 'name=Changed',
    });
    expect(patch.statusCode).toBe(422);
    expect(patch.json().error.code).toBe('invalid_body');
    const create = await t.call(token, {
      method: 'POST',
      url: '/api/v1/events/hyg-fest/orders',
      headers: form,
      payload: 'items=1&email=x%40example.com',
    });
    expect([create.statusCode, create.json().error.code]).toEqual([422, 'invalid_body']);
    const theme = await t.call(token, { method: 'POST', url: '/hyg/themes', headers: form, payload: 'name=T' });
    expect([theme.statusCode, theme.json().error.code]).toEqual([422, 'validation_failed']);
    // the same change as JSON is accepted: the refusal is about the content type alone
    expect(await fingerprint()).toBe(before);
    const json = await t.call(token, {
      method: 'PATCH',
      url: '/api/v1/orders/HYG-0001',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"Ada L."}',
    });
    expect(json.statusCode).toBe(200);
    expect(json.json().name).toBe('Ada L.');
  });

  it('the order check-in still takes its form parameters (spec 4.2)', async () => {
    const list = await t.ctx.db.selectFrom('checkin_lists').select('id').executeTakeFirstOrThrow();
    const order = await t.ctx.db.selectFrom('orders').select('qr_token').where('ref', '=', 'HYG-0001').executeTakeFirstOrThrow();
    const type = await t.ctx.db.selectFrom('ticket_types').select('key').executeTakeFirstOrThrow();
    const res = await t.call(token, {
      method: 'POST',
      url: `/hyg/hyg-fest/checkin_lists/${list.id}/orders/${order.qr_token}/checkins`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `${type.key}=1`,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().checkins).toHaveLength(1);
  });

  it('a NUL in a header value is a 400 in the documented shape', async () => {
    const res = await t.call(token, {
      method: 'POST',
      url: '/api/v1/events/hyg-fest/orders',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k\u0000' },
      payload: '{}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('bad_request');
  });
});
