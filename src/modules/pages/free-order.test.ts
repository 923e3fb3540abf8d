import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';

/** A free event in the buyer's words: "Get tickets", then a confirmation that says free, never "payment" or "Paid". */

let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'open-day',
          starts_at: '2027-03-01T10:00:00Z',
          ticket_types: [{ key: 'entry', name: 'Entry', price: 0, capacity: 100 }],
        }),
        makeEvent({
          slug: 'paid-day',
          starts_at: '2027-03-02T10:00:00Z',
          ticket_types: [
            { key: 'entry', name: 'Entry', price: 0, capacity: 100 },
            { key: 'vip', name: 'VIP', price: 2500, capacity: 10 },
          ],
        }),
      ],
    }),
  );
});
afterAll(() => t.close());

const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

describe('a free event', () => {
  it('asks to get tickets, not to pay, and confirms the order rather than calling it paid (en, de)', async () => {
    const path = `/e/${a.slug}/open-day`;
    const page = await t.app.inject({ method: 'GET', url: path, headers: { 'accept-language': 'en' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<button type="submit">Get tickets</button>');
    expect(page.body).not.toContain('Continue to payment');
    const de = await t.app.inject({ method: 'GET', url: path, headers: { 'accept-language': 'de' } });
    expect(de.body).toContain('<button type="submit">Tickets sichern</button>');
    // an event that also sells paid tickets keeps "Continue to payment"
    const mixed = await t.app.inject({ method: 'GET', url: `/e/${a.slug}/paid-day`, headers: { 'accept-language': 'en' } });
    expect(mixed.body).toContain('Continue to payment');

    const qty = /name="(qty_\d+)"/.exec(page.body)![1]!;
    const res = await t.app.inject({
      method: 'POST',
      url: `${path}/checkout`,
      payload: new URLSearchParams({
        csrf: csrfOf(page.body),
        [qty]: '2',
        name: 'Ada Lovelace',
        email: 'ada@example.org',
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
      remoteAddress: '10.3.3.3',
    });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toMatch(/^\/o\//);
    const order = await t.app.inject({ method: 'GET', url: String(res.headers.location), headers: { 'accept-language': 'en' } });
    expect(order.statusCode).toBe(200);
    // the confirmation: going, and free, never "Paid"
    expect(order.body).toContain('You’re going!');
    expect(order.body).toMatch(/<dt>Total<\/dt>\s*<dd>Free<\/dd>/);
    expect(order.body).not.toMatch(/\bPaid\b/);
  });
});
