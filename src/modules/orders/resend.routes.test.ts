import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { renderPayLinkMail, renderTicketMail } from './orders.mail.ts';

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'resend',
      events: [
        makeEvent({
          slug: 'resend-fest',
          orders: [
            makeOrder({ ref: 'PAID-0001', email: 'paid@example.org' }),
            makeOrder({
              ref: 'PEND-0001',
              status: 'pending',
              email: 'pending@example.org',
              paid_at: undefined,
              payments: [],
              expires_at: '2027-01-01T00:00:00Z',
            }),
            makeOrder({
              ref: 'GONE-0001',
              status: 'pending',
              paid_at: undefined,
              payments: [],
              expires_at: '2026-11-01T00:00:00Z',
            }),
            makeOrder({ ref: 'CANC-0001', status: 'canceled', paid_at: undefined, payments: [] }),
            makeOrder({ ref: 'NOML-0001', email: undefined }),
          ],
        }),
        makeEvent({ slug: 'elsewhere', orders: [makeOrder({ ref: 'ELSE-0001' })] }),
      ],
      limitedTo: ['elsewhere'],
    }),
  );
});
afterAll(() => t.close());

const resend = (ref: string, token = acct.tokens.all) => t.call(token, { method: 'POST', url: `/api/v1/orders/${ref}/resend` });
const queued = async (ref: string) =>
  t.ctx.db
    .selectFrom('outbox')
    .innerJoin('orders', (j) => j.on((eb) => eb(sql`(outbox.payload->>'order_id')::bigint`, '=', eb.ref('orders.id'))))
    .select(['outbox.kind', 'outbox.payload'])
    .where('orders.ref', '=', ref)
    .execute();
describe('POST /api/v1/orders/{ref}/resend', () => {
  it('queues the ticket mail of a paid order, 202, and the mail is the ticket mail', async () => {
    const res = await resend('PAID-0001');
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ ref: 'PAID-0001', sent: 'tickets' });
    const rows = await queued('PAID-0001');
    expect(rows.map((r) => r.kind)).toEqual(['mail.tickets']);
    const mail = await renderTicketMail(t.ctx, rows[0]!.payload);
    expect(mail?.to).toBe('paid@example.org');
    expect(mail?.subject).toContain('PAID-0001');
  });

  it('queues the pay link of a pending order; the mail carries the pay page and the hold', async () => {
    const res = await resend('PEND-0001');
    expect(res.json()).toEqual({ ref: 'PEND-0001', sent: 'pay_link' });
    const rows = await queued('PEND-0001');
    expect(rows.map((r) => r.kind)).toEqual(['mail.pay_link']);
    const mail = await renderPayLinkMail(t.ctx, rows[0]!.payload);
    expect(mail?.to).toBe('pending@example.org');
    expect(mail?.text).toMatch(/http:\/\/admit\.test\/pay\/[A-Za-z0-9_-]+/);
    expect(mail?.html).toContain('Pay now');
    await t.jobs.runAll();
    const sent = await t.ctx.db
      .selectFrom('outbox')
      .select('status')
      .where('kind', '=', 'mail.pay_link')
      .executeTakeFirstOrThrow();
    expect(sent.status).toBe('sent');
  });

  it('refuses what has nothing to send (422 not_resendable), hides other events (404), needs orders.manage', async () => {
    for (const ref of ['CANC-0001', 'GONE-0001', 'NOML-0001']) {
      const res = await resend(ref);
      expect([res.statusCode, res.json().error.code], ref).toEqual([422, 'not_resendable']);
      expect(await queued(ref)).toEqual([]);
    }
    expect((await resend('NOPE-0001')).statusCode).toBe(404);
    expect((await resend('PAID-0001', acct.tokens.limited)).statusCode).toBe(404);
    expect((await resend('ELSE-0001', acct.tokens.limited)).statusCode).toBe(202);
    expect((await resend('PAID-0001', acct.tokens.view)).statusCode).toBe(403);
  });
});
