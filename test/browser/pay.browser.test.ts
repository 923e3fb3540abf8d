import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { seriousViolations, SHOTS, watchCsp } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp, type Seeded } from './browser-app.ts';
import { makeAccountFile, makeEvent } from '../factories.ts';

/**
 * A buyer in a real browser (Debian's Chromium driven by playwright-core): open the payment_url,
 * press Pay, land on the order page, see one QR code per ticket. Screenshots go to test-results/.
 */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;
let a: Seeded;

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      themes: [
        {
          name: 'Lantern',
          is_default: true,
          settings: {
            background_color: '#fbf7f0',
            accent_color: '#b4461b',
            heading_typeface: 'old_style',
            card_border_radius_px: 16,
          },
        },
        {
          name: 'Night',
          settings: {
            background_color: '#101418',
            text_color: '#f1f1f1',
            text_background_color: '#1b2128',
            accent_color: '#f2b705',
          },
        },
      ],
      events: [
        makeEvent({
          slug: 'gala',
          name: 'Harbour Gala',
          ticket_types: [{ key: 'ga', name: 'General admission', price: 2500, capacity: 50, tax_rate_bp: 700 }],
        }),
      ],
    }),
  });
  ({ t, browser, base } = app);
  a = app.seeded;
});
afterAll(() => app?.close());

async function createOrder(quantity: number): Promise<string> {
  const gaId = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'ga').executeTakeFirstOrThrow()).id;
  const res = await t.call(a.tokens.all, {
    method: 'POST',
    url: '/api/v1/events/gala/orders',
    payload: { items: [{ ticket_type_id: gaId, quantity }], email: 'buyer@example.org', name: 'Ada Lovelace' },
  });
  expect(res.statusCode).toBe(201);
  return res.json().payment_url;
}

describe('buying in a browser', () => {
  it('opens the payment_url, presses Pay, lands on the order page with one QR code per ticket', async () => {
    const paymentUrl = await createOrder(3);
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const refused = watchCsp(page);
    await page.goto(paymentUrl);
    await expect(page.getByRole('heading', { name: 'Harbour Gala' }).isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'pay-page.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: /Pay/ }).click();
    await page.waitForURL(/\/o\//);
    expect(page.url()).toMatch(new RegExp(`^${base}/o/`));
    await expect(page.getByRole('heading', { name: 'Your tickets' }).isVisible()).resolves.toBe(true);
    expect(await page.locator('.admit-ticket svg').count()).toBe(3);
    await page.screenshot({ path: path.join(SHOTS, 'order-page-lantern.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    // the same order page under another theme
    await t.ctx.db.updateTable('themes').set({ is_default: false }).execute();
    await t.ctx.db.updateTable('themes').set({ is_default: true }).where('name', '=', 'Night').execute();
    await page.reload();
    const bg = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(bg).toBe('rgb(16, 20, 24)');
    await page.screenshot({ path: path.join(SHOTS, 'order-page-night.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    const orderUrl = page.url();
    await page.close();

    // the pay and order pages at desktop width
    const desk = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await desk.goto(await createOrder(1));
    expect(await seriousViolations(desk)).toEqual([]);
    await desk.screenshot({ path: path.join(SHOTS, 'pay-page-desktop.png'), fullPage: true });
    await desk.goto(orderUrl);
    expect(await seriousViolations(desk)).toEqual([]);
    await desk.screenshot({ path: path.join(SHOTS, 'order-page-desktop.png'), fullPage: true });
    await desk.close();
    expect(refused).toEqual([]);
  });

  it("counts the hold down: the page's inline script runs under its CSP nonce", async () => {
    const paymentUrl = await createOrder(1);
    const { expires_at } = await t.ctx.db
      .selectFrom('orders')
      .select('expires_at')
      .where('access_secret', '=', paymentUrl.split('/').pop()!)
      .executeTakeFirstOrThrow();
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const refused = watchCsp(page);
    // the browser's clock ten minutes before the hold ends: the countdown shows from an hour before
    await page.clock.install({ time: new Date(expires_at!).getTime() - 10 * 60_000 });
    const res = await page.goto(paymentUrl);
    expect(res!.headers()['content-security-policy']).toMatch(/script-src 'self' 'nonce-[^']+'(;|$)/);
    const countdown = page.locator('[data-countdown]');
    await expect.poll(() => countdown.textContent()).toBe('10:00 left.');
    await page.clock.runFor(5_000);
    await expect.poll(() => countdown.textContent()).toBe('9:55 left.');
    // an injected inline script (which cannot know the nonce) does not run
    await page.evaluate(
      `{ const s = document.createElement('script'); s.textContent = 'window.injected = true'; document.body.append(s); }`,
    );
    expect(await page.evaluate('window.injected === true')).toBe(false);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(/Content Security Policy/);
    await page.close();
  });
});
