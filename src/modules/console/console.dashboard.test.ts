import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { inGerman, leftoverEnglish } from '../../../test/console-german.ts';
import { makeStaffedAccountFile, signedInAs } from '../../../test/console-account.ts';
import { makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { niceStep } from './charts.view.ts';

/** The event dashboard: figures from the report counters, an SVG chart with its numbers, by day, week or month. */

let t: TestApp;
const people = { manager: 'manager@example.org', viewer: 'viewer@example.org', door: 'door@example.org' } as const;

const sale = (ref: string, at: string, amount: number, over: Parameters<typeof makeOrder>[0] = {}) =>
  makeOrder({
    ref,
    created_at: at,
    paid_at: at,
    lines: [{ kind: 'tickets', ref: 'ga', quantity: amount / 2500, unit_price: 2500 }],
    payments: [{ rail: 'sandbox', amount, at, fee: 0, provider_ref: `sbx_${ref}` }],
    ...over,
  });

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
          timezone: 'Europe/Berlin',
          ticket_types: [{ key: 'ga', name: 'General', price: 2500, capacity: 100 }],
          checkin_lists: [{ key: 'main', name: 'Main door' }],
          orders: [
            // 23:30 UTC on 2 Nov is 3 Nov in Berlin: the day of payment is the event's local day
            sale('GALA-1', '2026-11-02T23:30:00Z', 5000),
            sale('GALA-2', '2026-11-03T09:00:00Z', 2500),
            sale('GALA-3', '2026-11-10T09:00:00Z', 7500),
            // a free ticket: tickets sold, no money
            makeOrder({
              ref: 'GALA-FREE',
              created_at: '2026-11-03T12:00:00Z',
              paid_at: '2026-11-03T12:00:00Z',
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 0 }],
              payments: [],
            }),
            makeOrder({
              ref: 'GALA-HOLD',
              status: 'pending',
              created_at: '2026-11-22T11:00:00Z',
              paid_at: undefined,
              payments: [],
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 2500 }],
            }),
          ],
        }),
      ],
    }),
  );
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

const signedIn = (role: keyof typeof people) => signedInAs(t.app, people, role, '10.5.0');
const dash = '/console/a/acme/events/gala/dashboard';
/** The rows of the chart's number table: [bucket, orders, net, refunded]. */
const numbers = (body: string) =>
  [
    ...body.matchAll(
      /<tr>\s*<th scope="row">([^<]+)<\/th>\s*<td class="num">([^<]+)<\/td>\s*<td class="num">([^<]+)<\/td>\s*<td class="num">([^<]+)<\/td>/g,
    ),
  ].map((m) => m.slice(1, 5));

/** The rows of the tickets chart's table: [bucket, tickets]. */
const tickets = (body: string) =>
  [...body.matchAll(/<tr>\s*<th scope="row">([^<]+)<\/th>\s*<td class="num">([^<]+)<\/td>\s*<\/tr>/g)].map((m) => m.slice(1, 3));

describe('the event dashboard', () => {
  it('charts net sales by the local day of payment, every day from the first sale to today, with its numbers', async () => {
    const c = await signedIn('viewer');
    const res = await c.get(dash);
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/<svg viewBox="0 0 800 260" role="img" aria-labelledby="sales-t sales-d"/);
    const rows = numbers(res.body);
    // 3 Nov to 22 Nov (the test clock's today): 20 days, most of them empty
    expect(rows).toHaveLength(20);
    expect(rows[0]).toEqual(['3 Nov', '2', '€75.00', '€0.00']);
    expect(rows.find((r) => r[0] === '10 Nov')).toEqual(['10 Nov', '1', '€75.00', '€0.00']);
    expect(rows.find((r) => r[0] === '4 Nov')).toEqual(['4 Nov', '0', '€0.00', '€0.00']);
    expect(res.body).toContain('€150.00 from 3 orders with payment');
    expect(res.body).toMatch(/Tickets sold<\/span><strong>7<\/strong>/);
    expect(res.body).toContain('€25.00');
    expect(res.body).toContain('1 order on hold');
    expect(res.body).toContain('Main door: 0 of 7');
    // tickets by the day of payment: the free ticket counts here, not among orders with payment
    expect(tickets(res.body).slice(0, 2)).toEqual([
      ['3 Nov', '4'],
      ['4 Nov', '0'],
    ]);
    expect(tickets(res.body).find((r) => r[0] === '10 Nov')).toEqual(['10 Nov', '3']);
    expect(res.body).toMatch(/<svg viewBox="0 0 800 260" role="img" aria-labelledby="tickets-t tickets-d"/);
  });

  it("says its charts' words in German to a person who chose it", async () => {
    const c = await signedIn('manager');
    await inGerman(c, async () => {
      const res = await c.get(dash);
      expect(res.body).toContain('<summary>Die Zahlen</summary>');
      expect(res.body).toMatch(/aria-label="[^"]+: die Zahlen"/);
      expect(leftoverEnglish(res.body, ['The numbers', 'the numbers'])).toEqual([]);
    });
  });

  it('groups by week (from Monday) and by month', async () => {
    const c = await signedIn('manager');
    const weeks = numbers((await c.get(`${dash}?by=week`)).body);
    expect(weeks.map((r) => r.slice(0, 3))).toEqual([
      ['2 Nov', '2', '€75.00'],
      ['9 Nov', '1', '€75.00'],
      ['16 Nov', '0', '€0.00'],
    ]);
    const months = numbers((await c.get(`${dash}?by=month`)).body);
    expect(months).toEqual([['Nov 2026', '3', '€150.00', '€0.00']]);
    // an unknown grouping is the default, by day
    expect(numbers((await c.get(`${dash}?by=year`)).body)).toHaveLength(20);
  });

  it('shows a refund at once: net sales drop, the refund is named', async () => {
    const c = await signedIn('manager');
    await c.get('/console/a/acme/events/gala/orders/GALA-3');
    expect((await c.post('/console/a/acme/events/gala/orders/GALA-3/refund', {})).headers.location).toContain('done=refunded');
    const res = await c.get(dash);
    expect(res.body).toContain('after €75.00 refunded');
    expect(numbers(res.body).find((r) => r[0] === '10 Nov')).toEqual(['10 Nov', '1', '€0.00', '€75.00']);
    expect(tickets(res.body).find((r) => r[0] === '10 Nov')).toEqual(['10 Nov', '0']);
  });

  it('is not for door staff', async () => {
    const c = await signedIn('door');
    expect((await c.get(dash)).statusCode).toBe(404);
  });

  it('puts gridlines on round numbers', () => {
    expect(niceStep(100_00)).toBe(5000);
    expect(niceStep(8000)).toBe(2000);
    expect(niceStep(7)).toBe(2);
    expect(niceStep(0)).toBe(1);
    expect(niceStep(130_000)).toBe(50_000);
  });
});
