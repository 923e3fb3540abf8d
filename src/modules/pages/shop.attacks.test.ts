import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { findEventBySlug } from '../events/events.repo.ts';
import { placeOrder } from '../orders/place-order.service.ts';

// What a buyer can type into the event page to take more than the organiser gives: a code
// counted several times, a donation that is a probe of the arithmetic, not a gift.
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let ids: Record<string, number>;
const base = () => `/e/${a.slug}/hall`;

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z', config: { rateLimitPerMin: 0 } });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'hall',
          currency: 'eur',
          ticket_types: [{ key: 'ga', name: 'General', price: 8900, capacity: 100, max_per_order: 6 }],
          donations: [{ key: 'fund', name: 'Fund' }],
          discount_codes: [
            { code: 'ONEUSE', percent_off: 20, max_uses: 1 },
            { code: 'TWOUSE', amount_off: 500, max_uses: 2 },
            { code: 'OPEN', percent_off: 10 },
          ],
        }),
      ],
    }),
  );
  const tt = await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).execute();
  const ds = await t.ctx.db.selectFrom('donations').select(['id', 'key']).execute();
  ids = Object.fromEntries([...tt, ...ds].map((r) => [r.key, r.id]));
});
afterAll(() => t.close());

const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

async function submit(form: Record<string, string>) {
  const page = await t.app.inject({ method: 'GET', url: base() });
  return t.app.inject({
    method: 'POST',
    url: `${base()}/checkout`,
    payload: new URLSearchParams({ csrf: csrfOf(page.body), name: 'B', email: 'b@example.org', ...form }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    remoteAddress: '10.1.1.1',
  });
}

const uses = async (code: string) =>
  Number((await t.ctx.db.selectFrom('discount_codes').select('uses').where('code', '=', code).executeTakeFirstOrThrow()).uses);

async function orderOf(location: string) {
  const secret = location.split('/').pop()!;
  const row = await t.ctx.db.selectFrom('orders').select('ref').where('access_secret', '=', secret).executeTakeFirstOrThrow();
  return (await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/orders/${row.ref}` })).json();
}

describe('discount codes typed into the event page', () => {
  it('counts a code once per order however often and in whatever case it is typed', async () => {
    const res = await submit({ [`qty_${ids.ga}`]: '1', code: 'ONEUSE oneuse Oneuse oNeuse onEuse' });
    expect(res.statusCode).toBe(303);
    const order = await orderOf(res.headers.location!);
    expect(order.discounts).toHaveLength(1);
    expect(order.discounts[0]).toMatchObject({ code: 'ONEUSE', amount_cents: 1780 });
    expect(order.total_cents).toBe(8900 - 1780);
    expect(await uses('ONEUSE')).toBe(1);
  });

  it('says the code is used up once max_uses is reached, and writes nothing', async () => {
    const before = await t.ctx.db
      .selectFrom('orders')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await submit({ [`qty_${ids.ga}`]: '1', code: 'oneuse' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('has been used up');
    const after = await t.ctx.db
      .selectFrom('orders')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect(await uses('ONEUSE')).toBe(1);
  });

  it('mixes codes: each counts once, separators and case do not matter', async () => {
    const res = await submit({ [`qty_${ids.ga}`]: '2', code: 'twouse,TWOUSE open\tOpEn' });
    expect(res.statusCode).toBe(303);
    const order = await orderOf(res.headers.location!);
    expect(order.discounts.map((d: { code: string }) => d.code)).toEqual(['TWOUSE', 'OPEN']);
    expect(await uses('TWOUSE')).toBe(1);
  });

  it('holds max_uses when many orders race for the last use', async () => {
    const accountId = (await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', a.slug).executeTakeFirstOrThrow())
      .id;
    const event = (await findEventBySlug(t.ctx.db, accountId, 'hall'))!;
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        placeOrder(t.ctx, {
          accountId,
          event,
          channel: 'web',
          items: [{ ticket_type_id: ids.ga!, quantity: 1 }],
          email: `r${i}@example.org`,
          // each racer names the code twice, in two cases: it still takes one use
          codes: ['twoUSE', 'TWOUSE'],
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as { code: string }).code).toBe('invalid_code');
    expect(await uses('TWOUSE')).toBe(2);
  });
});

describe('donations', () => {
  it('refuses more than one million beside the field, and writes nothing', async () => {
    const before = await t.ctx.db
      .selectFrom('orders')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await submit({ [`donation_${ids.fund}`]: '999999999.99' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toMatch(/Enter at most €1,000,000\.00|Enter at most 1,000,000\.00/);
    const after = await t.ctx.db
      .selectFrom('orders')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('takes exactly one million', async () => {
    const res = await submit({ [`donation_${ids.fund}`]: '1000000' });
    expect(res.statusCode).toBe(303);
    expect((await orderOf(res.headers.location!)).total_cents).toBe(100_000_000);
  });

  it('refuses it in the order pipeline too (invalid_items), whoever calls it', async () => {
    const accountId = (await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', a.slug).executeTakeFirstOrThrow())
      .id;
    const event = (await findEventBySlug(t.ctx.db, accountId, 'hall'))!;
    for (const amount of [100_000_001, 2 ** 53 - 1, 2 ** 53 + 2]) {
      await expect(
        placeOrder(t.ctx, {
          accountId,
          event,
          channel: 'web',
          items: [],
          donations: [{ donation_id: ids.fund!, amount_cents: amount }],
          email: 'd@example.org',
        }),
      ).rejects.toMatchObject({ code: 'invalid_items' });
    }
  });
});
