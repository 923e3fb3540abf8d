import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { startFakeStripe, type FakeStripe } from '../../../test/fakes/fake-stripe.ts';
import { platformFee } from './payments.service.ts';

let t: TestApp;
let stripe: FakeStripe;
let own: Awaited<ReturnType<typeof seedAccount>>;
let plat: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  stripe = await startFakeStripe();
  process.env.STRIPE_PLATFORM_KEY = 'sk_test_platform';
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  const event = (slug: string, capacity = 10) =>
    makeEvent({ slug, ticket_types: [{ key: 'ga', name: 'GA', price: 2500, capacity }] });
  own = await seedAccount(t.ctx, makeAccountFile({ events: [event('own'), event('tight', 1)] }));
  plat = await seedAccount(t.ctx, makeAccountFile({ events: [event('plat')] }));
  await t.ctx.db
    .updateTable('accounts')
    .set({
      payments_mode: 'own_key',
      payments_provider: 'stripe',
      payments_api_key: 'sk_test_own',
      payments_api_base: stripe.url,
    })
    .where('slug', '=', own.slug)
    .execute();
  await t.ctx.db
    .updateTable('accounts')
    .set({
      payments_mode: 'platform',
      payments_provider: 'stripe',
      payments_api_base: stripe.url,
      platform_fee_bp: 150,
      platform_fee_fixed_cents: 25,
    })
    .where('slug', '=', plat.slug)
    .execute();
});
afterAll(async () => {
  await t.close();
  await stripe.close();
  delete process.env.STRIPE_PLATFORM_KEY;
});

async function order(token: string, slug: string, quantity = 2) {
  const gaId = (
    await t.ctx.db
      .selectFrom('ticket_types as tt')
      .innerJoin('events as e', 'e.id', 'tt.event_id')
      .select('tt.id')
      .where('e.slug', '=', slug)
      .executeTakeFirstOrThrow()
  ).id;
  const res = await t.call(token, {
    method: 'POST',
    url: `/api/v1/events/${slug}/orders`,
    payload: { items: [{ ticket_type_id: gaId, quantity }], email: 'c@example.org' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const o = res.json();
  return { ...o, path: new URL(o.payment_url).pathname };
}

const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

async function payByCard(o: { path: string }) {
  const csrf = csrfOf((await t.app.inject({ method: 'GET', url: o.path })).body);
  const opened = await t.app.inject({ method: 'POST', url: o.path, payload: { csrf } });
  expect(opened.statusCode).toBe(200);
  const clientSecret = /data-client-secret="([^"]+)"/.exec(opened.body)?.[1] ?? '';
  const intentId = clientSecret.replace(/_secret_x$/, '');
  return { intentId, csrf, confirm: () => t.app.inject({ method: 'POST', url: `${o.path}/confirm`, payload: { csrf } }) };
}

describe('card payments through Stripe', () => {
  it('opens one PaymentIntent, records the payment once it succeeded, fee unknown until established', async () => {
    const o = await order(own.tokens.all, 'own');
    const card = await payByCard(o);
    expect(stripe.intents.get(card.intentId)).toMatchObject({ amount: 5000, currency: 'eur' });
    expect((await card.confirm()).statusCode).toBe(202); // not paid yet: nothing recorded
    expect((await t.call(own.tokens.all, { method: 'GET', url: `/api/v1/orders/${o.ref}` })).json().status).toBe('pending');
    // opening again reuses the intent
    await payByCard(o);
    expect([...stripe.intents.values()].filter((i) => i.amount === 5000).length).toBe(1);
    stripe.succeed(card.intentId);
    const done = await card.confirm();
    expect(done.statusCode).toBe(303);
    expect((await t.call(own.tokens.all, { method: 'GET', url: `/api/v1/orders/${o.ref}` })).json()).toMatchObject({
      status: 'paid',
      tickets: expect.any(Array),
    });
    const p = await t.ctx.db
      .selectFrom('payments')
      .selectAll()
      .where('provider_ref', '=', card.intentId)
      .executeTakeFirstOrThrow();
    expect(p).toMatchObject({
      status: 'succeeded',
      rail: 'card',
      provider: 'stripe',
      simulated: false,
      fee_cents: null,
      platform_fee_cents: 0,
    });
    // the fee is filled in once Stripe has established it
    await t.jobs.runAll();
    expect(
      (await t.ctx.db.selectFrom('payments').select('fee_cents').where('id', '=', p.id).executeTakeFirstOrThrow()).fee_cents,
    ).toBeNull();
    stripe.intents.get(card.intentId)!.fee = 175;
    await t.jobs.runAll();
    expect(
      await t.ctx.db
        .selectFrom('payments')
        .select(['fee_cents', 'fee_currency'])
        .where('id', '=', p.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ fee_cents: 175, fee_currency: 'eur' });
    // confirming again records nothing twice
    await card.confirm();
    expect((await t.ctx.db.selectFrom('payments').select('id').where('provider_ref', '=', card.intentId).execute()).length).toBe(
      1,
    );
  });

  it('platform accounts pay the platform fee per payment; own-key accounts none', async () => {
    expect(platformFee({ payments_mode: 'platform', platform_fee_bp: 150, platform_fee_fixed_cents: 25 }, 5000)).toBe(100);
    expect(platformFee({ payments_mode: 'own_key', platform_fee_bp: 150, platform_fee_fixed_cents: 25 }, 5000)).toBe(0);
    const o = await order(plat.tokens.all, 'plat');
    const card = await payByCard(o);
    stripe.succeed(card.intentId);
    expect((await card.confirm()).statusCode).toBe(303);
    const p = await t.ctx.db
      .selectFrom('payments')
      .select(['platform_fee_cents'])
      .where('provider_ref', '=', card.intentId)
      .executeTakeFirstOrThrow();
    expect(p.platform_fee_cents).toBe(100); // 1.5 % of 50.00 = 0.75, plus 0.25 fixed
  });

  it('a payment that lands after the hold ended is reinstated when stock allows, else refunded automatically', async () => {
    // reinstated
    const o1 = await order(own.tokens.all, 'own', 1);
    const c1 = await payByCard(o1);
    await t.call(own.tokens.all, { method: 'POST', url: `/api/v1/orders/${o1.ref}/cancel` });
    stripe.succeed(c1.intentId);
    await c1.confirm();
    expect((await t.call(own.tokens.all, { method: 'GET', url: `/api/v1/orders/${o1.ref}` })).json().status).toBe('paid');
    // sold out meanwhile: refunded
    const o2 = await order(own.tokens.all, 'tight', 1);
    const c2 = await payByCard(o2);
    await t.call(own.tokens.all, { method: 'POST', url: `/api/v1/orders/${o2.ref}/cancel` });
    await order(own.tokens.all, 'tight', 1); // someone else takes the last seat
    stripe.succeed(c2.intentId);
    await c2.confirm();
    expect((await t.call(own.tokens.all, { method: 'GET', url: `/api/v1/orders/${o2.ref}` })).json().status).toBe('canceled');
    const refundsBefore = stripe.calls.filter((c) => c.path === '/v1/refunds').length;
    await t.jobs.runAll();
    const errors = await t.ctx.db
      .selectFrom('outbox')
      .select(['kind', 'last_error', 'status'])
      .where('last_error', 'is not', null)
      .execute();
    expect(errors).toEqual([]);
    expect(stripe.calls.filter((c) => c.path === '/v1/refunds').length).toBe(refundsBefore + 1);
    const read = (await t.call(own.tokens.all, { method: 'GET', url: `/api/v1/orders/${o2.ref}` })).json();
    expect(read).toMatchObject({ status: 'canceled', refunded_cents: 2500 });
    const mails = await t.ctx.db
      .selectFrom('outbox')
      .select(['kind', 'payload'])
      .where('kind', '=', 'mail.late_payment')
      .execute();
    expect(mails.map((m) => m.payload.outcome).sort()).toEqual(['refunded', 'reinstated']);
    await t.jobs.runAll();
    expect(stripe.calls.filter((c) => c.path === '/v1/refunds').length).toBe(refundsBefore + 1);
  });
});

describe('door sales (card-present)', () => {
  it('cancel voids the terminal intent first; when that cannot be proven, 502 cancel_failed and nothing changes', async () => {
    const make = async () => {
      const o = await order(own.tokens.all, 'own', 1);
      const row = await t.ctx.db
        .selectFrom('orders')
        .select(['id', 'account_id'])
        .where('ref', '=', o.ref)
        .executeTakeFirstOrThrow();
      const id = `pi_fake_terminal_${o.ref}`;
      stripe.intents.set(id, { id, amount: 2500, currency: 'eur', status: 'requires_capture', fee: null, feeCurrency: 'eur' });
      await t.ctx.db
        .insertInto('payments')
        .values({
          account_id: row.account_id,
          order_id: row.id,
          rail: 'terminal',
          provider: 'stripe',
          status: 'pending',
          amount_cents: 2500,
          currency: 'eur',
          provider_ref: id,
          created_at: new Date(),
        })
        .execute();
      return { ref: o.ref as string, intent: id };
    };
    const ok = await make();
    const res = await t.call(own.tokens.all, { method: 'POST', url: `/api/v1/orders/${ok.ref}/cancel` });
    expect(res.statusCode).toBe(200);
    expect(stripe.intents.get(ok.intent)!.status).toBe('canceled');

    const bad = await make();
    stripe.fail.cancel = true;
    const refused = await t.call(own.tokens.all, { method: 'POST', url: `/api/v1/orders/${bad.ref}/cancel` });
    stripe.fail.cancel = false;
    expect(refused.statusCode).toBe(502);
    expect(refused.json().error.code).toBe('cancel_failed');
    expect((await t.call(own.tokens.all, { method: 'GET', url: `/api/v1/orders/${bad.ref}` })).json().status).toBe('pending');
    const p = await t.ctx.db
      .selectFrom('payments')
      .select('status')
      .where('provider_ref', '=', bad.intent)
      .executeTakeFirstOrThrow();
    expect(p.status).toBe('pending');
  });
});
