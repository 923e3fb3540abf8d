import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { screenshotBoth, seriousViolations, signInToConsole } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp } from './browser-app.ts';
import { makeAccountFile, makeEvent, makeOrder } from '../factories.ts';

/** A manager refunds one ticket of three in Chromium: a refusal first (too much), then the refund. */

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
          ticket_types: [{ key: 'ga', name: 'General admission', price: 2500, capacity: 300 }],
          orders: [
            makeOrder({
              ref: 'NIGHT-FAM',
              name: 'Katherine Johnson',
              email: 'katherine@example.org',
              lines: [
                {
                  kind: 'tickets',
                  ref: 'ga',
                  quantity: 3,
                  unit_price: 2500,
                  attendees: ['Katherine Johnson', 'Dorothy Vaughan', 'Mary Jackson'],
                },
              ],
              payments: [{ rail: 'sandbox', amount: 7500, at: '2026-11-01T10:05:00Z', fee: 0, provider_ref: 'sbx_fam' }],
            }),
          ],
        }),
      ],
    }),
  });
  ({ t, browser, base } = app);
});
afterAll(() => app?.close());

const signIn = (page: Page) => signInToConsole(page, base, MANAGER, /\/events$/);

async function accessible(page: Page, name: string) {
  expect(await seriousViolations(page), name).toEqual([]);
  await screenshotBoth(page, `console-${name}`);
  expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
    (page.viewportSize()?.width ?? 1280) + 1,
  );
}

describe('a partial refund in a browser', () => {
  it('refunds one chosen ticket with a reason; asks again, keeping the form, when the amount is too high', async () => {
    const page = await browser.newPage();
    await signIn(page);
    await page.goto(`${base}/console/a/lantern/events/night/orders/NIGHT-FAM`);
    await page.getByRole('link', { name: 'Refund…' }).click();
    await page.waitForURL(/NIGHT-FAM\/refund$/);
    await accessible(page, 'partial-refund-form');

    await page.getByLabel('Chosen tickets').check();
    await page.getByLabel(/NIGHT-FAM-2 · General admission · Dorothy Vaughan/).check();
    await page.getByLabel('Amount (EUR)').fill('80.00');
    await page.getByLabel(/Reason/).fill('Dorothy is ill');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.waitForLoadState();
    const amount = page.getByLabel('Amount (EUR)');
    expect(await amount.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#f-amount-err').textContent()).toBe('Only €75.00 is left to refund.');
    expect(await amount.inputValue()).toBe('80.00');
    expect(await page.getByLabel(/NIGHT-FAM-2/).isChecked()).toBe(true);
    expect(await page.getByLabel(/Reason/).inputValue()).toBe('Dorothy is ill');
    await accessible(page, 'partial-refund-refused');

    await amount.fill('');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.waitForURL(/done=partly-refunded/);
    expect(await page.getByRole('status').textContent()).toContain('Part of the order was refunded');
    expect(await page.locator('.big-line').textContent()).toContain('refunded €25.00');
    expect(await page.locator('ol.activity').textContent()).toContain(
      'Partly refunded €25.00; tickets void: NIGHT-FAM-2 (sandbox). Reason: Dorothy is ill',
    );
    expect(await page.locator('tr', { hasText: 'NIGHT-FAM-2' }).textContent()).toContain('voided');
    expect(await page.locator('tr', { hasText: 'NIGHT-FAM-1' }).textContent()).toContain('valid');
    await accessible(page, 'partial-refund-done');
    const order = await t.ctx.db.selectFrom('orders').selectAll().where('ref', '=', 'NIGHT-FAM').executeTakeFirstOrThrow();
    expect(order).toMatchObject({ status: 'paid', refunded_cents: 2500 });
    await page.close();
  });
});
