import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeStaffedAccountFile, signedInAs } from '../../../test/console-account.ts';
import { makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

/** The orders desk: find, read, act, export; each role only what it may. */

let t: TestApp;
const people = {
  owner: 'owner@example.org',
  manager: 'manager@example.org',
  viewer: 'viewer@example.org',
  door: 'door@example.org',
} as const;

beforeAll(async () => {
  t = await createTestApp();
  await seedAccount(
    t.ctx,
    makeStaffedAccountFile(people, {
      slug: 'acme',
      events: [
        makeEvent({
          slug: 'gala',
          name: 'Gala',
          ticket_types: [
            { key: 'ga', name: 'General', price: 2500, capacity: 200 },
            { key: 'vip', name: 'VIP', price: 9000, capacity: 20 },
          ],
          orders: [
            ...Array.from({ length: 60 }, (_, i) =>
              makeOrder({
                ref: `GALA-${String(i + 1).padStart(3, '0')}`,
                name: `Guest ${i + 1}`,
                email: `guest${i + 1}@example.org`,
                created_at: new Date(Date.parse('2026-10-01T10:00:00Z') + i * 3_600_000).toISOString(),
                paid_at: new Date(Date.parse('2026-10-01T10:05:00Z') + i * 3_600_000).toISOString(),
              }),
            ),
            makeOrder({
              ref: 'GALA-ADA',
              name: 'Ada Lovelace',
              email: 'ada@example.org',
              created_at: '2026-11-20T10:00:00Z',
              paid_at: '2026-11-20T10:01:00Z',
              lines: [{ kind: 'tickets', ref: 'vip', quantity: 2, unit_price: 9000, attendees: ['Ada', 'Charles'] }],
              payments: [{ rail: 'sandbox', amount: 18000, at: '2026-11-20T10:01:00Z', fee: 0, provider_ref: 'sbx_ada' }],
            }),
            makeOrder({
              ref: 'GALA-PEND',
              name: 'Pat Pending',
              email: 'pat@example.org',
              status: 'pending',
              created_at: '2026-11-22T11:00:00Z',
              paid_at: undefined,
              payments: [],
            }),
          ],
        }),
        makeEvent({ slug: 'other', orders: [makeOrder({ ref: 'OTHER-1' })] }),
      ],
    }),
  );
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

const signedIn = (role: keyof typeof people) => signedInAs(t.app, people, role, '10.4.0');
const desk = '/console/a/acme/events/gala/orders';
const refsIn = (body: string) =>
  [...body.matchAll(/href="\/console\/a\/acme\/events\/gala\/orders\/([^"?/]+)"/g)].map((m) => m[1]);
const orderOf = (ref: string) => t.ctx.db.selectFrom('orders').selectAll().where('ref', '=', ref).executeTakeFirstOrThrow();
const logOf = async (ref: string) =>
  t.ctx.db
    .selectFrom('order_log')
    .select(['action', 'data'])
    .where('order_id', '=', (await orderOf(ref)).id)
    .orderBy('id')
    .execute();

describe('the orders desk', () => {
  it('lists newest first in pages of 50 with a next-page link that loses and repeats nothing', async () => {
    const c = await signedIn('viewer');
    const first = await c.get(desk);
    expect(first.statusCode).toBe(200);
    const page1 = refsIn(first.body);
    expect(page1).toHaveLength(50);
    expect(page1.slice(0, 3)).toEqual(['GALA-PEND', 'GALA-ADA', 'GALA-060']);
    const next = /href="([^"]+after=[^"]+)"/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    const second = await c.get(next);
    const page2 = refsIn(second.body);
    expect(page2).toHaveLength(12);
    expect(new Set([...page1, ...page2]).size).toBe(62);
    expect(second.body).not.toContain('Older orders');
    expect(second.body).toContain('Newest orders');
  });

  it('finds by email, name, order and ticket reference; filters by status, type and dates; says why a filter is wrong', async () => {
    const c = await signedIn('viewer');
    expect(refsIn((await c.get(`${desk}?q=ada%40example`)).body)).toEqual(['GALA-ADA']);
    expect(refsIn((await c.get(`${desk}?q=lovelace`)).body)).toEqual(['GALA-ADA']);
    expect(refsIn((await c.get(`${desk}?q=gala-ada-2`)).body)).toEqual(['GALA-ADA']);
    expect(refsIn((await c.get(`${desk}?q=GALA-007`)).body)).toEqual(['GALA-007']);
    expect(refsIn((await c.get(`${desk}?status=pending`)).body)).toEqual(['GALA-PEND']);
    expect(refsIn((await c.get(`${desk}?ticket_type=vip`)).body)).toEqual(['GALA-ADA']);
    expect(refsIn((await c.get(`${desk}?from=2026-11-20&to=2026-11-21`)).body)).toEqual(['GALA-ADA']);
    expect((await c.get(`${desk}?q=OTHER-1`)).body).toContain('No orders match these filters.');
    const bad = await c.get(`${desk}?from=2026-02-30`);
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toMatch(/id="f-from"[^>]*aria-invalid="true"/);
    expect(bad.body).toContain('Must be a date, YYYY-MM-DD.');
  });

  it('shows an order with its lines, payments, tickets and activity; another event’s order is 404', async () => {
    const c = await signedIn('viewer');
    const page = await c.get(`${desk}/GALA-ADA`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Ada Lovelace');
    expect(page.body).toContain('GALA-ADA-2');
    expect(page.body).toContain('€180.00');
    expect(page.body).toContain('Activity');
    // a viewer reads, and is offered no action
    expect(page.body).not.toContain('Save buyer');
    expect(page.body).not.toContain('Refund');
    expect((await c.get('/console/a/acme/events/gala/orders/OTHER-1')).statusCode).toBe(404);
    expect((await c.get('/console/a/acme/events/gala/orders/NOPE')).statusCode).toBe(404);
  });

  it('keeps the desk from door staff, and every action from viewers (404, nothing changed)', async () => {
    const door = await signedIn('door');
    expect((await door.get(desk)).statusCode).toBe(404);
    expect((await door.get(`${desk}.csv`)).statusCode).toBe(404);
    const viewer = await signedIn('viewer');
    await viewer.get(`${desk}/GALA-PEND`);
    for (const action of ['buyer', 'resend', 'cancel', 'refund'])
      expect((await viewer.post(`${desk}/GALA-PEND/${action}`, { name: 'X' })).statusCode, action).toBe(404);
    expect((await orderOf('GALA-PEND')).status).toBe('pending');
  });

  it('edits the buyer (errors beside the field), resends, cancels, and logs who did it', async () => {
    const c = await signedIn('manager');
    await c.get(`${desk}/GALA-PEND`);
    const bad = await c.post(`${desk}/GALA-PEND/buyer`, { name: 'Pat P.', email: 'not-an-email' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toMatch(/id="f-email"[^>]*aria-invalid="true"/);
    expect(bad.body).toContain('value="Pat P."');
    expect((await orderOf('GALA-PEND')).name).toBe('Pat Pending');

    const ok = await c.post(`${desk}/GALA-PEND/buyer`, { name: 'Pat Paid-Later', email: 'pat@example.org' });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe(`${desk}/GALA-PEND?done=buyer`);
    expect((await orderOf('GALA-PEND')).name).toBe('Pat Paid-Later');

    await c.get(`${desk}/GALA-PEND`);
    expect((await c.post(`${desk}/GALA-PEND/resend`, {})).headers.location).toContain('done=resent-link');
    expect((await c.post(`${desk}/GALA-PEND/cancel`, {})).headers.location).toContain('done=canceled');
    expect((await orderOf('GALA-PEND')).status).toBe('canceled');
    // canceling again: the service's refusal, shown on the order page
    const again = await c.post(`${desk}/GALA-PEND/cancel`, {});
    expect(again.statusCode).toBe(422);
    expect(again.body).toContain('class="flash bad"');
    expect((await logOf('GALA-PEND')).map((l) => [l.action, (l.data as { by?: string }).by])).toEqual(
      expect.arrayContaining([
        ['buyer_changed', people.manager],
        ['resent', people.manager],
        ['canceled', people.manager],
      ]),
    );
    const page = await c.get(`${desk}/GALA-PEND`);
    expect(page.body).toContain(`Canceled <span class="muted">· ${people.manager}</span>`);
    // without the form token nothing happens
    expect((await c.post(`${desk}/GALA-ADA/resend`, {}, { csrf: false })).statusCode).toBe(403);
  });

  it('refunds after a confirmation page, once however often the button is pressed', async () => {
    const c = await signedIn('owner');
    const page = await c.get(`${desk}/GALA-ADA`);
    expect(page.body).toContain(`href="${desk}/GALA-ADA/refund"`);
    const confirm = await c.get(`${desk}/GALA-ADA/refund`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Everything left: €180.00');
    expect((await orderOf('GALA-ADA')).status).toBe('paid');
    const [a, b] = await Promise.all([c.post(`${desk}/GALA-ADA/refund`, {}), c.post(`${desk}/GALA-ADA/refund`, {})]);
    expect([a.headers.location, b.headers.location].sort()).toEqual([
      `${desk}/GALA-ADA?done=already-refunded`,
      `${desk}/GALA-ADA?done=refunded`,
    ]);
    const order = await orderOf('GALA-ADA');
    expect(order.status).toBe('refunded');
    expect(order.refunded_cents).toBe(18000);
    expect(await t.ctx.db.selectFrom('refunds').select('id').where('order_id', '=', order.id).execute()).toHaveLength(1);
    expect((await logOf('GALA-ADA')).filter((l) => l.action === 'refunded').map((l) => (l.data as { by?: string }).by)).toEqual([
      people.owner,
    ]);
    const after = await c.get(`${desk}/GALA-ADA?done=refunded`);
    expect(after.body).toContain('Refunded. The buyer is told by mail.');
    expect(after.body).not.toContain(`href="${desk}/GALA-ADA/refund"`);
  });

  it('issues a complimentary order once however often the form is sent, with its reason in the log', async () => {
    const c = await signedIn('manager');
    const form = await c.get(`${desk}/new`);
    expect(form.statusCode).toBe(200);
    const nonce = /name="nonce" value="([^"]+)"/.exec(form.body)![1]!;
    const ga = /name="(qty_\d+)"/.exec(form.body)![1]!;
    const empty = await c.post(`${desk}/new`, { nonce, [ga]: '0', email: 'guest@example.org', reason: 'Press' });
    expect(empty.statusCode).toBe(422);
    expect(empty.body).toContain('Choose at least one ticket.');
    const noReason = await c.post(`${desk}/new`, { nonce, [ga]: '2', email: 'guest@example.org', reason: ' ' });
    expect(noReason.statusCode).toBe(422);
    expect(noReason.body).toMatch(/id="f-reason"[^>]*aria-invalid="true"/);
    expect(noReason.body).toContain('value="2"');

    const send = () =>
      c.post(`${desk}/new`, {
        nonce,
        [ga]: '2',
        name: 'Press Person',
        email: 'press@example.org',
        reason: 'Review in the Courier',
      });
    const [a, b] = await Promise.all([send(), send()]);
    expect(a.statusCode).toBe(303);
    expect(b.statusCode).toBe(303);
    expect(a.headers.location).toBe(b.headers.location);
    const ref = /orders\/([^?]+)\?done=comp$/.exec(String(a.headers.location))![1]!;
    const comps = await t.ctx.db.selectFrom('orders').selectAll().where('email', '=', 'press@example.org').execute();
    expect(comps).toHaveLength(1);
    expect(comps[0]).toMatchObject({ ref, status: 'paid', total_cents: 0, channel: 'console', ticket_units: 2 });
    expect(await t.ctx.db.selectFrom('tickets').select('id').where('order_id', '=', comps[0]!.id).execute()).toHaveLength(2);
    const created = (await logOf(ref)).find((l) => l.action === 'created')!;
    expect(created.data).toMatchObject({ comp: true, reason: 'Review in the Courier', by: people.manager });
    const page = await c.get(`${desk}/${ref}?done=comp`);
    expect(page.body).toContain('Complimentary order issued: Review in the Courier');
    const viewer = await signedIn('viewer');
    expect((await viewer.get(`${desk}/new`)).statusCode).toBe(404);
  });

  it('exports the filtered set as CSV with the session', async () => {
    const c = await signedIn('viewer');
    const res = await c.get(`${desk}.csv?kind=attendees&q=GALA-007`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = res.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^GALA-007-1,GALA-007,paid,valid,General,/);
  });
});
