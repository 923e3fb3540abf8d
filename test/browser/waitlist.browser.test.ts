import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { screenshotBoth, seriousViolations, signInToConsole } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp } from './browser-app.ts';
import { makeAccountFile, makeEvent, makeOrder } from '../factories.ts';

/** The waiting list in Chromium: a buyer joins on a sold-out type and leaves by the link; the organiser's page at 390 and 1280 px. */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;
const OWNER = { email: 'owner@example.org', password: 'correct horse battery' };

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      slug: 'queue',
      users: [{ ...OWNER, name: 'Olive Owner', role: 'owner' }],
      events: [
        makeEvent({
          slug: 'late-show',
          name: 'The Late Show',
          waiting_list: { enabled: true, offer_minutes: 120 },
          ticket_types: [
            { key: 'front', name: 'Front row', price: 4500, capacity: 1, max_per_order: 4 },
            { key: 'back', name: 'Back row', price: 2500, capacity: 40 },
          ],
          orders: [makeOrder({ ref: 'LATE-1', lines: [{ kind: 'tickets', ref: 'front', quantity: 1, unit_price: 4500 }] })],
        }),
      ],
    }),
  });
  ({ t, browser, base } = app);
});
afterAll(() => app?.close());

describe('the waiting list', () => {
  it('a buyer joins from the event page, gets the confirmation, and leaves by the mailed link', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/e/queue/late-show`);
    const section = page.getByRole('region', { name: 'Join the waiting list: Front row' });
    await section.getByLabel('Your name').fill('Ada Lovelace');
    await section.getByLabel('Email').fill('ada@example.org');
    await section.getByLabel('How many tickets').selectOption('2');
    expect(await seriousViolations(page), 'event page').toEqual([]);
    await screenshotBoth(page, 'waitlist-event-page');
    await section.getByRole('button', { name: 'Join the waiting list' }).click();
    await page.waitForURL(/\/waiting-list\/joined/);
    expect(await page.getByRole('status').textContent()).toContain('2 × Front row');
    expect(await seriousViolations(page), 'joined').toEqual([]);
    await screenshotBoth(page, 'waitlist-joined');

    const entry = await t.ctx.db.selectFrom('waiting_list_entries').selectAll().executeTakeFirstOrThrow();
    await page.goto(`${base}/waiting-list/${entry.leave_secret}`);
    expect(await seriousViolations(page), 'leave').toEqual([]);
    await screenshotBoth(page, 'waitlist-leave');
    await page.getByRole('button', { name: 'Leave the waiting list' }).click();
    await page.getByRole('heading', { name: 'You have left the waiting list' }).waitFor();
    expect((await t.ctx.db.selectFrom('waiting_list_entries').select('status').executeTakeFirstOrThrow()).status).toBe('removed');
    await page.close();
  });

  it("the organiser's waiting list page: places, offer now, remove, usable at 390 px", async () => {
    for (const [name, email] of [
      ['Bo Brown', 'bo@example.org'],
      ['Cy Clark-Whitfield-Montgomery', 'cy.with.a.rather.long.address@example.org'],
    ]) {
      const page = await browser.newPage();
      await page.goto(`${base}/e/queue/late-show`);
      const section = page.getByRole('region', { name: 'Join the waiting list: Front row' });
      await section.getByLabel('Your name').fill(name!);
      await section.getByLabel('Email').fill(email!);
      await section.getByRole('button', { name: 'Join the waiting list' }).click();
      await page.waitForURL(/\/waiting-list\/joined/);
      await page.close();
    }
    const page = await browser.newPage();
    await signInToConsole(page, base, OWNER, /\/console\/a\/queue\/events$/);
    await page.goto(`${base}/console/a/queue/events/late-show/waiting-list`);
    await page.getByRole('table').waitFor();
    expect(await page.getByRole('row').count()).toBe(4);
    expect(await seriousViolations(page), 'console page').toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    // the page itself does not scroll sideways at phone width (the table scrolls in its region)
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshotBoth(page, 'waitlist-console');
    await page.getByRole('button', { name: 'Remove Bo Brown' }).click();
    expect(await page.getByRole('status').textContent()).toContain('Removed from the waiting list');
    await page.getByRole('button', { name: 'Offer now to Cy Clark-Whitfield-Montgomery' }).click();
    expect(await page.getByRole('status').textContent()).toContain('Not enough units are free');
    await page.close();
  });
});
