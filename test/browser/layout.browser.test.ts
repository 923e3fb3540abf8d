import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { screenshotBoth, seriousViolations, signInToConsole } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp } from './browser-app.ts';

/**
 * Every console page and every buyer page of the demo account, at a phone's width (390 px) and a
 * laptop's (1280 px): nothing wider than the window, no serious or critical axe finding, and a
 * screenshot of each for a reviewer. The console's pages are found by following its own links
 * (one page per shape of address), so a page added later is measured without being listed here.
 */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;
const demo = JSON.parse(fs.readFileSync(new URL('../../demo/demo-account.json', import.meta.url), 'utf8'));
const OWNER = { email: 'owner@demo.admit.test', password: 'lantern-demo-2027' };
const DOCS_SHOTS = path.resolve(import.meta.dirname, '../../docs/screenshots');

/**
 * With DOCS_SCREENSHOTS=1, the window (not the whole page) of a few pages is also written under
 * docs/screenshots, small enough to keep in the repository: the README shows two of them.
 */
async function docsShot(page: Page, name: string, width: 390 | 1280): Promise<void> {
  if (!process.env.DOCS_SCREENSHOTS) return;
  fs.mkdirSync(DOCS_SHOTS, { recursive: true });
  await page.setViewportSize(width === 390 ? { width, height: 844 } : { width, height: 800 });
  await page.screenshot({ path: path.join(DOCS_SHOTS, `${name}-${width}.png`) });
}

/** A theme an organiser could pick without an eye for contrast: light grey on white, a pale accent. */
const POOR = {
  name: 'Poor contrast',
  settings: {
    background_color: '#ffffff',
    text_color: '#c8c8c8',
    text_background_color: '#fdfdfd',
    accent_color: '#ffe08a',
  },
};

beforeAll(async () => {
  app = await startBrowserApp({ account: { ...demo, themes: [...demo.themes, POOR] }, now: '2026-11-20T10:00:00Z' });
  ({ t, browser, base } = app);
});
afterAll(() => app?.close());

const width = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth');

/** The page's width at 390 and 1280 px, the axe findings, and screenshots at both widths. */
async function measure(page: Page, name: string): Promise<{ phone: number; desktop: number; axe: string[] }> {
  await page.setViewportSize({ width: 390, height: 844 });
  const phone = await width(page);
  const axe = (await seriousViolations(page)).map((v) => `${v.id}: ${v.targets.slice(0, 3).join(', ')}`);
  await page.setViewportSize({ width: 1280, height: 800 });
  const desktop = await width(page);
  await screenshotBoth(page, `layout-${name}`);
  return { phone, desktop, axe };
}

/** One page per shape of address: order refs, ids and tokens become placeholders. */
function shapeOf(url: URL): string {
  return url.pathname
    .replace(/\/orders\/[A-Z0-9-]{4,}(?=\/|$)/, '/orders/:ref')
    .replace(/\/webhooks\/\d+/, '/webhooks/:id')
    .replace(/\/door\/([^/]+)\/\d+/, '/door/$1/:list')
    .replace(/\/events\/(?!new$)[^/]+/, '/events/:event');
}

/** The console pages shown in docs/screenshots, at which widths. */
const DOCS_PAGES: Record<string, Array<390 | 1280>> = {
  '/console/a/demo/events': [390],
  '/console/a/demo/events/:event/dashboard': [390, 1280],
  '/console/a/demo/events/:event/orders': [390, 1280],
  '/console/a/demo/door': [390],
  '/console/a/demo/events/:event/reports': [1280],
  '/console/a/demo/events/:event/ticket-types': [390],
};

const SKIP = /sign-out|\.csv|\.pdf|\.ics|manifest|scanner-sw|\/assets\/|\/docs/;

describe('every console page fits a phone and a laptop', () => {
  it('crawls the console as the owner: no page wider than 390 px or 1280 px, no serious axe finding', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await signInToConsole(page, base, OWNER, /\/console\/a\/demo\/events$/);

    const queue = [page.url()];
    const seen = new Set<string>();
    const results: Record<string, { phone: number; desktop: number; axe: string[] }> = {};
    while (queue.length && Object.keys(results).length < 80) {
      const url = new URL(queue.shift()!);
      const shape = shapeOf(url);
      if (seen.has(shape)) continue;
      seen.add(shape);
      const res = await page.goto(url.toString());
      if (!res || res.status() !== 200 || !(res.headers()['content-type'] ?? '').includes('text/html')) continue;
      const name =
        shape
          .replace(/^\/console\/?/, '')
          .replace(/[/:]+/g, '-')
          .replace(/^-|-$/g, '') || 'home';
      results[shape] = await measure(page, name);
      if (DOCS_PAGES[shape])
        for (const w of DOCS_PAGES[shape]) await docsShot(page, `console-${name.replace(/^a-demo-/, '')}`, w);
      const links = await page.evaluate<string[]>('[...document.querySelectorAll("a[href]")].map((a) => a.href)');
      for (const href of links) {
        const next = new URL(href);
        if (next.origin === base && next.pathname.startsWith('/console') && !SKIP.test(next.pathname))
          queue.push(next.toString());
      }
    }
    const shapes = Object.keys(results);
    // what was measured, for the report of a failing run
    console.table(
      Object.fromEntries(Object.entries(results).map(([s, r]) => [s, { phone: r.phone, desktop: r.desktop, axe: r.axe.length }])),
    );
    // the crawl reached every kind of page: the account's, each event tab, an order, the door
    for (const must of [
      '/console/a/demo/events',
      '/console/a/demo/team',
      '/console/a/demo/tokens',
      '/console/a/demo/webhooks',
      '/console/a/demo/door',
      '/console/a/demo/events/:event',
      '/console/a/demo/events/:event/dashboard',
      '/console/a/demo/events/:event/orders',
      '/console/a/demo/events/:event/orders/:ref',
      '/console/a/demo/events/:event/reports',
      '/console/a/demo/events/:event/reports/orders',
      '/console/a/demo/events/:event/ticket-types',
      '/console/a/demo/events/:event/checkin-lists',
      '/console/a/demo/events/new',
    ]) {
      expect(shapes, must).toContain(must);
    }
    const tooWide = Object.entries(results)
      .filter(([, r]) => r.phone > 390 || r.desktop > 1280)
      .map(([s, r]) => `${s}: ${r.phone} / ${r.desktop}`);
    const axe = Object.entries(results)
      .filter(([, r]) => r.axe.length)
      .map(([s, r]) => `${s}: ${r.axe.join('; ')}`);
    expect(tooWide).toEqual([]);
    expect(axe).toEqual([]);
    await page.close();
  });
});

/** Buys on the demo's event page in the browser; returns the pay page's and the order page's addresses. */
async function buy(page: Page, name: string): Promise<{ pay: string; order: string }> {
  await page.goto(`${base}/e/demo/harbour-lights-2027`);
  await page.getByLabel('Weekend pass', { exact: true }).selectOption('2');
  await page.getByLabel('Day ticket', { exact: true }).selectOption('1');
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill('buyer@example.org');
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.waitForURL(/\/pay\//);
  const pay = page.url();
  await page.getByRole('button', { name: /^Pay / }).click();
  await page.waitForURL(/\/o\//);
  return { pay, order: page.url() };
}

describe('every buyer page fits a phone and a laptop, in the demo theme and in a theme of poor colours', () => {
  it('the event, pay, order and account pages: not wider than the window, no serious axe finding', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const results: Record<string, { phone: number; desktop: number; axe: string[] }> = {};
    const visit = async (name: string, url: string, docs: Array<390 | 1280> = []) => {
      await page.goto(url);
      results[name] = await measure(page, name);
      for (const w of docs) await docsShot(page, name, w);
    };

    // the demo theme (Lantern), with its own web layout
    const bought = await buy(page, 'Ada Lovelace');
    // the paid order's page is the confirmation, with everything a buyer needs to know
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.getByRole('heading', { name: 'You’re going!' }).count()).toBe(1);
    expect(await page.getByRole('status').textContent()).toContain('buyer@example.org');
    expect(await page.locator('.admit-facts').textContent()).toMatch(/2 × Weekend pass[\s\S]*1 × Day ticket/);
    expect(await page.getByRole('heading', { name: 'What to do next' }).count()).toBe(1);
    expect(await page.locator('.admit-ticket svg').count()).toBe(3);
    // the frame survives the organiser's layout: one main, the header with the language switch
    expect(await page.locator('main').count()).toBe(1);
    expect(await page.locator('header.admit-header nav.admit-lang a').count()).toBeGreaterThan(1);
    await visit('buyer-order-demo', bought.order, [390, 1280]);
    await page.getByRole('link', { name: 'Deutsch' }).click();
    expect(await page.getByRole('heading', { name: 'Sie sind dabei!' }).count()).toBe(1);
    results['buyer-order-demo-de'] = await measure(page, 'buyer-order-demo-de');
    await visit('buyer-event-demo', `${base}/e/demo/harbour-lights-2027`, [390, 1280]);
    expect(await page.locator('select.admit-qty').count()).toBeGreaterThan(2);
    await visit('buyer-account-demo', `${base}/e/demo`);
    await visit('buyer-home', `${base}/`);
    // a pending order's pay page and order page
    await page.goto(`${base}/e/demo/harbour-lights-2027`);
    await page.getByLabel('Day ticket', { exact: true }).selectOption('1');
    await page.getByLabel('Name').fill('Grace Hopper');
    await page.getByLabel('Email').fill('grace@example.org');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/pay\//);
    const pendingPay = page.url();
    await visit('buyer-pay-demo', pendingPay, [390]);
    await visit('buyer-pending-order-demo', pendingPay.replace('/pay/', '/o/'));

    // the same pages when the organiser picks light grey on white with a pale accent
    await t.ctx.db.updateTable('themes').set({ is_default: false }).execute();
    await t.ctx.db.updateTable('themes').set({ is_default: true }).where('name', '=', POOR.name).execute();
    await visit('buyer-event-poor', `${base}/e/demo/harbour-lights-2027`);
    await visit('buyer-account-poor', `${base}/e/demo`);
    await visit('buyer-pay-poor', pendingPay);
    await visit('buyer-pending-order-poor', pendingPay.replace('/pay/', '/o/'));
    await visit('buyer-order-poor', bought.order);

    console.table(
      Object.fromEntries(Object.entries(results).map(([s, r]) => [s, { phone: r.phone, desktop: r.desktop, axe: r.axe.length }])),
    );
    const tooWide = Object.entries(results)
      .filter(([, r]) => r.phone > 390 || r.desktop > 1280)
      .map(([s, r]) => `${s}: ${r.phone} / ${r.desktop}`);
    const axe = Object.entries(results)
      .filter(([, r]) => r.axe.length)
      .map(([s, r]) => `${s}: ${r.axe.join('; ')}`);
    expect(tooWide).toEqual([]);
    expect(axe).toEqual([]);
    await page.close();
  });
});
