import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { screenshotBoth, seriousViolations, watchCsp } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp, type Seeded } from './browser-app.ts';
import { pdfText } from '../pdf-reader.ts';
import { makeAccountFile, makeEvent } from '../factories.ts';
import { theatrePlan } from '../../src/modules/events/seating.fixture.ts';

/** The seat map on a seated event's page, in Debian's Chromium: keyboard, touch, a seat lost to another buyer. */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;
let a: Seeded;
let stallsId: number;

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      slug: 'theatre',
      events: [
        makeEvent({
          slug: 'hamlet',
          name: 'Hamlet',
          ticket_types: [
            { key: 'stalls', name: 'Stalls', price: 4500, max_per_order: 6 },
            { key: 'balcony', name: 'Balcony', price: 2500 },
          ],
          seating: { plan: theatrePlan(), categories: { Stalls: 'stalls', Balcony: 'balcony' }, blocked: ['stalls-A-1'] },
        }),
      ],
    }),
  });
  ({ t, browser, base } = app);
  a = app.seeded;
  stallsId = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'stalls').executeTakeFirstOrThrow()).id;
});
afterAll(() => app?.close());

const seat = (page: Page, guid: string) => page.locator(`circle[data-g="${guid}"]`);

async function fillBuyer(page: Page) {
  await page.locator('#f-name').fill('Ophelia Polonius');
  await page.locator('#f-email').fill('ophelia@example.org');
}

describe('the seat map', () => {
  it('a buyer picks two seats by keyboard, pays, and finds them on the order page and the PDF', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const refused = watchCsp(page);
    await page.goto(`${base}/e/theatre/hamlet`);
    // the script has read the states: the blocked seat is shown taken, the first free seat is the one to tab to
    await expect.poll(() => seat(page, 'stalls-A-1').getAttribute('class')).toContain('taken');
    expect(await seat(page, 'stalls-A-2').getAttribute('tabindex')).toBe('0');
    expect(await seat(page, 'stalls-A-2').getAttribute('aria-label')).toBe('Row A, Seat 2, Stalls, €45.00');
    await seat(page, 'stalls-A-2').focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate('document.activeElement?.dataset?.g')).toBe('stalls-B-2');
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    expect(await seat(page, 'stalls-B-3').getAttribute('aria-checked')).toBe('true');
    expect(await page.locator('[data-chosen]').textContent()).toBe('Your seats: Row B, Seat 2; Row B, Seat 3');
    expect(await page.locator(`select[name="qty_${stallsId}"]`).inputValue()).toBe('2');
    expect(await page.locator('[data-total] output').textContent()).toBe('€90.00');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBoth(page, 'seat-map-chosen');
    await fillBuyer(page);
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/pay\//);
    await page.getByRole('button', { name: /Pay/ }).click();
    await page.waitForURL(/\/o\//);
    const body = await page.locator('main').textContent();
    expect(body).toContain('Row B, Seat 2');
    expect(body).toContain('Row B, Seat 3');
    const pdf = await page.request.get(`${new URL(page.url()).pathname}/tickets.pdf`.replace(/^/, base));
    const text = await pdfText(await pdf.body());
    expect(text).toContain('Row B, Seat 2');
    expect(refused).toEqual([]);
    await page.close();
  });

  it('on a phone a buyer taps seats; a seat another buyer took meanwhile is refused, the rest of the form is kept', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${base}/e/theatre/hamlet`);
    await expect.poll(() => seat(page, 'stalls-B-2').getAttribute('class')).toContain('taken');
    // no page wider than the phone
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.getByRole('button', { name: 'Zoom in' }).tap();
    await seat(page, 'stalls-D-5').scrollIntoViewIfNeeded();
    await seat(page, 'stalls-D-5').tap();
    await seat(page, 'stalls-D-6').scrollIntoViewIfNeeded();
    await seat(page, 'stalls-D-6').tap();
    expect(await seat(page, 'stalls-D-6').getAttribute('aria-checked')).toBe('true');
    await fillBuyer(page);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${process.cwd()}/test-results/screenshots/seat-map-phone-chosen.png`, fullPage: true });
    // someone else gets D-6 first
    const other = await t.call(a.tokens.all, {
      method: 'POST',
      url: '/api/v1/events/hamlet/orders',
      payload: { items: [{ ticket_type_id: stallsId, quantity: 1, seats: ['stalls-D-6'] }], email: 'x@example.org' },
    });
    expect(other.statusCode).toBe(201);
    await page.getByRole('button', { name: 'Continue to payment' }).tap();
    await page.waitForLoadState('load');
    expect(await page.locator('#errors').textContent()).toContain('Row D, Seat 6');
    // the answer keeps the name and the email; the map marks D-6 taken and keeps D-5 chosen
    expect(await page.locator('#f-email').inputValue()).toBe('ophelia@example.org');
    await expect.poll(() => seat(page, 'stalls-D-6').getAttribute('class')).toContain('taken');
    expect(await seat(page, 'stalls-D-5').getAttribute('aria-checked')).toBe('true');
    expect(await page.locator(`input[name="seats_${stallsId}"]`).inputValue()).toBe('stalls-D-5');
    expect(await page.locator(`select[name="qty_${stallsId}"]`).inputValue()).toBe('1');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBoth(page, 'seat-map-refused');
    await context.close();
  });

  it('without scripts the plan is a picture and the quantity buys the best available', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${base}/e/theatre/hamlet`);
    expect(await page.locator('svg[data-plan]').getAttribute('role')).toBe('img');
    await page.locator(`select[name="qty_${stallsId}"]`).selectOption('2');
    await fillBuyer(page);
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/pay\//);
    const seats = await t.ctx.db
      .selectFrom('order_seats as s')
      .innerJoin('orders as o', 'o.id', 's.order_id')
      .select('s.seat_guid')
      .where('o.email', '=', 'ophelia@example.org')
      .where('o.status', '=', 'pending')
      .execute();
    expect(seats).toHaveLength(2);
    await context.close();
  });
});
