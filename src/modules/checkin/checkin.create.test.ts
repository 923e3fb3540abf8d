import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
const group = (ref: string, ga: number, vip: number) =>
  makeOrder({
    ref,
    lines: [
      { kind: 'tickets', ref: 'ga', quantity: ga, unit_price: 2500 },
      ...(vip ? [{ kind: 'tickets' as const, ref: 'vip', quantity: vip, unit_price: 5000, attendees: ['Vera'] }] : []),
    ],
    payments: [{ rail: 'sandbox', amount: 2500 * ga + 5000 * vip, at: '2026-11-01T10:05:00Z', fee: 0 }],
  });

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
            { key: 'race', name: 'Race door' },
          ],
          orders: [
            makeOrder({
              ref: 'TKT1',
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 2500, attendees: ['Ann'] }],
            }),
            makeOrder({ ref: 'TKT2' }),
            makeOrder({ ref: 'VOID', status: 'refunded', refunds: [{ amount: 2500, at: '2026-11-02T10:00:00Z' }] }),
            group('GRP1', 3, 1),
            group('GRP2', 2, 1),
            group('GRP3', 2, 0),
            makeOrder({ ref: 'PEND', status: 'pending', paid_at: undefined, payments: [] }),
            ...Array.from({ length: 5 }, (_, i) => makeOrder({ ref: `RACE${i}` })),
          ],
        }),
        makeEvent({ slug: 'other-gig', ticket_types: types, orders: [makeOrder({ ref: 'OTHR' })] }),
      ],
    }),
  );
  other = await seedAccount(
    t.ctx,
    makeAccountFile({ events: [makeEvent({ slug: 'gig', orders: [makeOrder({ ref: 'FRGN' })] })] }),
  );
  for (const l of await t.ctx.db
    .selectFrom('checkin_lists')
    .select(['id', 'key'])
    .where('account_id', '=', await accountId())
    .execute()) {
    ids[l.key] = Number(l.id);
  }
});
afterAll(() => t.close());

async function accountId(): Promise<number> {
  return Number((await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', acct.slug).executeTakeFirstOrThrow()).id);
}
const qr = async (ref: string) =>
  (await t.ctx.db.selectFrom('tickets').select('qr_token').where('ref', '=', ref).executeTakeFirstOrThrow()).qr_token;
const orderQr = async (ref: string) =>
  (await t.ctx.db.selectFrom('orders').select('qr_token').where('ref', '=', ref).executeTakeFirstOrThrow()).qr_token;
const count = async (list: string) =>
  (await t.ctx.db.selectFrom('checkin_lists').select('checked_in_count').where('id', '=', ids[list]!).executeTakeFirstOrThrow())
    .checked_in_count;
const rows = async (list: string) =>
  Number(
    (
      await t.ctx.db
        .selectFrom('checkins')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('checkin_list_id', '=', ids[list]!)
        .executeTakeFirstOrThrow()
    ).n,
  );
const ticketUrl = (list: string, token: string) => `/${acct.slug}/gig/checkin_lists/${ids[list]}/tickets/${token}/checkins`;
const orderUrl = (list: string, token: string) => `/${acct.slug}/gig/checkin_lists/${ids[list]}/orders/${token}/checkins`;

describe('POST .../tickets/{qr}/checkins', () => {
  it('checks a ticket in once; the second scan is 409 with the earlier time', async () => {
    t.clock.set('2026-11-22T19:00:00Z');
    const res = await t.call(acct.tokens.none, { method: 'POST', url: ticketUrl('main', await qr('TKT1-1')) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      ticket_id: expect.any(Number),
      ticket_reference: 'TKT1-1',
      ticket_name: 'Ann',
      seat: null,
      created_at: '2026-11-22T19:00:00Z',
    });
    expect(await count('main')).toBe(1);
    t.clock.set('2026-11-22T19:05:00Z');
    const again = await t.call(acct.tokens.none, { method: 'POST', url: ticketUrl('main', await qr('TKT1-1')) });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'already_checked_in', created_at: '2026-11-22T19:00:00Z' });
    expect(await count('main')).toBe(1);

    const list = await t.call(acct.tokens.none, { method: 'GET', url: `/${acct.slug}/gig/checkin_lists/${ids.main}/checkins` });
    expect(list.json().checkins[0]).toEqual({
      id: res.json().id,
      ticket: { id: res.json().ticket_id, reference: 'TKT1-1', name: 'Ann' },
      created_at: '2026-11-22T19:00:00Z',
      qr_code_scanned: true,
      online: true,
    });
  });

  it('records qr_code_scanned and online from JSON and form bodies', async () => {
    t.clock.set('2026-11-22T19:10:00Z');
    const json = await t.call(acct.tokens.all, {
      method: 'POST',
      url: ticketUrl('main', await qr('TKT2-1')),
      payload: { qr_code_scanned: false, online: false },
    });
    expect(json.statusCode).toBe(200);
    t.clock.set('2026-11-22T19:20:00Z');
    const form = await t.call(acct.tokens.all, {
      method: 'POST',
      url: ticketUrl('main', await qr('RACE0-1')),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'qr_code_scanned=false&online=true',
    });
    expect(form.statusCode).toBe(200);
    const list = (
      await t.call(acct.tokens.all, { method: 'GET', url: `/${acct.slug}/gig/checkin_lists/${ids.main}/checkins` })
    ).json();
    // most recent first
    expect(list.checkins.map((c: { ticket: { reference: string } }) => c.ticket.reference)).toEqual([
      'RACE0-1',
      'TKT2-1',
      'TKT1-1',
    ]);
    expect(list.checkins[0]).toMatchObject({ qr_code_scanned: false, online: true, ticket: { name: '' } });
    expect(list.checkins[1]).toMatchObject({ qr_code_scanned: false, online: false });
    expect(list.meta).toEqual({ lookup_mode: 'test', pagination: { page: 1, items: 50, pages: 1, count: 3 } });
    const page2 = (
      await t.call(acct.tokens.all, {
        method: 'GET',
        url: `/${acct.slug}/gig/checkin_lists/${ids.main}/checkins?per_page=2&page=2`,
      })
    ).json();
    expect(page2.checkins.map((c: { ticket: { reference: string } }) => c.ticket.reference)).toEqual(['TKT1-1']);
    expect(page2.meta.pagination).toEqual({ page: 2, items: 2, pages: 2, count: 3 });
  });

  it('an empty JSON body means the defaults; a malformed one is 400 bad_request', async () => {
    const res = await t.call(acct.tokens.all, {
      method: 'POST',
      url: ticketUrl('vipdoor', await qr('GRP2-3')),
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(res.statusCode).toBe(200);
    await t.ctx.db.deleteFrom('checkins').where('id', '=', res.json().id).execute();
    await t.ctx.db
      .updateTable('checkin_lists')
      .set((eb) => ({ checked_in_count: eb('checked_in_count', '-', 1) }))
      .where('id', '=', ids.vipdoor!)
      .execute();
    const bad = await t.call(acct.tokens.all, {
      method: 'POST',
      url: ticketUrl('vipdoor', await qr('GRP2-3')),
      headers: { 'content-type': 'application/json' },
      payload: '{"qr_code_scanned":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('bad_request');
    const wrongType = await t.call(acct.tokens.all, {
      method: 'POST',
      url: ticketUrl('vipdoor', await qr('GRP2-3')),
      payload: { online: [1] },
    });
    expect(wrongType.statusCode).toBe(400);
  });

  it('422 not_checkable for a voided ticket, a type not on the list, another event; 404 unknown token', async () => {
    const voided = await t.call(acct.tokens.all, { method: 'POST', url: ticketUrl('main', await qr('VOID-1')) });
    expect(voided.statusCode).toBe(422);
    expect(voided.json().error.code).toBe('not_checkable');
    // a pending order has no tickets yet; its order QR is not checkable either
    const pending = await t.call(acct.tokens.all, { method: 'POST', url: orderUrl('main', await orderQr('PEND')) });
    expect(pending.statusCode).toBe(422);
    expect(pending.json().error.code).toBe('not_checkable');
    const notOnList = await t.call(acct.tokens.all, { method: 'POST', url: ticketUrl('vipdoor', await qr('RACE1-1')) });
    expect(notOnList.statusCode).toBe(422);
    expect(notOnList.json().error).toMatchObject({ code: 'not_checkable', message: expect.stringMatching(/not on this/) });
    const otherEvent = await t.call(acct.tokens.all, { method: 'POST', url: ticketUrl('main', await qr('OTHR-1')) });
    expect(otherEvent.json().error.code).toBe('not_checkable');
    const unknown = await t.call(acct.tokens.all, { method: 'POST', url: ticketUrl('main', 'no-such-token') });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
    // tokens start with the time they were made: a forger who knows a real token's time, or the
    // real token itself, still has to guess its 144 random bits
    const real = await qr('RACE1-1');
    const flip = (c: string) => (c === 'A' ? 'B' : 'A');
    for (const forged of [
      real.slice(0, 8) + 'A'.repeat(24),
      real.slice(0, 31) + flip(real.slice(31)),
      real.slice(0, 8) + flip(real[8]!) + real.slice(9),
    ]) {
      const res = await t.call(acct.tokens.all, { method: 'POST', url: ticketUrl('main', forged) });
      expect(res.statusCode, forged).toBe(404);
    }
    // a ticket of another account is unknown here
    const foreign = (
      await t.ctx.db
        .selectFrom('tickets as t')
        .innerJoin('accounts as a', 'a.id', 't.account_id')
        .select('t.qr_token')
        .where('a.slug', '=', other.slug)
        .executeTakeFirst()
    )?.qr_token;
    expect(foreign).toBeTruthy();
    expect((await t.call(acct.tokens.all, { method: 'POST', url: ticketUrl('main', foreign!) })).statusCode).toBe(404);
    expect((await t.call(null, { method: 'POST', url: ticketUrl('main', await qr('RACE1-1')) })).statusCode).toBe(401);
    expect((await t.call(other.tokens.all, { method: 'POST', url: ticketUrl('main', await qr('RACE1-1')) })).statusCode).toBe(
      404,
    );
    expect(await count('vipdoor')).toBe(0);
  });

  it('two doors scanning one ticket at once create exactly one check-in', async () => {
    for (let i = 1; i < 5; i++) {
      const token = await qr(`RACE${i}-1`);
      const results = await Promise.all(
        Array.from({ length: 6 }, () => t.call(acct.tokens.all, { method: 'POST', url: ticketUrl('race', token) })),
      );
      const codes = results.map((r) => r.statusCode).sort();
      expect(codes).toEqual([200, 409, 409, 409, 409, 409]);
      const winner = results.find((r) => r.statusCode === 200)!.json();
      for (const r of results.filter((x) => x.statusCode === 409)) {
        expect(r.json().error.created_at).toBe(winner.created_at);
      }
    }
    expect(await rows('race')).toBe(4);
    expect(await count('race')).toBe(4);
  });
});

describe('POST .../orders/{qr}/checkins', () => {
  it('checks in the counts given as form parameters, never more than the order holds', async () => {
    const token = await orderQr('GRP1');
    const over = await t.call(acct.tokens.all, {
      method: 'POST',
      url: orderUrl('main', token),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'ga=4',
    });
    expect(over.statusCode).toBe(422);
    expect(over.json().error).toMatchObject({ code: 'not_checkable', message: expect.stringMatching(/holds 3/) });
    const before = await count('main');
    const res = await t.call(acct.tokens.all, {
      method: 'POST',
      url: orderUrl('main', token),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'ga=2&vip=1',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.checkins).toHaveLength(3);
    expect(body.checkins.map((c: { ticket_reference: string }) => c.ticket_reference).sort()).toEqual([
      'GRP1-1',
      'GRP1-2',
      'GRP1-4',
    ]);
    expect(body.checkins[0]).toEqual({
      id: expect.any(Number),
      ticket_id: expect.any(Number),
      ticket_reference: expect.any(String),
      created_at: expect.any(String),
    });
    expect(await count('main')).toBe(before + 3);
    // one ga left: asking for two is refused and nothing changes
    const tooMany = await t.call(acct.tokens.all, { method: 'POST', url: orderUrl('main', token), payload: { ga: 2 } });
    expect(tooMany.statusCode).toBe(422);
    expect(await count('main')).toBe(before + 3);
    const vipAgain = await t.call(acct.tokens.all, { method: 'POST', url: orderUrl('main', token), payload: { vip: 1 } });
    expect(vipAgain.json().error.code).toBe('not_checkable');
    // JSON body works too; the last ga goes in
    const last = await t.call(acct.tokens.all, { method: 'POST', url: orderUrl('main', token), payload: { ga: 1, vip: 0 } });
    expect(last.statusCode).toBe(200);
    expect(last.json().checkins.map((c: { ticket_reference: string }) => c.ticket_reference)).toEqual(['GRP1-3']);
    // nothing left and no counts: 409 with when
    const done = await t.call(acct.tokens.all, { method: 'POST', url: orderUrl('main', token) });
    expect(done.statusCode).toBe(409);
    expect(done.json().error).toMatchObject({ code: 'already_checked_in', created_at: expect.any(String) });
    expect(await count('main')).toBe(before + 4);
  });

  it('with no counts checks in every remaining ticket on the list; restricted lists only their types', async () => {
    const res = await t.call(acct.tokens.all, { method: 'POST', url: orderUrl('vipdoor', await orderQr('GRP2')) });
    expect(res.statusCode).toBe(200);
    expect(res.json().checkins.map((c: { ticket_reference: string }) => c.ticket_reference)).toEqual(['GRP2-3']);
    const ga = await t.call(acct.tokens.all, {
      method: 'POST',
      url: orderUrl('vipdoor', await orderQr('GRP3')),
      payload: { ga: 1 },
    });
    expect(ga.statusCode).toBe(422);
    expect(ga.json().error.code).toBe('not_checkable');
    const none = await t.call(acct.tokens.all, { method: 'POST', url: orderUrl('vipdoor', await orderQr('GRP3')) });
    expect(none.statusCode).toBe(422);
  });

  it('refuses bad counts, voided orders and unknown tokens', async () => {
    const bad = await t.call(acct.tokens.all, {
      method: 'POST',
      url: orderUrl('main', await orderQr('GRP3')),
      payload: { ga: 'two' },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error).toMatchObject({ code: 'validation_failed', fields: { ga: [expect.any(String)] } });
    const neg = await t.call(acct.tokens.all, {
      method: 'POST',
      url: orderUrl('main', await orderQr('GRP3')),
      payload: { ga: -1 },
    });
    expect(neg.json().error.code).toBe('validation_failed');
    const unknownType = await t.call(acct.tokens.all, {
      method: 'POST',
      url: orderUrl('main', await orderQr('GRP3')),
      payload: { balcony: 1 },
    });
    expect(unknownType.json().error.code).toBe('not_checkable');
    const voided = await t.call(acct.tokens.all, { method: 'POST', url: orderUrl('main', await orderQr('VOID')) });
    expect(voided.statusCode).toBe(422);
    expect(voided.json().error.code).toBe('not_checkable');
    const unknown = await t.call(acct.tokens.all, { method: 'POST', url: orderUrl('main', 'nope') });
    expect(unknown.statusCode).toBe(404);
    const otherEvent = await t.call(acct.tokens.all, { method: 'POST', url: orderUrl('main', await orderQr('OTHR')) });
    expect(otherEvent.json().error.code).toBe('not_checkable');
    expect((await t.call(null, { method: 'POST', url: orderUrl('main', await orderQr('GRP3')) })).statusCode).toBe(401);
  });

  it('two doors scanning one order at once check each ticket in once', async () => {
    const token = await orderQr('GRP3');
    const before = await count('race');
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.call(acct.tokens.all, { method: 'POST', url: orderUrl('race', token), payload: { ga: 2 } }),
      ),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 422, 422, 422]);
    expect(await count('race')).toBe(before + 2);
    expect(await rows('race')).toBe(before + 2);
  });
});
