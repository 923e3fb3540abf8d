import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeStaffedAccountFile, signedInAs } from '../../../test/console-account.ts';
import { makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { readScattered } from '../../platform/db/scattered-reads.ts';

// The console's events list: each event's tickets sold, net sales and capacity, read from the
// counters the orders' triggers keep, in one statement planned for cold pages (readScattered).

let t: TestApp;
const people = { manager: 'm@example.org', viewer: 'v@example.org', door: 'd@example.org' } as const;

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  const two = { lines: [{ kind: 'tickets' as const, ref: 'ga', quantity: 2, unit_price: 2500 }] };
  await seedAccount(
    t.ctx,
    makeStaffedAccountFile(people, {
      slug: 'lists',
      events: [
        makeEvent({
          slug: 'later',
          name: 'Later',
          starts_at: '2027-06-01T18:00:00Z',
          orders: [
            makeOrder({
              ...two,
              payments: [{ rail: 'sandbox', amount: 5000, at: '2026-11-01T10:05:00Z', fee: 0, provider_ref: 'sbx_l1' }],
            }),
            makeOrder(),
            // pending: holds a unit but took no money, so neither sold nor net
            makeOrder({ status: 'pending', paid_at: undefined, payments: [] }),
          ],
        }),
        makeEvent({
          slug: 'sooner',
          name: 'Sooner',
          starts_at: '2027-01-10T18:00:00Z',
          ticket_types: [
            { key: 'ga', name: 'General admission', price: 2500, capacity: 40, tax_rate_bp: 700 },
            { key: 'vip', name: 'VIP', price: 9000, tax_rate_bp: 700 },
          ],
        }),
        makeEvent({
          slug: 'gone',
          name: 'Gone',
          starts_at: '2026-10-01T18:00:00Z',
          orders: [
            makeOrder({
              created_at: '2026-09-01T10:00:00Z',
              paid_at: '2026-09-01T10:05:00Z',
              payments: [{ rail: 'sandbox', amount: 2500, at: '2026-09-01T10:05:00Z', fee: 0, provider_ref: 'sbx_g1' }],
            }),
          ],
        }),
        makeEvent({ slug: 'earlier', name: 'Earlier', starts_at: '2026-08-01T18:00:00Z' }),
      ],
    }),
  );
});
afterAll(() => t.close());

/** The list's rows: slug, sold, net sales and capacity cells as shown. */
function rowsOf(body: string): Array<[string, string, string, string]> {
  return [
    ...body.matchAll(
      /<tr>\s*<td>\s*<a href="[^"]*\/events\/([a-z-]+)">[\s\S]*?data-sold="[^"]+">([^<]*)<\/td>\s*<td class="num">([^<]*)<\/td>\s*<td class="num">([^<]*)<\/td>/g,
    ),
  ].map((m) => [m[1]!, m[2]!, m[3]!, m[4]!]);
}

describe('console events list', () => {
  it("shows each event's tickets sold, net sales and capacity, upcoming soonest first, then past latest first", async () => {
    const c = await signedInAs(t.app, people, 'viewer', '10.3.0');
    const res = await c.get('/console/a/lists/events');
    expect(res.statusCode).toBe(200);
    expect(rowsOf(res.body)).toEqual([
      ['sooner', '0', '€0.00', '∞'],
      ['later', '3', '€75.00', '100'],
      ['gone', '1', '€25.00', '100'],
      ['earlier', '0', '€0.00', '100'],
    ]);
  });
});

describe('readScattered', () => {
  it('plans its reads as bitmap scans with prefetching, for its own transaction only', async () => {
    const settings = (db: typeof t.ctx.db) =>
      sql<{ indexscan: string; io: string }>`select current_setting('enable_indexscan') indexscan,
        current_setting('effective_io_concurrency')::int io`.execute(db);
    const before = (await settings(t.ctx.db)).rows[0]!;
    const inside = (await readScattered(t.ctx.db, settings)).rows[0]!;
    if (Number(before.io) > 0) {
      expect(inside.indexscan).toBe('off');
      expect(Number(inside.io)).toBeGreaterThanOrEqual(64);
    } else {
      // a server that cannot prefetch keeps its own plans
      expect(inside).toEqual(before);
    }
    expect((await settings(t.ctx.db)).rows[0]).toEqual(before);
  });
});
