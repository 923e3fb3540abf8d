import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { cspOf, expectNoncedScripts, scriptNonceOf } from '../../../test/csp.ts';
import { startFakeStripe } from '../../../test/fakes/fake-stripe.ts';

let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let gaId: number;

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      themes: [{ name: 'Brand', is_default: true, settings: { accent_color: '#b4461b' } }],
      events: [
        makeEvent({
          slug: 'show',
          name: 'The <Show>',
          ticket_types: [{ key: 'ga', name: 'GA', price: 2500, capacity: 10, tax_rate_bp: 700 }],
        }),
      ],
    }),
  );
  gaId = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'ga').executeTakeFirstOrThrow()).id;
});
afterAll(() => t.close());

async function newOrder(quantity = 2) {
  const res = await t.call(a.tokens.all, {
    method: 'POST',
    url: '/api/v1/events/show/orders',
    payload: { items: [{ ticket_type_id: gaId, quantity }], email: 'b@example.org', name: 'Bea' },
  });
  expect(res.statusCode).toBe(201);
  const o = res.json();
  return { ...o, path: new URL(o.payment_url).pathname, secret: new URL(o.payment_url).pathname.split('/').pop() as string };
}

const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

describe('pay page and order page (sandbox)', () => {
  it('shows the order and a Pay button; paying lands on the order page with one QR code per ticket', async () => {
    const o = await newOrder(2);
    const page = await t.app.inject({ method: 'GET', url: o.path });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['referrer-policy']).toBe('same-origin');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    // the countdown runs under the page's nonce, and only it: no 'unsafe-inline' for scripts
    const { nonce, scripts } = expectNoncedScripts(page);
    expect(scripts).toBe(1);
    expect(page.body).toContain('data-countdown=');
    const again = await t.app.inject({ method: 'GET', url: o.path });
    expect(expectNoncedScripts(again).nonce).not.toBe(nonce);
    expect(page.body).toContain('The &lt;Show&gt;');
    expect(page.body).not.toContain('<Show>');
    expect(page.body).toMatch(/<button type="submit">Pay €50\.00<\/button>/);
    expect(page.body).toContain('reserved until');
    expect(page.body).toContain('--admit-accent-color:#b4461b');
    const paid = await t.app.inject({ method: 'POST', url: o.path, payload: { csrf: csrfOf(page.body) } });
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe(`/o/${o.secret}`);
    const read = (await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/orders/${o.ref}` })).json();
    expect(read.status).toBe('paid');
    expect(read.tickets.length).toBe(2);
    const order = await t.app.inject({ method: 'GET', url: `/o/${o.secret}` });
    expect(order.statusCode).toBe(200);
    expect((order.body.match(/<svg/g) ?? []).length).toBe(2);
    // the sandbox said once: the rail's name carries it
    expect(order.body).toContain('Paid €50.00 by test payment (sandbox, no money moved), ');
    const pay = await t.ctx.db
      .selectFrom('payments')
      .selectAll()
      .where('provider_ref', 'like', 'sbx_%')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(pay).toMatchObject({
      rail: 'sandbox',
      provider: 'sandbox',
      simulated: true,
      amount_cents: 5000,
      status: 'succeeded',
      fee_cents: 0,
      platform_fee_cents: 0,
    });
  });

  it('paying twice, an expired or canceled order, a tampered URL or a missing CSRF token change nothing', async () => {
    const o = await newOrder(1);
    const page = await t.app.inject({ method: 'GET', url: o.path });
    const csrf = csrfOf(page.body);
    expect((await t.app.inject({ method: 'POST', url: o.path, payload: {} })).statusCode).toBe(403);
    expect(
      (await t.app.inject({ method: 'POST', url: o.path, payload: { csrf }, headers: { origin: 'https://evil.example' } }))
        .statusCode,
    ).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: o.path, payload: { csrf } })).statusCode).toBe(303);
    const twice = await t.app.inject({ method: 'POST', url: o.path, payload: { csrf } });
    expect(twice.statusCode).toBe(409);
    expect(twice.body).toContain('already paid');
    const payments = await t.ctx.db
      .selectFrom('payments as p')
      .innerJoin('orders as o', 'o.id', 'p.order_id')
      .select('p.id')
      .where('o.ref', '=', o.ref)
      .execute();
    expect(payments.length).toBe(1);

    const tampered = await t.app.inject({ method: 'GET', url: `/pay/${o.secret.slice(0, -2)}xx` });
    expect(tampered.statusCode).toBe(404);
    expect(tampered.headers['content-type']).toMatch(/text\/html/);
    expect(tampered.body).toContain('not valid');

    const c = await newOrder(1);
    const cCsrf = csrfOf((await t.app.inject({ method: 'GET', url: c.path })).body);
    await t.call(a.tokens.all, { method: 'POST', url: `/api/v1/orders/${c.ref}/cancel` });
    const canceled = await t.app.inject({ method: 'POST', url: c.path, payload: { csrf: cCsrf } });
    expect(canceled.statusCode).toBe(422);
    expect(canceled.body).toContain('canceled');

    const e = await newOrder(1);
    t.clock.set('2027-03-16T17:30:00Z'); // the hold ends at 18:00
    const eCsrf = csrfOf((await t.app.inject({ method: 'GET', url: e.path })).body);
    expect(eCsrf).not.toBe('');
    t.clock.set('2027-03-16T18:30:00Z');
    const expired = await t.app.inject({ method: 'POST', url: e.path, payload: { csrf: eCsrf } });
    t.clock.set('2026-11-22T12:00:00Z');
    expect(expired.statusCode).toBe(422);
    expect(expired.body).toContain('reservation for this order has ended');
    const read = (await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/orders/${e.ref}` })).json();
    expect(read.status).toBe('pending');
  });

  it('a ticket QR code opens a page saying whether the ticket is valid, without personal data', async () => {
    const o = await newOrder(1);
    const csrf = csrfOf((await t.app.inject({ method: 'GET', url: o.path })).body);
    await t.app.inject({ method: 'POST', url: o.path, payload: { csrf } });
    const ticket = await t.ctx.db
      .selectFrom('tickets as tk')
      .innerJoin('orders as od', 'od.id', 'tk.order_id')
      .select(['tk.qr_token', 'tk.ref', 'od.qr_token as order_qr'])
      .where('od.ref', '=', o.ref)
      .executeTakeFirstOrThrow();
    const page = await t.app.inject({ method: 'GET', url: `/t/${ticket.qr_token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`${ticket.ref}`);
    expect(page.body).toMatch(/valid\./);
    expect(page.body).not.toContain('Bea');
    expect((await t.app.inject({ method: 'GET', url: `/t/o/${ticket.order_qr}` })).body).toContain('1 valid ticket.');
    await t.call(a.tokens.all, { method: 'POST', url: `/api/v1/orders/${o.ref}/refund` });
    expect((await t.app.inject({ method: 'GET', url: `/t/${ticket.qr_token}` })).body).toContain('no longer valid');
    expect((await t.app.inject({ method: 'GET', url: '/t/not-a-ticket' })).statusCode).toBe(404);
  });

  it('the card page allows Stripe besides its own nonce, and no inline script', async () => {
    const stripe = await startFakeStripe();
    const account = () => t.ctx.db.updateTable('accounts').where('slug', '=', a.slug);
    const before = await t.ctx.db
      .selectFrom('accounts')
      .select(['payments_mode', 'payments_provider', 'payments_api_key', 'payments_api_base'])
      .where('slug', '=', a.slug)
      .executeTakeFirstOrThrow();
    try {
      await account()
        .set({
          payments_mode: 'own_key',
          payments_provider: 'stripe',
          payments_api_key: 'sk_test_fake',
          payments_api_base: stripe.url,
        })
        .execute();
      const o = await newOrder(1);
      const csrf = csrfOf((await t.app.inject({ method: 'GET', url: o.path })).body);
      const card = await t.app.inject({ method: 'POST', url: o.path, payload: { csrf } });
      expect(card.statusCode).toBe(200);
      expect(card.body).toContain('id="card-form"');
      expectNoncedScripts(card);
      const csp = cspOf(card);
      expect(csp.get('script-src')).toEqual(["'self'", `'nonce-${scriptNonceOf(card)}'`, 'https://js.stripe.com']);
      expect(csp.get('default-src')).toEqual(["'self'", 'https://js.stripe.com', 'https://api.stripe.com']);
      expect(card.headers['cache-control']).toBe('no-store');
    } finally {
      await account().set(before).execute();
      await stripe.close();
    }
  });

  it('revoking the link makes the old pay and order pages 404', async () => {
    const o = await newOrder(1);
    await t.call(a.tokens.all, { method: 'PATCH', url: `/api/v1/orders/${o.ref}`, payload: { revoke_link: true } });
    expect((await t.app.inject({ method: 'GET', url: o.path })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/o/${o.secret}` })).statusCode).toBe(404);
  });
});
