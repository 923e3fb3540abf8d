import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { screenshotBoth, seriousViolations, signInToConsole } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp } from './browser-app.ts';
import { makeAccountFile, makeEvent, makeOrder } from '../factories.ts';

/** A manager's day at the orders desk in Chromium: find an order by email, refund it, see it on the dashboard. */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;
const MANAGER = { email: 'manager@example.org', password: 'manager password 1' };

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      slug: 'lantern',
      users: [{ ...MANAGER, name: 'Mona Manager', role: 'manager' }],
      events: [
        makeEvent({
          slug: 'night',
          name: 'Harbour Night',
          ticket_types: [
            { key: 'ga', name: 'General admission', price: 2500, capacity: 300 },
            { key: 'vip', name: 'VIP', price: 9000, capacity: 20 },
          ],
          checkin_lists: [{ key: 'main', name: 'Main gate' }],
          orders: [
            ...Array.from({ length: 14 }, (_, i) =>
              makeOrder({
                ref: `NIGHT-${100 + i}`,
                name: ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Edsger Dijkstra', 'Barbara Liskov'][i % 5],
                email: `buyer${i}@example.org`,
                created_at: new Date(Date.parse('2026-11-01T10:00:00Z') + i * 86_400_000).toISOString(),
                paid_at: new Date(Date.parse('2026-11-01T10:01:00Z') + i * 86_400_000).toISOString(),
                lines: [{ kind: 'tickets', ref: 'ga', quantity: 1 + (i % 3), unit_price: 2500 }],
                payments: [
                  {
                    rail: 'sandbox',
                    amount: 2500 * (1 + (i % 3)),
                    at: new Date(Date.parse('2026-11-01T10:01:00Z') + i * 86_400_000).toISOString(),
                    fee: 0,
                    provider_ref: `sbx_${i}`,
                  },
                ],
              }),
            ),
            makeOrder({
              ref: 'NIGHT-KAT',
              name: 'Katherine Johnson',
              email: 'katherine@example.org',
              created_at: '2026-11-20T18:00:00Z',
              paid_at: '2026-11-20T18:01:00Z',
              lines: [
                {
                  kind: 'tickets',
                  ref: 'vip',
                  quantity: 2,
                  unit_price: 9000,
                  attendees: ['Katherine Johnson', 'Dorothy Vaughan'],
                },
              ],
              payments: [{ rail: 'sandbox', amount: 18000, at: '2026-11-20T18:01:00Z', fee: 0, provider_ref: 'sbx_kat' }],
            }),
          ],
        }),
      ],
    }),
  });
  ({ t, browser, base } = app);
});
beforeEach(() => t.clock.advance(61_000));
afterAll(() => app?.close());

const signIn = (page: Page) => signInToConsole(page, base, MANAGER, /\/events$/);

async function accessible(page: Page, name: string) {
  expect(await seriousViolations(page), name).toEqual([]);
  await screenshotBoth(page, `console-${name}`);
}

describe('the orders desk in a browser', () => {
  it('finds an order by email, refunds it after confirming, and the dashboard shows the refund', async () => {
    const page = await browser.newPage();
    await signIn(page);
    await page.goto(`${base}/console/a/lantern/events/night/dashboard`);
    const netBefore = await page.locator('.stat-card').first().locator('strong').textContent();
    expect(netBefore).toBe('€855.00');
    await accessible(page, 'dashboard');
    await page.getByRole('link', { name: 'By week' }).click();
    await page.waitForURL(/by=week/);
    await page.locator('summary', { hasText: 'The numbers' }).first().click();
    expect(await page.locator('figure').first().locator('table tbody tr').count()).toBeGreaterThan(1);
    expect(await page.getByRole('img', { name: /Tickets sold by week/ }).count()).toBe(1);

    await page.getByRole('link', { name: 'Orders', exact: true }).click();
    await accessible(page, 'orders');
    await page.getByLabel('Search', { exact: true }).fill('katherine@example');
    await page.getByRole('button', { name: 'Find orders' }).click();
    await page.waitForURL(/q=katherine/);
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    await page.getByRole('link', { name: 'NIGHT-KAT' }).click();
    await page.waitForURL(/orders\/NIGHT-KAT$/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Order NIGHT-KAT');
    await accessible(page, 'order');

    await page.getByRole('link', { name: 'Refund…' }).click();
    await accessible(page, 'refund-confirm');
    expect(await page.getByLabel('Everything left: €180.00').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.waitForURL(/done=refunded/);
    expect(await page.getByRole('status').textContent()).toContain('Refunded');
    expect(await page.locator('.big-line').textContent()).toContain('refunded €180.00');
    expect(await page.locator('ol.activity').textContent()).toContain(`Refunded €180.00 (sandbox)`);
    expect(await page.locator('ol.activity').textContent()).toContain(MANAGER.email);

    await page.getByRole('link', { name: 'Dashboard' }).click();
    expect(await page.locator('.stat-card').first().textContent()).toContain('after €180.00 refunded');
    expect(await page.locator('.stat-card').first().locator('strong').textContent()).toBe('€675.00');

    // and in the income report, by month
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByLabel('Range', { exact: true }).selectOption('all');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/range=all/);
    const refunded = page.locator('.stat-card', { hasText: 'Refunded' });
    expect(await refunded.locator('strong').textContent()).toBe('€180.00');
    expect(await page.locator('tr', { hasText: 'November 2026' }).textContent()).toContain('€180.00');
    await accessible(page, 'income');
    await page.getByRole('link', { name: 'Orders report' }).click();
    await page.getByLabel('Group by').selectOption('status');
    await page.getByLabel('Range', { exact: true }).selectOption('all');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/group=status/);
    expect(await page.locator('tbody tr', { hasText: 'refunded' }).locator('td').first().textContent()).toBe('1');
    await page.getByLabel('Save this report as').fill('By status');
    await page.getByRole('button', { name: 'Save report' }).click();
    await page.waitForURL(/done=saved/);
    expect(await page.getByRole('link', { name: 'By status' }).count()).toBe(1);
    await accessible(page, 'orders-report');
    await page.close();
  });
});
