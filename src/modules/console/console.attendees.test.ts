import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { ConsoleClient } from '../../../test/console-client.ts';
import { PW } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

/** Staff name attendees and pass tickets on from the order desk; the event form edits the self-service rules. */

let t: TestApp;
const owner = 'owner@example.org';
const viewerEmail = 'viewer@example.org';

beforeAll(async () => {
  t = await createTestApp();
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'deskacct',
      users: [
        { email: owner, role: 'owner', password: PW },
        { email: viewerEmail, role: 'viewer', password: PW },
      ],
      events: [
        makeEvent({
          slug: 'show',
          ticket_types: [{ key: 'ga', name: 'General', price: 2500, capacity: 100 }],
          orders: [
            makeOrder({
              ref: 'DESK-1',
              name: 'Ada Lovelace',
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 2, unit_price: 2500 }],
              payments: [{ rail: 'sandbox', amount: 5000, at: '2026-11-01T10:05:00Z', fee: 0, provider_ref: 'sbx_d1' }],
            }),
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
  c.ip = email === owner ? '10.8.0.1' : '10.8.0.2';
  expect((await c.signIn(email, PW)).statusCode).toBe(303);
  return c;
}
/** The edit form's version, unescaped (an ETag carries quotes). */
const etagIn = (body: string) => (/name="etag" value="([^"]+)"/.exec(body)?.[1] ?? '').replace(/&quot;|&#34;|&#x22;/g, '"');
const desk = '/console/a/deskacct/events/show/orders/DESK-1';
const tickets = () =>
  t.ctx.db
    .selectFrom('tickets as t')
    .innerJoin('orders as o', 'o.id', 't.order_id')
    .select(['t.ref', 't.attendee_name', 't.attendee_email', 't.qr_token', 't.holder_secret'])
    .where('o.ref', '=', 'DESK-1')
    .orderBy('t.position')
    .execute();

describe('the order desk', () => {
  it('names an attendee and passes a ticket on, in the activity; a viewer may not', async () => {
    const c = await signedIn(owner);
    const page = await c.get(desk);
    expect(page.body).toContain('Attendee of a ticket');
    const [first, second] = await tickets();
    const named = await c.post(`${desk}/attendee`, { ticket: first!.ref, name: 'Grace', email: '' });
    expect(named.statusCode, named.body).toBe(303);
    expect(named.headers.location).toContain('done=attendee');
    const bad = await c.post(`${desk}/transfer`, { ticket: second!.ref, name: 'Linus', email: '' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('value="Linus"');
    const moved = await c.post(`${desk}/transfer`, { ticket: second!.ref, name: 'Linus', email: 'linus@example.org' });
    expect(moved.statusCode).toBe(303);
    const [a, b] = await tickets();
    expect(a).toMatchObject({ attendee_name: 'Grace', holder_secret: null, qr_token: first!.qr_token });
    expect(b).toMatchObject({ attendee_name: 'Linus', attendee_email: 'linus@example.org' });
    expect(b!.qr_token).not.toBe(second!.qr_token);
    const after = await c.get(desk);
    expect(after.body).toContain('Attendee of ' + first!.ref + ' named: Grace');
    expect(after.body).toContain(`Ticket ${second!.ref} passed on to Linus`);
    expect(after.body).toContain('passed on');

    const v = await signedIn(viewerEmail);
    await v.get(desk);
    expect((await v.post(`${desk}/attendee`, { ticket: first!.ref, name: 'Eve', email: '' })).statusCode).toBe(404);
    expect((await c.post(`${desk}/attendee`, { ticket: first!.ref, name: 'Eve' }, { csrf: false })).statusCode).toBe(403);
    expect((await tickets())[0]!.attendee_name).toBe('Grace');
  });
});

describe('the event form', () => {
  it('saves the self-service rules into the event document and reads them back', async () => {
    const c = await signedIn(owner);
    const url = '/console/a/deskacct/events/show';
    const page = await c.get(url);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('name="ss_cancel_until"');
    const form: Record<string, string> = {
      name: 'Show',
      timezone: 'Europe/Berlin',
      starts_at: '2027-03-15T19:00',
      locale: 'en',
      ss_form: '1',
      ss_names: '1',
      ss_transfer: '1',
      ss_cancel_until: '2027-03-01T12:00',
      ss_cancel_fee: '15',
    };
    Object.assign(form, { etag: etagIn(page.body) });
    const bad = await c.post(url, { ...form, ss_cancel_fee: '150' });
    expect(bad.statusCode).toBe(422);
    const ok = await c.post(url, form);
    expect(ok.statusCode, ok.body).toBe(303);
    const e = await t.ctx.db.selectFrom('events').select('self_service').where('slug', '=', 'show').executeTakeFirstOrThrow();
    expect(e.self_service).toEqual({ transfer: true, cancel_until: '2027-03-01T11:00:00Z', cancel_fee_percent: 15 });
    const again = await c.get(url);
    expect(again.body).toContain('value="2027-03-01T12:00"');
    form.etag = etagIn(again.body);
    // nothing ticked or given: off
    const { ss_names: _n, ss_transfer: _t, ss_cancel_until: _c, ss_cancel_fee: _f, ...off } = form;
    expect((await c.post(url, off)).statusCode).toBe(303);
    expect(
      (await t.ctx.db.selectFrom('events').select('self_service').where('slug', '=', 'show').executeTakeFirstOrThrow())
        .self_service,
    ).toBeNull();
  });
});
