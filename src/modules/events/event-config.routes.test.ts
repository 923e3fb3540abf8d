import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
const json = { 'content-type': 'application/json' };

const festival = () =>
  makeEvent({
    slug: 'fest',
    name: 'Summer Fest',
    currency: 'eur',
    currencies: ['eur', 'gbp'],
    fx_rates: { gbp: 1.17 },
    timezone: 'Europe/Berlin',
    starts_at: '2027-07-01T16:00:00Z',
    ends_at: '2027-07-03T22:00:00Z',
    description: '**Three days** of music',
    venue: { name: 'Tempelhof', address: 'Platz der Luftbrücke, Berlin' },
    locale: 'de',
    ticket_types: [
      {
        key: 'ga',
        name: 'General',
        price: 5000,
        prices: { gbp: 4300 },
        capacity: 10,
        tax_rate_bp: 700,
        group_discounts: [{ min_quantity: 4, percent_off: 10 }],
        includes: [{ good: 'wristband' }],
      },
      { key: 'vip', name: 'VIP', price: 15000, capacity: 2, max_per_order: 2, audience: 'friends' },
      { key: 'open', name: 'Open', price: 1000 },
    ],
    goods: [{ key: 'wristband', name: 'Wristband', price: 0, capacity: 100 }],
    sessions: [{ key: 'fri', name: 'Friday', starts_at: '2027-07-02T16:00:00Z', capacity: 50, ticket_types: ['ga'] }],
    donations: [{ key: 'trees', name: 'Plant a tree' }],
    audiences: [{ key: 'friends', name: 'Friends' }],
    portals: [{ key: 'uni', name: 'University', audience: 'friends' }],
    discount_codes: [{ code: 'EARLY', percent_off: 15, max_uses: 100, ticket_types: ['ga'] }],
    checkin_lists: [{ key: 'main', name: 'Main gate' }],
    saved_reports: [{ name: 'By day', query: 'group=day' }],
    orders: [
      makeOrder({ ref: 'FEST-0001', lines: [{ kind: 'tickets', ref: 'ga', quantity: 3, unit_price: 5000 }] }),
      makeOrder({ ref: 'FEST-0002', lines: [{ kind: 'tickets', ref: 'open', quantity: 2, unit_price: 1000 }] }),
      makeOrder({
        ref: 'FEST-0003',
        lines: [
          { kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 2500 },
          { kind: 'sessions', ref: 'fri', quantity: 1, unit_price: 0 },
        ],
      }),
    ],
  });

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({ slug: 'mgmt', events: [festival(), makeEvent({ slug: 'other' })], limitedTo: ['other'] }),
  );
});
afterAll(() => t.close());

const getConfig = (slug: string, token = acct.tokens.all) =>
  t.call(token, { method: 'GET', url: `/api/v1/events/${slug}/config` });
const putConfig = (slug: string, doc: unknown, headers: Record<string, string> = {}, token = acct.tokens.all) =>
  t.call(token, {
    method: 'PUT',
    url: `/api/v1/events/${slug}/config`,
    headers: { ...json, ...headers },
    payload: JSON.stringify(doc),
  });
const read = async (url: string) => (await t.call(acct.tokens.all, { method: 'GET', url: `/api/v1${url}` })).json();
const fingerprint = async () =>
  (
    await sql<{ f: string }>`select concat_ws('/',
      (select string_agg(concat_ws(':', key, name, price_cents, capacity, archived, on_sale), ',' order by id) from ticket_types),
      (select string_agg(concat_ws(':', capacity, taken), ',' order by id) from inventory),
      (select string_agg(concat_ws(':', slug, name, currency), ',' order by id) from events),
      (select count(*) from discount_codes), (select count(*) from goods), (select count(*) from sessions)) as f`.execute(
      t.ctx.db,
    )
  ).rows[0]!.f;

describe('GET /api/v1/events/{slug}/config', () => {
  it('answers the account-file event object with defaults filled in, no orders, and an ETag', async () => {
    const res = await getConfig('fest');
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
    const doc = res.json();
    expect(doc.orders).toBeUndefined();
    expect(doc).toMatchObject({
      slug: 'fest',
      name: 'Summer Fest',
      currency: 'eur',
      currencies: ['eur', 'gbp'],
      fx_rates: { gbp: 1.17 },
      tax_mode: 'inclusive',
      locale: 'de',
      description: '**Three days** of music',
      venue: { name: 'Tempelhof', address: 'Platz der Luftbrücke, Berlin' },
    });
    expect(doc.ticket_types[2]).toEqual({
      key: 'open',
      name: 'Open',
      price: 1000,
      prices: {},
      capacity: null,
      max_per_order: null,
      position: 2,
      on_sale: true,
      archived: false,
      requires_session: false,
      tax_rate_bp: 0,
      group_discounts: [],
      includes: [],
    });
    expect(doc.ticket_types[0].includes).toEqual([{ good: 'wristband', quantity: 1 }]);
    expect(doc.discount_codes).toEqual([{ code: 'EARLY', percent_off: 15, max_uses: 100, ticket_types: ['ga'] }]);
    expect(doc.sessions[0]).toMatchObject({ key: 'fri', capacity: 50, ticket_types: ['ga'] });
    // the event read shape carries the new details too (contract section 4)
    expect(await read('/events/fest')).toMatchObject({
      description: '**Three days** of music',
      venue: { name: 'Tempelhof', address: 'Platz der Luftbrücke, Berlin', map_url: null },
      locale: 'de',
    });
  });

  it('needs events.manage; an event outside a limited token is 404 like an unknown one', async () => {
    expect((await getConfig('fest', acct.tokens.view)).statusCode).toBe(403);
    expect((await getConfig('fest', acct.tokens.limited)).statusCode).toBe(404);
    expect((await getConfig('nope')).json().error.code).toBe('not_found');
    expect((await getConfig('other', acct.tokens.limited)).statusCode).toBe(200);
  });
});

describe('PUT /api/v1/events/{slug}/config', () => {
  it('round trip: the document PUT to a new slug makes an identical event (201), and PUT back unchanged is a no-op', async () => {
    const src = await getConfig('fest');
    const created = await putConfig('fest-copy', { ...(src.json() as object), slug: 'fest-copy' });
    expect(created.statusCode, created.body).toBe(201);
    const copy = await getConfig('fest-copy');
    expect({ ...copy.json(), slug: 'fest' }).toEqual(src.json());
    // the machine API reads of both agree, ids and slugs aside
    const strip = (e: Record<string, unknown>) => ({ ...e, slug: '', url: '' });
    expect(strip(await read('/events/fest-copy'))).toEqual(strip(await read('/events/fest')));
    const types = async (slug: string) =>
      (await read(`/events/${slug}/ticket-types`)).ticket_types.map((x: Record<string, unknown>) => ({ ...x, id: 0 }));
    expect(await types('fest-copy')).toEqual(await types('fest'));
    // applying what GET answers changes nothing, not even the ETag
    const same = await putConfig('fest', src.json(), { 'if-match': src.headers.etag as string });
    expect(same.statusCode).toBe(200);
    expect(same.headers.etag).toBe(src.headers.etag);
  });

  it('applies a difference matched by key: renames, new items, removals deleted or archived', async () => {
    const before = (await getConfig('fest')).json();
    const doc = structuredClone(before);
    doc.name = 'Summer Fest 2027';
    doc.ticket_types[0].price = 5500;
    doc.ticket_types.push({ key: 'kids', name: 'Kids', price: 500, capacity: 20 });
    // 'open' was sold (FEST-0002): archived; 'vip' was not: deleted
    doc.ticket_types = doc.ticket_types.filter((x: { key: string }) => x.key !== 'open' && x.key !== 'vip');
    doc.discount_codes.push({ code: 'KIDS', amount_off: 200 });
    doc.portals = [];
    const res = await putConfig('fest', doc);
    expect(res.statusCode, res.body).toBe(200);
    const after = res.json();
    expect(after.name).toBe('Summer Fest 2027');
    expect(after.ticket_types.map((x: { key: string; archived: boolean }) => [x.key, x.archived])).toEqual([
      ['ga', false],
      ['kids', false],
      ['open', true],
    ]);
    expect((await read('/events/fest')).name).toBe('Summer Fest 2027');
    const listed = (await read('/events/fest/ticket-types')).ticket_types;
    expect(listed.map((x: { slug: string; price_cents: number }) => [x.slug, x.price_cents])).toEqual([
      ['ga', 5500],
      ['kids', 500],
    ]);
    expect(
      await t.ctx.db
        .selectFrom('ticket_types')
        .select('id')
        .where('key', '=', 'vip')
        .where('event_id', '=', sql<number>`(select id from events where slug = 'fest')`)
        .execute(),
    ).toEqual([]);
    expect(after.discount_codes.map((c: { code: string }) => c.code)).toEqual(['EARLY', 'KIDS']);
    expect(after.portals).toEqual([]);
    // a key given again brings the archived item back
    const revived = await putConfig('fest', {
      ...after,
      ticket_types: after.ticket_types.map((x: { key: string }) => (x.key === 'open' ? { ...x, archived: false } : x)),
    });
    expect(revived.statusCode, revived.body).toBe(200);
    expect(revived.json().ticket_types.find((x: { key: string }) => x.key === 'open').archived).toBe(false);
  });

  it('a stale If-Match is 412 precondition_failed and changes nothing', async () => {
    const first = await getConfig('fest');
    const doc = { ...first.json(), name: 'First writer' };
    expect((await putConfig('fest', doc, { 'if-match': first.headers.etag as string })).statusCode).toBe(200);
    const before = await fingerprint();
    const second = await putConfig(
      'fest',
      { ...(first.json() as object), name: 'Second writer' },
      { 'if-match': first.headers.etag as string },
    );
    expect(second.statusCode).toBe(412);
    expect(second.json().error.code).toBe('precondition_failed');
    expect(await fingerprint()).toBe(before);
    expect((await read('/events/fest')).name).toBe('First writer');
  });

  it('an invalid document is 422 validation_failed with fields keyed by JSON path, and changes nothing', async () => {
    const doc = (await getConfig('fest')).json();
    const before = await fingerprint();
    const cases: Array<[unknown, string]> = [
      [{ ...doc, ticket_types: [{ ...doc.ticket_types[0], price: -1 }] }, '$.ticket_types[0].price'],
      [{ ...doc, ticket_types: [{ ...doc.ticket_types[0], audience: 'nobody' }] }, '$.ticket_types[0].audience'],
      [{ ...doc, timezone: 'Mars/Olympus' }, '$.timezone'],
      [{ ...doc, slug: 'elsewhere' }, '$.slug'],
      [{ ...doc, surprise: 1 }, '$.surprise'],
      [{ ...doc, orders: [] }, '$.orders'],
    ];
    for (const [body, path] of cases) {
      const res = await putConfig('fest', body);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().error.code).toBe('validation_failed');
      expect(Object.keys(res.json().error.fields), res.body).toContain(path);
    }
    expect((await putConfig('fest', [1, 2])).statusCode).toBe(422);
    expect(await fingerprint()).toBe(before);
  });

  it('changes existing orders forbid are 409 conflict naming the path; nothing of the document is applied', async () => {
    const doc = (await getConfig('fest')).json();
    const before = await fingerprint();
    const ga = doc.ticket_types.findIndex((x: { key: string }) => x.key === 'ga');
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        {
          ...doc,
          name: 'Not applied',
          ticket_types: doc.ticket_types.map((x: { key: string }, i: number) => (i === ga ? { ...x, capacity: 2 } : x)),
        },
        `$.ticket_types[${ga}].capacity`,
      ],
      [{ ...doc, name: 'Not applied', currency: 'gbp', currencies: ['gbp', 'eur'], fx_rates: { eur: 0.85 } }, '$.currency'],
      [{ ...doc, name: 'Not applied', sessions: [] }, '$.sessions'],
    ];
    // the session 'fri' was sold (FEST-0003)
    const mid = await fingerprint();
    for (const [body, path] of cases) {
      const res = await putConfig('fest', body);
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'conflict', path });
    }
    expect(await fingerprint()).toBe(mid);
    expect(before).toBe(mid);
    expect((await read('/events/fest')).name).not.toBe('Not applied');
  });

  it('gives an unlimited item a capacity: what live orders hold is taken, and sales stop there', async () => {
    const doc = (await getConfig('fest')).json();
    const open = doc.ticket_types.findIndex((x: { key: string }) => x.key === 'open');
    // FEST-0002 holds 2 of 'open'
    const res = await putConfig('fest', {
      ...doc,
      ticket_types: doc.ticket_types.map((x: object, i: number) => (i === open ? { ...x, capacity: 3 } : x)),
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = (await read('/events/fest/ticket-types')).ticket_types.find((x: { slug: string }) => x.slug === 'open').id;
    const buy = () =>
      t.call(acct.tokens.all, {
        method: 'POST',
        url: '/api/v1/events/fest/orders',
        headers: json,
        payload: JSON.stringify({ items: [{ ticket_type_id: id, quantity: 1 }], email: 'b@example.com' }),
      });
    expect((await buy()).statusCode).toBe(201);
    const last = await buy();
    expect(last.statusCode).toBe(409);
    expect(last.json().error.code).toBe('sold_out');
    // canceling FEST-0002 gives its 2 back to the new row
    await t.call(acct.tokens.all, { method: 'POST', url: '/api/v1/orders/FEST-0002/refund', headers: json, payload: '{}' });
    const inv = await sql<{
      taken: number;
    }>`select i.taken from inventory i join ticket_types tt on tt.inventory_id = i.id where tt.key = 'open' and tt.event_id = (select id from events where slug = 'fest')`.execute(
      t.ctx.db,
    );
    expect(inv.rows[0]!.taken).toBe(1);
  });
});

describe('POST /api/v1/events/{slug}/duplicate', () => {
  it('copies the configuration without orders, moving every date by the same offset', async () => {
    const res = await t.call(acct.tokens.all, {
      method: 'POST',
      url: '/api/v1/events/fest/duplicate',
      headers: json,
      payload: JSON.stringify({ slug: 'fest-2028', name: 'Summer Fest 2028', starts_at: '2028-07-01T16:00:00Z' }),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      slug: 'fest-2028',
      name: 'Summer Fest 2028',
      starts_at: '2028-07-01T16:00:00Z',
      ends_at: '2028-07-03T22:00:00Z',
    });
    const doc = (await getConfig('fest-2028')).json();
    const src = (await getConfig('fest')).json();
    // 2028 is a leap year: the offset is 366 days, the session moves with it
    expect(doc.sessions[0].starts_at).toBe('2028-07-02T16:00:00Z');
    expect(doc.ticket_types.map((x: { key: string }) => x.key)).toEqual(
      src.ticket_types.filter((x: { archived: boolean }) => !x.archived).map((x: { key: string }) => x.key),
    );
    expect((await read('/events/fest-2028/orders')).orders).toEqual([]);
    const again = await t.call(acct.tokens.all, {
      method: 'POST',
      url: '/api/v1/events/fest/duplicate',
      headers: json,
      payload: JSON.stringify({ slug: 'fest-2028' }),
    });
    expect([again.statusCode, again.json().error.code]).toEqual([409, 'conflict']);
    const limited = await t.call(acct.tokens.limited, {
      method: 'POST',
      url: '/api/v1/events/other/duplicate',
      headers: json,
      payload: JSON.stringify({ slug: 'other-2' }),
    });
    expect(limited.statusCode).toBe(403);
  });
});

describe('PATCH /api/v1/events/{slug}/ticket-types/{id}', () => {
  it('merges the change, visible at once in the machine API; the document rules apply', async () => {
    const types = (await read('/events/fest/ticket-types')).ticket_types;
    const ga = types.find((x: { slug: string }) => x.slug === 'ga');
    const patch = (id: number, body: unknown, token = acct.tokens.all) =>
      t.call(token, {
        method: 'PATCH',
        url: `/api/v1/events/fest/ticket-types/${id}`,
        headers: json,
        payload: JSON.stringify(body),
      });
    const res = await patch(ga.id, { price_cents: 6000, name: 'General (late)' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: ga.id, slug: 'ga', name: 'General (late)', price_cents: 6000, capacity: ga.capacity });
    expect(
      (await read('/events/fest/ticket-types')).ticket_types.find((x: { slug: string }) => x.slug === 'ga').price_cents,
    ).toBe(6000);
    const low = await patch(ga.id, { capacity: 1 });
    expect([low.statusCode, low.json().error.code]).toEqual([409, 'conflict']);
    expect((await patch(ga.id, {})).statusCode).toBe(422);
    expect((await patch(ga.id, { price_cents: -5 })).json().error.code).toBe('validation_failed');
    expect((await patch(999999, { on_sale: false })).statusCode).toBe(404);
    expect((await patch(ga.id, { on_sale: false }, acct.tokens.view)).statusCode).toBe(403);
  });
});
