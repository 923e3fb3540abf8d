import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { screenshotBoth, seriousViolations, watchCsp } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp } from './browser-app.ts';
import { makeAccountFile, makeEvent } from '../factories.ts';

/**
 * The on-sale queue in Debian's Chromium: the waiting room before the start, then the page
 * updates itself (its script polls the place) and takes the browser into the shop at its turn.
 */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;
const START = '2026-12-05T09:00:00Z';

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      slug: 'stadium',
      events: [
        makeEvent({
          slug: 'final',
          name: 'Cup Final',
          starts_at: '2027-05-20T18:00:00Z',
          sales_start_at: START,
          queue: { enabled: true, admit_per_minute: 600 },
          ticket_types: [{ key: 'stand', name: 'North stand', price: 4500, capacity: 500 }],
        }),
      ],
    }),
    now: '2026-12-05T08:50:00Z',
  });
  ({ t, browser, base } = app);
});
afterAll(() => app?.close());

describe('the queue page', () => {
  it('waits in the waiting room, then lets the browser in at its turn by itself', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const csp = watchCsp(page);
    await page.goto(`${base}/e/stadium/final`);
    expect(await page.locator('h1').textContent()).toBe('Cup Final');
    expect(await page.locator('main').textContent()).toContain('You are in the waiting room');
    expect(await seriousViolations(page), 'waiting room').toEqual([]);
    await screenshotBoth(page, 'queue-waiting-room');
    // the start: the page's next poll sees the turn and reloads into the shop
    t.clock.set('2026-12-05T09:00:01Z');
    await page.getByRole('button', { name: /Continue/ }).waitFor({ timeout: 20_000 });
    expect(await page.locator('main').textContent()).toContain('North stand');
    const cookies = await context.cookies();
    expect(cookies.map((c) => c.name).sort()).toEqual(expect.arrayContaining([expect.stringMatching(/^admit_qp\d+$/)]));
    expect(cookies.every((c) => c.httpOnly)).toBe(true);
    // thirty more arrive; a browser coming now waits behind them, its place and wait shown
    for (let i = 0; i < 30; i++) await t.app.inject({ method: 'GET', url: '/e/stadium/final' });
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const late = await other.newPage();
    await late.goto(`${base}/e/stadium/final`);
    expect(await late.locator('main').textContent()).toContain('Your place in the queue');
    expect(await late.locator('[data-q="place"]').textContent()).toBe('32');
    expect(await late.locator('[data-q="ahead"]').textContent()).toBe('20 ahead of you');
    expect(await seriousViolations(late), 'queue place').toEqual([]);
    await screenshotBoth(late, 'queue-place');
    await other.close();
    expect(csp).toEqual([]);
    await context.close();
  });
});
