import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../factories.ts';
import { startFakeStripe, type FakeStripe } from '../fakes/fake-stripe.ts';
import { freePort } from '../net.ts';
import { invariants, startServer } from './chaos-kit.ts';

/**
 * A buyer's cancellation on the order page (contract section 15) with the server killed by SIGKILL
 * while the provider is answering: after a restart, the buyer sending the form again and the
 * reconciliation job, each order has exactly one provider refund of the tickets' price less the
 * fee, the ticket is void and its place free.
 */

let t: TestApp;
let stripe: FakeStripe;
const refs = Array.from({ length: 8 }, (_, i) => `SELF-${String(i).padStart(3, '0')}`);

beforeAll(async () => {
  if (!process.env.DATABASE_URL) throw new Error('test:chaos runs against PostgreSQL: set DATABASE_URL');
  stripe = await startFakeStripe();
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

describe('chaos: self-service cancel', () => {
  it('SIGKILL during the provider call: one refund per order after restart, retry and reconciliation', async () => {
    const a = await seedAccount(
      t.ctx,
      makeAccountFile({
        events: [
          makeEvent({
            slug: 'selfcancel',
            // the server runs on the real clock: the rules must be open now
            starts_at: new Date(Date.now() + 60 * 86_400_000).toISOString(),
            self_service: { cancel_until: new Date(Date.now() + 30 * 86_400_000).toISOString(), cancel_fee_percent: 10 },
            ticket_types: [{ key: 'ga', name: 'GA', price: 2500, capacity: 100 }],
            orders: refs.map((ref) =>
              makeOrder({
                ref,
                lines: [{ kind: 'tickets', ref: 'ga', quantity: 2, unit_price: 2500 }],
                payments: [{ rail: 'card', amount: 5000, at: '2026-11-01T10:05:00Z', provider_ref: `pi_${ref}` }],
              }),
            ),
          }),
        ],
      }),
    );
    await t.ctx.db
      .updateTable('accounts')
      .set({ payments_mode: 'own_key', payments_provider: 'stripe', payments_api_key: 'sk_test', payments_api_base: stripe.url })
      .where('slug', '=', a.slug)
      .execute();
    await t.ctx.db.updateTable('payments').set({ provider: 'stripe' }).where('provider_ref', 'like', 'pi_SELF-%').execute();
    const orders = await t.ctx.db.selectFrom('orders').select(['id', 'ref', 'access_secret']).where('ref', 'in', refs).execute();

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      DATABASE_URL: t.ctx.config.databaseUrl!,
      PORT: String(port),
      BASE_URL: base,
      NODE_ENV: 'production',
      ADMIT_RATE_LIMIT_PER_MIN: '0',
      LOG_LEVEL: 'silent',
    };
    let server = await startServer(env, base);
    // each buyer opens the page and fills the form: its CSRF token and one-time key
    const forms = await Promise.all(
      orders.map(async (o) => {
        const page = await (await fetch(`${base}/o/${o.access_secret}`)).text();
        const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
        const key = /name="key" value="([^"]+)"/.exec(page)![1]!;
        return { o, body: new URLSearchParams({ csrf, key, tickets: `${o.ref}-1`, confirm: 'yes' }) };
      }),
    );
    const send = () =>
      Promise.all(
        forms.map(({ o, body }) =>
          fetch(`${base}/o/${o.access_secret}/cancel`, { method: 'POST', body, redirect: 'manual' })
            .then((r) => r.status)
            .catch(() => 0),
        ),
      );
    // the provider answers slowly: the kill lands while refunds are in flight
    stripe.refundMode = 'slow';
    const first = send();
    await new Promise((r) => setTimeout(r, 500));
    server.kill('SIGKILL');
    await first;
    stripe.refundMode = 'ok';
    server = await startServer(env, base);
    // the buyers send the form again: a pending refund is waited for, a finished one answered as done
    const again = await send();
    for (const status of again) expect([303, 409, 422, 502]).toContain(status);
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
    // the reconciliation job finishes what the killed process left pending (same idempotency key)
    t.clock.set(new Date(Date.now() + 5 * 60_000));
    await t.jobs.runAll();

    const violations = await invariants(t.ctx.db);
    const perIntent = new Map<string, number[]>();
    for (const r of stripe.refunds.values())
      perIntent.set(r.payment_intent, [...(perIntent.get(r.payment_intent) ?? []), r.amount]);
    for (const o of orders) {
      const amounts = perIntent.get(`pi_${o.ref}`) ?? [];
      if (amounts.length !== 1 || amounts[0] !== 2250) violations.push(`${o.ref}: provider refunds ${JSON.stringify(amounts)}`);
      const row = await t.ctx.db
        .selectFrom('orders')
        .select(['status', 'refunded_cents'])
        .where('id', '=', o.id)
        .executeTakeFirstOrThrow();
      if (row.status !== 'paid' || row.refunded_cents !== 2250)
        violations.push(`${o.ref}: ${row.status}, refunded ${row.refunded_cents}`);
      const tickets = await t.ctx.db
        .selectFrom('tickets')
        .select(['ref', 'status'])
        .where('order_id', '=', o.id)
        .orderBy('position')
        .execute();
      if (tickets.map((x) => x.status).join() !== 'voided,valid') violations.push(`${o.ref}: tickets ${JSON.stringify(tickets)}`);
    }
    console.log(`self-service cancel under SIGKILL: ${orders.length} orders, first answers, retries ${again.join(' ')}`);
    expect(violations).toEqual([]);
  });
});
