import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { findEventBySlug } from '../events/events.repo.ts';
import { placeOrder } from '../orders/place-order.service.ts';

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let gaId: number;
let accountId: number;
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'codes',
      events: [
        makeEvent({
          slug: 'codes-fest',
          ticket_types: [{ key: 'ga', name: 'General', price: 2000, capacity: 100 }],
          discount_codes: [{ code: 'Friends', percent_off: 10 }],
        }),
        makeEvent({ slug: 'codes-other' }),
      ],
      limitedTo: ['codes-other'],
    }),
  );
  gaId = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'ga').executeTakeFirstOrThrow()).id;
  accountId = (await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', 'codes').executeTakeFirstOrThrow()).id;
});
afterAll(() => t.close());

const api = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, token = acct.tokens.all) =>
  t.call(token, {
    method,
    url: `/api/v1/events/codes-fest/discount-codes${url}`,
    ...(body === undefined ? {} : { headers: json, payload: JSON.stringify(body) }),
  });
// the machine API takes no codes (spec 4.1): checkout is the shop's pipeline, called directly
const order = async (code: string): Promise<{ ok: true; discount: number } | { ok: false; code: string }> => {
  const event = (await findEventBySlug(t.ctx.db, accountId, 'codes-fest'))!;
  try {
    const placed = await placeOrder(t.ctx, {
      accountId,
      event,
      channel: 'web',
      items: [{ ticket_type_id: gaId, quantity: 1 }],
      email: 'c@example.org',
      codes: [code],
    });
    const row = await t.ctx.db
      .selectFrom('orders')
      .select('discount_cents')
      .where('id', '=', placed.orderId)
      .executeTakeFirstOrThrow();
    return { ok: true, discount: Number(row.discount_cents) };
  } catch (err) {
    return { ok: false, code: (err as { code: string }).code };
  }
};

describe('discount codes through the management API', () => {
  it('creates one code, 409 for a code that exists in any case, 422 for bad terms', async () => {
    const res = await api('POST', '', { code: 'EARLY', amount_off: 500, max_uses: 2, ticket_types: [gaId] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      code: 'EARLY',
      percent_off: null,
      amount_off: 500,
      max_uses: 2,
      ticket_types: [gaId],
      used: 0,
      disabled: false,
    });
    expect((await api('POST', '', { code: 'early', percent_off: 5 })).json().error.code).toBe('conflict');
    expect((await api('POST', '', { code: 'FRIENDS', percent_off: 5 })).statusCode).toBe(409);
    for (const bad of [
      { code: 'X1', percent_off: 5, amount_off: 5 },
      { code: 'X2' },
      { code: 'X3', percent_off: 101 },
      { code: 'bad code', percent_off: 5 },
      { code: 'X4', percent_off: 5, ticket_types: [999999] },
      { count: 10_001, percent_off: 5 },
    ]) {
      const r = await api('POST', '', bad);
      expect([r.statusCode, r.json().error.code], JSON.stringify(bad)).toEqual([422, 'validation_failed']);
    }
  });

  it('generates 10,000 unique codes in one request, paged in code order', async () => {
    const res = await api('POST', '', { count: 10_000, prefix: 'VIP-', percent_off: 20 });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
    const codes = res.json().discount_codes.map((c: { code: string }) => c.code);
    expect(codes).toHaveLength(10_000);
    expect(new Set(codes).size).toBe(10_000);
    for (const c of codes) expect(c).toMatch(/^VIP-[A-HJKMNP-Z2-9]{8}$/);
    const seen: string[] = [];
    let after: string | null = '';
    while (after !== null) {
      const page = await api('GET', `?limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      expect(page.statusCode).toBe(200);
      seen.push(...page.json().discount_codes.map((c: { code: string }) => c.code));
      after = page.json().next_after;
    }
    expect(seen).toHaveLength(10_002);
    expect(seen).toEqual([...seen].sort((a, b) => (a.toUpperCase() < b.toUpperCase() ? -1 : 1)));
    // a generated code works at checkout
    expect(await order(codes[0])).toEqual({ ok: true, discount: 400 });
  });

  it('deletes an unused code; a redeemed one is disabled and refused at checkout like an unknown code', async () => {
    expect(await order('EARLY')).toEqual({ ok: true, discount: 500 });
    expect((await api('DELETE', '/early')).statusCode).toBe(204);
    const listed = (await api('GET', '?limit=200')).json().discount_codes.find((c: { code: string }) => c.code === 'EARLY');
    expect(listed).toMatchObject({ used: 1, disabled: true });
    const refused = await order('EARLY');
    expect(refused).toEqual({ ok: false, code: 'invalid_code' });
    expect(await order('NO-SUCH-CODE')).toEqual(refused);
    await api('POST', '', { code: 'UNUSED', percent_off: 5 });
    expect((await api('DELETE', '/UNUSED')).statusCode).toBe(204);
    expect((await api('DELETE', '/UNUSED')).statusCode).toBe(404);
    expect((await api('GET', '?limit=200')).json().discount_codes.some((c: { code: string }) => c.code === 'UNUSED')).toBe(false);
  });

  it('needs events.manage; an event outside a limited token is 404', async () => {
    expect((await api('GET', '', undefined, acct.tokens.view)).statusCode).toBe(403);
    expect((await api('GET', '', undefined, acct.tokens.limited)).statusCode).toBe(404);
    expect((await api('POST', '', { code: 'LIM', percent_off: 5 }, acct.tokens.limited)).statusCode).toBe(404);
  });
});
