import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { ConsoleClient } from '../../../test/console-client.ts';
import { PW } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { renderRefundMail } from '../refunds/refunds.mail.ts';

/** Refunds from the console: the whole balance, chosen tickets, or an amount, with a reason. */

let t: TestApp;
const owner = 'owner@example.org';
const viewerEmail = 'viewer@example.org';

const three = (ref: string) =>
  makeOrder({
    ref,
    name: 'Ada Lovelace',
    email: 'ada@example.org',
    lines: [{ kind: 'tickets', ref: 'ga', quantity: 3, unit_price: 2500, attendees: ['Ada', 'Charles', 'Mary'] }],
    payments: [{ rail: 'sandbox', amount: 7500, at: '2026-11-01T10:05:00Z', fee: 0, provider_ref: `sbx_${ref}` }],
  });

beforeAll(async () => {
  t = await createTestApp();
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'refacct',
      users: [
        { email: owner, role: 'owner', password: PW },
        { email: viewerEmail, role: 'viewer', password: PW },
      ],
      events: [
        makeEvent({
          slug: 'gig',
          ticket_types: [{ key: 'ga', name: 'General', price: 2500, capacity: 100 }],
          orders: [
            ...['R-TICKETS', 'R-AMOUNT', 'R-OVER', 'R-FORM', 'R-CSRF', 'R-TWICE', 'R-REST'].map(three),
            makeOrder({ ref: 'R-PENDING', status: 'pending', paid_at: undefined, payments: [] }),
          ],
        }),
      ],
    }),
  );
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

async function signedIn(email: string) {
  const c = new ConsoleClient(t.app);
  c.ip = email === owner ? '10.9.0.1' : '10.9.0.2';
  const res = await c.signIn(email, PW);
  expect(res.statusCode, res.body).toBe(303);
  return c;
}
const desk = '/console/a/refacct/events/gig/orders';
const orderOf = (ref: string) => t.ctx.db.selectFrom('orders').selectAll().where('ref', '=', ref).executeTakeFirstOrThrow();
async function stateOf(ref: string) {
  const o = await orderOf(ref);
  const tickets = await t.ctx.db
    .selectFrom('tickets')
    .select(['ref', 'status'])
    .where('order_id', '=', o.id)
    .orderBy('position')
    .execute();
  const refunds = await t.ctx.db
    .selectFrom('refunds')
    .select(['id', 'amount_cents', 'status', 'reason'])
    .where('order_id', '=', o.id)
    .orderBy('id')
    .execute();
  const inv = await t.ctx.db
    .selectFrom('inventory as i')
    .innerJoin('order_lines as l', 'l.inventory_id', 'i.id')
    .select('i.taken')
    .where('l.order_id', '=', o.id)
    .executeTakeFirstOrThrow();
  return { status: o.status, refunded_cents: o.refunded_cents, tickets, refunds, taken: inv.taken };
}
/** The refund form as the page offers it: its nonce, plus what is chosen. */
async function refundForm(c: ConsoleClient, ref: string) {
  const page = await c.get(`${desk}/${ref}/refund`);
  expect(page.statusCode).toBe(200);
  return { page, nonce: /name="nonce" value="([^"]+)"/.exec(page.body)![1]! };
}

describe('refunds in the console', () => {
  it('offers the whole balance, chosen tickets (with names and prices) or an amount, saying the rail once', async () => {
    const c = await signedIn(owner);
    const order = await c.get(`${desk}/R-TICKETS`);
    expect(order.body).toContain(`href="${desk}/R-TICKETS/refund"`);
    const { page } = await refundForm(c, 'R-TICKETS');
    expect(page.body).toContain('Everything left: €75.00');
    expect(page.body).toContain('R-TICKETS-2 · General · Charles · €25.00');
    expect(page.body).toMatch(/name="scope" value="amount"/);
    expect(page.body.match(/sandbox/gi)).toHaveLength(1);
  });

  it('refunds chosen tickets at their price: they are void and their places back, the rest stays valid', async () => {
    const c = await signedIn(owner);
    const before = await stateOf('R-TICKETS');
    const { nonce } = await refundForm(c, 'R-TICKETS');
    const res = await c.post(`${desk}/R-TICKETS/refund`, {
      nonce,
      scope: 'tickets',
      tickets: ['R-TICKETS-2'],
      amount: '',
      reason: 'Charles cannot come',
    });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`${desk}/R-TICKETS?done=partly-refunded`);
    const after = await stateOf('R-TICKETS');
    expect(after.status).toBe('paid');
    expect(after.refunded_cents).toBe(2500);
    expect(after.tickets.map((x) => x.status)).toEqual(['valid', 'voided', 'valid']);
    expect(after.taken).toBe(before.taken - 1);
    expect(after.refunds).toMatchObject([{ amount_cents: 2500, status: 'succeeded', reason: 'Charles cannot come' }]);
    const page = await c.get(String(res.headers.location));
    expect(page.body).toContain('Part of the order was refunded.');
    expect(page.body).toContain('Partly refunded €25.00; tickets void: R-TICKETS-2 (sandbox). Reason: Charles cannot come');
    // the buyer's mail names the voided ticket and says the others stay valid
    const mail = await renderRefundMail(t.ctx, { order_id: (await orderOf('R-TICKETS')).id, refund_id: after.refunds[0]!.id });
    expect(mail!.text).toContain('25.00');
    expect(mail!.text).toContain('R-TICKETS-2');
    expect(mail!.text).toContain('other tickets stay valid');
  });

  it('refunds an amount only, to the cent, with every ticket still valid', async () => {
    const c = await signedIn(owner);
    const before = await stateOf('R-AMOUNT');
    const { nonce } = await refundForm(c, 'R-AMOUNT');
    const res = await c.post(`${desk}/R-AMOUNT/refund`, { nonce, scope: 'amount', amount: '10,05', reason: '' });
    expect(res.statusCode, res.body).toBe(303);
    const after = await stateOf('R-AMOUNT');
    expect(after).toMatchObject({ status: 'paid', refunded_cents: 1005, taken: before.taken });
    expect(after.tickets.every((x) => x.status === 'valid')).toBe(true);
    expect(after.refunds).toMatchObject([{ amount_cents: 1005, reason: null }]);
    const again = await refundForm(c, 'R-AMOUNT');
    expect(again.page.body).toContain('Everything left: €64.95');
  });

  it('refuses more than is left beside the amount, keeping what was typed, and changes nothing', async () => {
    const c = await signedIn(owner);
    const { nonce } = await refundForm(c, 'R-OVER');
    expect((await c.post(`${desk}/R-OVER/refund`, { nonce, scope: 'amount', amount: '50.00' })).statusCode).toBe(303);
    const before = await stateOf('R-OVER');
    const second = await refundForm(c, 'R-OVER');
    const res = await c.post(`${desk}/R-OVER/refund`, {
      nonce: second.nonce,
      scope: 'amount',
      amount: '25.01',
      reason: 'Too much',
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toMatch(/id="f-amount"[^>]*aria-invalid="true"/);
    expect(res.body).toContain('Only €25.00 is left to refund');
    expect(res.body).toContain('value="25.01"');
    expect(res.body).toContain('>Too much</textarea>');
    expect(res.body).toMatch(/id="scope-amount"[^>]*checked/);
    expect(await stateOf('R-OVER')).toEqual(before);
  });

  it('shows every problem of the form at once, beside its field, and changes nothing', async () => {
    const c = await signedIn(owner);
    const before = await stateOf('R-FORM');
    const { nonce } = await refundForm(c, 'R-FORM');
    const res = await c.post(`${desk}/R-FORM/refund`, { nonce, scope: 'tickets', amount: 'twelve', reason: 'x'.repeat(501) });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('Choose at least one ticket');
    expect(res.body).toContain('Enter an amount such as 12.50');
    expect(res.body).toContain('Keep the reason under 500 characters');
    expect(res.body).toContain('value="twelve"');
    // a ticket of another order, or one already void, is refused beside the tickets
    const other = await c.post(`${desk}/R-FORM/refund`, { nonce, scope: 'tickets', tickets: ['R-TICKETS-1'] });
    expect(other.statusCode).toBe(422);
    expect(other.body).toContain('id="tickets-err"');
    const voided = await c.post(`${desk}/R-TICKETS/refund`, { nonce, scope: 'tickets', tickets: ['R-TICKETS-2'] });
    expect(voided.statusCode).toBe(422);
    // an amount with "everything" is asked again, never guessed
    const both = await c.post(`${desk}/R-FORM/refund`, { nonce, scope: 'all', amount: '5' });
    expect(both.statusCode).toBe(422);
    expect(await stateOf('R-FORM')).toEqual(before);
  });

  it('refuses a form without its token and anyone who may not write orders (nothing changed)', async () => {
    const c = await signedIn(owner);
    const before = await stateOf('R-CSRF');
    const { nonce } = await refundForm(c, 'R-CSRF');
    const res = await c.post(`${desk}/R-CSRF/refund`, { nonce, scope: 'amount', amount: '5' }, { csrf: false });
    expect(res.statusCode).toBe(403);
    const forged = await c.post(
      `${desk}/R-CSRF/refund`,
      { csrf: 'forged', nonce, scope: 'amount', amount: '5' },
      { csrf: false },
    );
    expect(forged.statusCode).toBe(403);
    const viewer = await signedIn(viewerEmail);
    expect((await viewer.get(`${desk}/R-CSRF/refund`)).statusCode).toBe(404);
    await viewer.get(`${desk}/R-CSRF`);
    expect((await viewer.post(`${desk}/R-CSRF/refund`, { nonce, scope: 'amount', amount: '5' })).statusCode).toBe(404);
    expect(await stateOf('R-CSRF')).toEqual(before);
  });

  it('refunds once when the same form is sent twice at once', async () => {
    const c = await signedIn(owner);
    const { nonce } = await refundForm(c, 'R-TWICE');
    const send = () => c.post(`${desk}/R-TWICE/refund`, { nonce, scope: 'amount', amount: '7.50' });
    const [a, b] = await Promise.all([send(), send()]);
    expect([a.headers.location, b.headers.location].sort()).toEqual([
      `${desk}/R-TWICE?done=already-refunded`,
      `${desk}/R-TWICE?done=partly-refunded`,
    ]);
    expect((await stateOf('R-TWICE')).refunded_cents).toBe(750);
    // a new form is a new refund
    const next = await refundForm(c, 'R-TWICE');
    expect((await c.post(`${desk}/R-TWICE/refund`, { nonce: next.nonce, scope: 'amount', amount: '7.50' })).statusCode).toBe(303);
    expect((await stateOf('R-TWICE')).refunded_cents).toBe(1500);
  });

  it('refunding what is left after a ticket refund ends the order and releases each place once', async () => {
    const c = await signedIn(owner);
    const start = await stateOf('R-REST');
    let f = await refundForm(c, 'R-REST');
    await c.post(`${desk}/R-REST/refund`, { nonce: f.nonce, scope: 'tickets', tickets: ['R-REST-1'], amount: '20.00' });
    expect(await stateOf('R-REST')).toMatchObject({ refunded_cents: 2000, taken: start.taken - 1, status: 'paid' });
    f = await refundForm(c, 'R-REST');
    expect(f.page.body).not.toContain('id="t-R-REST-1"');
    const res = await c.post(`${desk}/R-REST/refund`, { nonce: f.nonce, scope: 'all' });
    expect(res.headers.location).toBe(`${desk}/R-REST?done=refunded`);
    const end = await stateOf('R-REST');
    expect(end).toMatchObject({ status: 'refunded', refunded_cents: 7500, taken: start.taken - 3 });
    expect(end.tickets.every((x) => x.status === 'voided')).toBe(true);
    expect(end.refunds.map((r) => r.amount_cents)).toEqual([2000, 5500]);
    const order = await c.get(`${desk}/R-REST`);
    expect(order.body).not.toContain(`href="${desk}/R-REST/refund"`);
  });

  it('sends the refund page of an order with nothing to give back to the order itself', async () => {
    const c = await signedIn(owner);
    const res = await c.get(`${desk}/R-PENDING/refund`);
    expect([res.statusCode, res.headers.location]).toEqual([303, `${desk}/R-PENDING`]);
    expect((await c.get(`${desk}/R-PENDING`)).body).not.toContain(`href="${desk}/R-PENDING/refund"`);
  });
});
