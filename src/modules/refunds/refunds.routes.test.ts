import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { startFakeStripe, type FakeStripe } from '../../../test/fakes/fake-stripe.ts';

let t: TestApp;
let stripe: FakeStripe;
let sbx: Awaited<ReturnType<typeof seedAccount>>;
let card: Awaited<ReturnType<typeof seedAccount>>;
let none: Awaited<ReturnType<typeof seedAccount>>;

const ga = [{ kind: 'tickets' as const, ref: 'ga', quantity: 2, unit_price: 2500 }];

beforeAll(async () => {
  stripe = await startFakeStripe();
  t = await createTestApp();
  sbx = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'sbx',
          orders: [
            makeOrder({
              ref: 'SBX-PAID',
              lines: ga,
              payments: [{ rail: 'sandbox', amount: 5000, at: '2026-11-01T10:05:00Z', provider_ref: 'sbx_a' }],
            }),
            makeOrder({
              ref: 'SBX-RACE',
              lines: ga,
              payments: [{ rail: 'sandbox', amount: 5000, at: '2026-11-01T10:05:00Z', provider_ref: 'sbx_b' }],
            }),
            makeOrder({
              ref: 'SBX-DONE',
              status: 'refunded',
              lines: ga,
              payments: [{ rail: 'sandbox', amount: 5000, at: '2026-11-01T10:05:00Z', provider_ref: 'sbx_c' }],
              refunds: [{ amount: 5000, at: '2026-11-02T10:00:00Z' }],
            }),
            makeOrder({ ref: 'SBX-FREE', lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 0 }], payments: [] }),
            makeOrder({ ref: 'SBX-NOREF', lines: ga, payments: [{ rail: 'card', amount: 5000, at: '2026-11-01T10:05:00Z' }] }),
            makeOrder({
              ref: 'SBX-PART',
              lines: ga,
              payments: [{ rail: 'sandbox', amount: 5000, at: '2026-11-01T10:05:00Z', provider_ref: 'sbx_d' }],
              refunds: [{ amount: 1500, at: '2026-11-02T10:00:00Z' }],
            }),
            makeOrder({
              ref: 'SBX-FULL',
              lines: ga,
              payments: [{ rail: 'sandbox', amount: 5000, at: '2026-11-01T10:05:00Z', provider_ref: 'sbx_e' }],
              refunds: [{ amount: 5000, at: '2026-11-02T10:00:00Z' }],
            }),
            makeOrder({ ref: 'SBX-PEND', status: 'pending', paid_at: undefined, lines: ga, payments: [] }),
            makeOrder({ ref: 'SBX-CANC', status: 'canceled', paid_at: undefined, lines: ga, payments: [] }),
          ],
        }),
      ],
    }),
  );
  card = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'card',
          orders: ['CARD-1', 'CARD-2', 'CARD-RACE'].map((ref) =>
            makeOrder({
              ref,
              lines: ga,
              payments: [{ rail: 'card', amount: 5000, at: '2026-11-01T10:05:00Z', provider_ref: `pi_${ref}`, fee: null }],
            }),
          ),
        }),
      ],
    }),
  );
  await t.ctx.db
    .updateTable('accounts')
    .set({
      payments_mode: 'own_key',
      payments_provider: 'stripe',
      payments_api_key: 'sk_test_fake',
      payments_api_base: stripe.url,
    })
    .where('slug', '=', card.slug)
    .execute();
  await t.ctx.db.updateTable('payments').set({ provider: 'stripe' }).where('provider_ref', 'like', 'pi_CARD-%').execute();
  none = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'none',
          orders: [
            makeOrder({
              ref: 'NONE-1',
              lines: ga,
              payments: [{ rail: 'card', amount: 5000, at: '2026-11-01T10:05:00Z', provider_ref: 'pi_x' }],
            }),
          ],
        }),
      ],
    }),
  );
  await t.ctx.db.updateTable('accounts').set({ payments_mode: 'none' }).where('slug', '=', none.slug).execute();
});
afterAll(async () => {
  await t.close();
  await stripe.close();
});

const refund = (token: string, ref: string, payload?: string) =>
  t.call(token, {
    method: 'POST',
    url: `/api/v1/orders/${ref}/refund`,
    ...(payload ? { headers: { 'content-type': 'application/json' }, payload } : {}),
  });

async function state(ref: string) {
  const o = await t.ctx.db
    .selectFrom('orders')
    .select(['id', 'status', 'refunded_cents'])
    .where('ref', '=', ref)
    .executeTakeFirstOrThrow();
  const tickets = await t.ctx.db.selectFrom('tickets').select('status').where('order_id', '=', o.id).execute();
  const refunds = await t.ctx.db
    .selectFrom('refunds')
    .select(['status', 'amount_cents', 'simulated'])
    .where('order_id', '=', o.id)
    .orderBy('id')
    .execute();
  return { status: o.status, refunded_cents: o.refunded_cents, tickets: tickets.map((x) => x.status), refunds };
}

describe('POST /orders/{ref}/refund (sandbox)', () => {
  it('refunds the balance, voids tickets, releases stock, records a simulated refund, queues the mail', async () => {
    const taken = async () =>
      (
        await t.ctx.db
          .selectFrom('inventory')
          .select('taken')
          .where(
            'account_id',
            '=',
            (await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', sbx.slug).executeTakeFirstOrThrow()).id,
          )
          .executeTakeFirstOrThrow()
      ).taken;
    const before = await taken();
    const res = await refund(sbx.tokens.refund, 'SBX-PAID', '{not json');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ refunded_cents: 5000 });
    const s = await state('SBX-PAID');
    expect(s).toMatchObject({ status: 'refunded', refunded_cents: 5000, tickets: ['voided', 'voided'] });
    expect(s.refunds).toEqual([{ status: 'succeeded', amount_cents: 5000, simulated: true }]);
    expect(await taken()).toBe(before - 2);
    const mail = await t.ctx.db.selectFrom('outbox').select('kind').where('kind', '=', 'mail.refund').execute();
    expect(mail.length).toBe(1);
    const again = await refund(sbx.tokens.refund, 'SBX-PAID');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ already: true });
  });

  it('answers in the spec’s check order', async () => {
    const cases: Array<[string, number, string | null]> = [
      ['SBX-DONE', 200, null],
      ['SBX-FREE', 422, 'no_payment_intent'],
      ['SBX-NOREF', 422, 'no_payment_intent'],
      ['SBX-FULL', 422, 'not_refundable'],
      ['SBX-PEND', 422, 'not_refundable'],
      ['SBX-CANC', 422, 'not_refundable'],
      ['NOPE', 404, 'not_found'],
    ];
    for (const [ref, status, code] of cases) {
      const res = await refund(sbx.tokens.refund, ref);
      expect(res.statusCode, `${ref} ${res.body}`).toBe(status);
      if (code) expect(res.json().error.code).toBe(code);
    }
    expect((await refund(none.tokens.refund, 'NONE-1')).json().error.code).toBe('payments_unavailable');
    expect((await refund(none.tokens.refund, 'NONE-1')).statusCode).toBe(503);
  });

  it('refunds what is left after earlier partial refunds', async () => {
    const res = await refund(sbx.tokens.refund, 'SBX-PART');
    expect(res.json()).toEqual({ refunded_cents: 3500 });
    expect((await state('SBX-PART')).refunded_cents).toBe(5000);
  });

  it('needs the refund capability, which nothing else implies', async () => {
    for (const tok of [sbx.tokens.view, sbx.tokens.orders, sbx.tokens.manage, sbx.tokens.none]) {
      expect((await refund(tok, 'SBX-RACE')).statusCode).toBe(403);
    }
    expect((await refund(sbx.tokens.all, 'SBX-RACE')).statusCode).toBe(200);
  });
});

describe('POST /orders/{ref}/refund (Stripe)', () => {
  it('a declined refund is 502 refund_failed, recorded as failed, and the order is untouched', async () => {
    stripe.fail.refundsDeclined = true;
    const res = await refund(card.tokens.refund, 'CARD-2');
    stripe.fail.refundsDeclined = false;
    expect(res.statusCode).toBe(502);
    expect(res.json().error.code).toBe('refund_failed');
    const s = await state('CARD-2');
    expect(s).toMatchObject({ status: 'paid', refunded_cents: 0, tickets: ['valid', 'valid'] });
    expect(s.refunds.map((r) => r.status)).toEqual(['failed']);
  });

  it('a provider outage is 502 with nothing refunded; the retry finishes the same refund, never a second one', async () => {
    stripe.fail.refunds = true;
    const res = await refund(card.tokens.refund, 'CARD-1');
    stripe.fail.refunds = false;
    expect(res.statusCode).toBe(502);
    expect(res.json().error.code).toBe('refund_failed');
    let s = await state('CARD-1');
    expect(s).toMatchObject({ status: 'paid', refunded_cents: 0, tickets: ['valid', 'valid'] });
    expect(s.refunds.map((r) => r.status)).toEqual(['pending']);
    const retry = await refund(card.tokens.refund, 'CARD-1');
    expect(retry.json()).toEqual({ refunded_cents: 5000 });
    const calls = stripe.calls.filter((c) => c.path === '/v1/refunds' && c.body.payment_intent === 'pi_CARD-1');
    expect(calls.length).toBe(2);
    expect(calls[0]!.idempotencyKey).toBe(calls[1]!.idempotencyKey);
    expect(calls[1]!.idempotencyKey).toMatch(/^admit-refund-\d+$/);
    expect(calls[1]!.body).toMatchObject({ payment_intent: 'pi_CARD-1', amount: '5000' });
    s = await state('CARD-1');
    expect(s.refunds.map((r) => [r.status, r.simulated])).toEqual([['succeeded', false]]);
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === 'pi_CARD-1').length).toBe(1);
  });

  it('the reconciler finishes a refund left pending by a crash, with the same key', async () => {
    const o = await t.ctx.db
      .selectFrom('orders')
      .select(['id', 'account_id'])
      .where('ref', '=', 'CARD-2')
      .executeTakeFirstOrThrow();
    const p = await t.ctx.db.selectFrom('payments').select('id').where('order_id', '=', o.id).executeTakeFirstOrThrow();
    await t.ctx.db
      .insertInto('refunds')
      .values({
        account_id: o.account_id,
        order_id: o.id,
        payment_id: p.id,
        amount_cents: 5000,
        currency: 'eur',
        status: 'pending',
        created_at: t.clock.now(),
      })
      .execute();
    await t.jobs.runAll();
    expect((await state('CARD-2')).status).toBe('paid'); // too fresh to touch
    t.clock.advance(2 * 60_000);
    await t.jobs.runAll();
    const s = await state('CARD-2');
    expect(s).toMatchObject({ status: 'refunded', refunded_cents: 5000, tickets: ['voided', 'voided'] });
    expect(s.refunds.map((r) => r.status)).toEqual(['failed', 'succeeded']);
  });

  it('30 racing refund calls make one provider refund', async () => {
    const before = stripe.calls.filter((c) => c.path === '/v1/refunds').length;
    const results = await Promise.all(Array.from({ length: 30 }, () => refund(card.tokens.refund, 'CARD-RACE')));
    expect(results.every((r) => r.statusCode === 200)).toBe(true);
    expect(results.filter((r) => r.json().refunded_cents === 5000).length).toBe(1);
    expect(results.filter((r) => r.json().already === true).length).toBe(29);
    expect(stripe.calls.filter((c) => c.path === '/v1/refunds').length - before).toBe(1);
    expect((await state('CARD-RACE')).refunds.filter((r) => r.status === 'succeeded').length).toBe(1);
  });
});
