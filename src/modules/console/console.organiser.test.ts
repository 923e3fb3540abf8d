import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { ConsoleClient } from '../../../test/console-client.ts';
import { PW } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

/** What an organiser reads in the console: names on tickets, scans as they happened, counts, empty charts. */

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let listId: number;
const owner = 'owner@example.org';

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'words',
      users: [{ email: owner, role: 'owner', password: PW }],
      events: [
        makeEvent({
          slug: 'show',
          ticket_types: [{ key: 'ga', name: 'General', price: 2500, capacity: 100 }],
          checkin_lists: [{ key: 'main', name: 'Main gate' }],
          orders: [
            // no name per ticket: the ticket carries the buyer's, as its PDF prints it
            makeOrder({
              ref: 'SHOW-1',
              name: 'Grace Hopper',
              created_at: '2026-11-20T10:00:00Z',
              paid_at: '2026-11-20T10:01:00Z',
            }),
            makeOrder({
              ref: 'SHOW-2',
              name: 'Ada Lovelace',
              created_at: '2026-11-20T11:00:00Z',
              paid_at: '2026-11-20T11:01:00Z',
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 2500, attendees: ['Charles Babbage'] }],
            }),
          ],
        }),
        // sold and refunded the same day: a chart whose every bar is zero
        makeEvent({
          slug: 'empty',
          ticket_types: [{ key: 'ga', name: 'General', price: 2500, capacity: 10 }],
          orders: [
            makeOrder({
              ref: 'GONE-1',
              status: 'refunded',
              created_at: '2026-11-21T10:00:00Z',
              paid_at: '2026-11-21T10:01:00Z',
              refunds: [{ amount: 2500, at: '2026-11-21T12:00:00Z' }],
            }),
          ],
        }),
        makeEvent({
          slug: 'single',
          ticket_types: [
            { key: 'ga', name: 'General', price: 2500, capacity: 10 },
            { key: 'vip', name: 'VIP', price: 9000, capacity: 10 },
          ],
          discount_codes: [
            { code: 'FRIENDS', percent_off: 10, max_uses: 50, ticket_types: ['vip'] },
            { code: 'PRESS', amount_off: 500 },
          ],
          orders: [
            makeOrder({
              ref: 'ONE-1',
              created_at: '2026-11-21T10:00:00Z',
              paid_at: '2026-11-21T10:01:00Z',
              discounts: [{ code: 'PRESS', amount: 500 }],
            }),
          ],
        }),
      ],
    }),
  );
  const list = await t.ctx.db.selectFrom('checkin_lists').select('id').where('key', '=', 'main').executeTakeFirstOrThrow();
  listId = Number(list.id);
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

async function signedIn() {
  const c = new ConsoleClient(t.app);
  c.ip = '10.7.0.1';
  const res = await c.signIn(owner, PW);
  expect(res.statusCode, res.body).toBe(303);
  return c;
}
const ev = '/console/a/words/events/show';
const ticketId = async (ref: string) =>
  Number((await t.ctx.db.selectFrom('tickets').select('id').where('ref', '=', ref).executeTakeFirstOrThrow()).id);

describe('the console as an organiser reads it', () => {
  it('names every ticket: its attendee, else the buyer, on the desk, in the attendee CSV and in the scanner’s list', async () => {
    const c = await signedIn();
    const one = await c.get(`${ev}/orders/SHOW-1`);
    expect(one.body).toMatch(/<td>SHOW-1-1<\/td><td>General<\/td><td>Grace Hopper<\/td>/);
    const two = await c.get(`${ev}/orders/SHOW-2`);
    expect(two.body).toMatch(/<td>SHOW-2-1<\/td><td>General<\/td><td>Charles Babbage<\/td>/);
    const csv = (await c.get(`${ev}/orders.csv?kind=attendees`)).body.split('\r\n');
    // after the type: its seat (none here: the event is not seated), then the ticket's name and the buyer's
    expect(csv.find((l) => l.startsWith('SHOW-1-1,'))).toContain(',General,,Grace Hopper,Grace Hopper,');
    expect(csv.find((l) => l.startsWith('SHOW-2-1,'))).toContain(',General,,Charles Babbage,Ada Lovelace,');
    const sync = await t.call(acct.tokens.all, { method: 'GET', url: `/words/show/checkin_lists/${listId}/sync` });
    expect(sync.statusCode, sync.body).toBe(200);
    const names = Object.fromEntries(
      (sync.json() as { tickets: Array<{ reference: string; attendee_name: string }> }).tickets.map((x) => [
        x.reference,
        x.attendee_name,
      ]),
    );
    expect(names).toEqual({ 'SHOW-1-1': 'Grace Hopper', 'SHOW-2-1': 'Charles Babbage' });
  });

  it('says "offline" only of a scan that reached the server late, not of one uploaded as it was made', async () => {
    const now = t.clock.now().getTime();
    const upload = (device: string, ref: string, scannedAt: number) =>
      ticketId(ref).then((id) =>
        t.call(acct.tokens.all, {
          method: 'POST',
          url: `/words/show/checkin_lists/${listId}/checkins/batch`,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({
            device,
            checkins: [{ client_id: `${device}-${ref}`, scanned_at: new Date(scannedAt).toISOString(), ticket_id: id }],
          }),
        }),
      );
    expect((await upload('gate-a', 'SHOW-1-1', now - 2_000)).statusCode).toBe(200);
    expect((await upload('gate-b', 'SHOW-2-1', now - 3_600_000)).statusCode).toBe(200);
    const c = await signedIn();
    const live = await c.get(`${ev}/orders/SHOW-1`);
    expect(live.body).toContain('in · Main gate');
    expect(live.body).not.toContain('offline');
    const late = await c.get(`${ev}/orders/SHOW-2`);
    expect(late.body).toContain('(scanned offline, uploaded later)');
  });

  it('counts in words: "1 order", "1 ticket"; an empty chart labels its axis once', async () => {
    const c = await signedIn();
    const dash = await c.get('/console/a/words/events/single/dashboard?by=day');
    expect(dash.statusCode).toBe(200);
    expect(dash.body).toContain('from 1 order with payment');
    expect(dash.body).toContain('1 ticket on paid orders');
    expect((await c.get(`${ev}/dashboard?by=day`)).body).toContain('from 2 orders with payment');
    const empty = await c.get('/console/a/words/events/empty/dashboard?by=day');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).not.toMatch(/\b1 orders\b|\b1 tickets\b/);
    const axisLabels = [...empty.body.matchAll(/<text x="76" [^>]*class="tick">([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(axisLabels.length).toBeGreaterThan(0);
    expect(new Set(axisLabels).size).toBe(axisLabels.length);
  });

  it('lists discount codes with their uses, limit and ticket types; an empty tab links to adding one', async () => {
    const c = await signedIn();
    const codes = await c.get('/console/a/words/events/single/codes');
    expect(codes.statusCode).toBe(200);
    expect(codes.body).toContain('10% off · used 0 of 50 · only VIP');
    expect(codes.body).toContain('€5.00 off · used 1 time, no limit · every ticket type');
    const none = await c.get('/console/a/words/events/show/codes');
    expect(none.body).toContain('No discount codes yet. Discount codes take a percent or an amount off');
    expect(none.body).toContain('<a class="button" href="#add">Add the first discount code</a>');
    expect(none.body).toMatch(/<form method="post" action="[^"]+\/codes" class="card" id="add">/);
  });

  it('keeps the API out of the organiser’s reports', async () => {
    const c = await signedIn();
    for (const url of [`${ev}/reports`, `${ev}/reports/orders`]) {
      const res = await c.get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toContain('/api/v1');
    }
  });

  it('lists events with their net sales, as their dashboards count them', async () => {
    const c = await signedIn();
    const list = await c.get('/console/a/words/events');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('<th scope="col" class="num">Net sales</th>');
    const row = (slug: string) =>
      new RegExp(`data-sold="${slug}">(\\d+)</td>\\s*<td class="num">([^<]+)</td>`).exec(list.body)?.slice(1);
    expect(row('show')).toEqual(['2', '€50.00']);
    expect(row('single')).toEqual(['1', '€20.00']);
    expect(row('empty')).toEqual(['0', '€0.00']);
  });

  it('finds orders across all the account’s events from the header, by reference, ticket, email or name', async () => {
    const c = await signedIn();
    const home = await c.get('/console/a/words/events');
    expect(home.body).toMatch(/<form method="get" action="\/console\/a\/words\/orders" role="search"/);
    const refs = async (q: string) => {
      const res = await c.get(`/console/a/words/orders?q=${encodeURIComponent(q)}`);
      expect(res.statusCode).toBe(200);
      return [...res.body.matchAll(/href="\/console\/a\/words\/events\/([^/]+)\/orders\/([^"]+)"/g)].map(
        (m) => `${m[1]}/${m[2]}`,
      );
    };
    expect(await refs('one-1')).toEqual(['single/ONE-1']);
    expect(await refs('SHOW-2-1')).toEqual(['show/SHOW-2']);
    expect(await refs('lovelace')).toEqual(['show/SHOW-2']);
    expect((await refs('buyer')).length).toBe(0); // a name, not an email: no buyer is called that
    const grace = await refs('hopper');
    expect(grace).toEqual(['show/SHOW-1']);
    const none = await c.get('/console/a/words/orders?q=nobody%40nowhere.example');
    expect(none.body).toContain('No orders match');
  });
});
