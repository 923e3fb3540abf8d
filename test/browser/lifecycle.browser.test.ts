import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { screenshotBoth, seriousViolations, signInToConsole } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp } from './browser-app.ts';
import { makeAccountFile, makeEvent, makeOrder } from '../factories.ts';

/**
 * An event's lifecycle in the console, in Debian's Chromium (contract section 11): a new event is
 * a draft, previewed, published, scheduled (the buyer page says when sales open), archived (one
 * with orders) and deleted (one without) after a confirmation.
 */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;
const OWNER = { email: 'owner@example.org', password: 'correct horse battery' };

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      slug: 'lantern',
      users: [{ ...OWNER, name: 'Olive Owner', role: 'owner' }],
      events: [makeEvent({ slug: 'sold', name: 'Sold Night', orders: [makeOrder({ ref: 'SOLD-1' })] })],
    }),
  });
  ({ t, browser, base } = app);
});
afterAll(() => app?.close());

/**
 * axe finds nothing serious, both widths are shot, and a page this feature adds does not scroll
 * sideways on a 390 px phone (the events list's own phone layout is the console layout's to hold).
 */
async function check(page: Page, name: string, opts: { ownPage: boolean } = { ownPage: true }) {
  expect(await seriousViolations(page), name).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  if (opts.ownPage) {
    expect(await page.evaluate<number>('document.documentElement.scrollWidth'), `${name} at 390 px`).toBeLessThanOrEqual(390);
  }
  await screenshotBoth(page, `lifecycle-${name}`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

const statusOf = async (slug: string) =>
  t.ctx.db.selectFrom('events').select(['status', 'sales_start_at', 'archived']).where('slug', '=', slug).executeTakeFirst();

describe('the event lifecycle in the console', () => {
  it('drafts, previews, publishes, schedules, archives and deletes', async () => {
    const page = await browser.newPage();
    await signInToConsole(page, base, OWNER, /\/console\/a\/lantern\/events$/);

    // a new event is a draft
    await page.getByRole('link', { name: 'New event' }).click();
    await page.getByLabel('Web address').fill('autumn');
    await page.getByLabel('Name', { exact: true }).fill('Autumn Fair');
    await page.getByLabel('Timezone').selectOption('Europe/Berlin');
    await page.getByLabel('Starts', { exact: true }).fill('2027-10-01T19:00');
    await page.getByRole('button', { name: 'Create the event' }).click();
    await page.waitForURL(/\/events\/autumn\/ticket-types/);
    expect((await statusOf('autumn'))!.status).toBe('draft');
    const buyer = await browser.newPage();
    expect((await buyer.goto(`${base}/e/lantern/autumn`))!.status()).toBe(404);

    await page.goto(`${base}/console/a/lantern/events`);
    expect(await page.locator('tr:has-text("autumn") .pill').allTextContents()).toContain('draft');
    await check(page, 'events-with-draft', { ownPage: false });

    // the details page with the status and schedule card
    await page.goto(`${base}/console/a/lantern/events/autumn`);
    await check(page, 'draft-details');

    // the preview: the buyer page for staff, with nothing on sale yet
    await page.getByRole('link', { name: 'Preview the buyer page' }).click();
    await page.waitForURL(/\/events\/autumn\/preview$/);
    expect(await page.getByRole('note').textContent()).toContain('Preview');
    expect(await page.getByRole('status').textContent()).toContain('No tickets are on sale');
    expect(await page.getByRole('button', { name: 'Continue to payment' }).count()).toBe(0);
    await check(page, 'preview');

    // a ticket type, then publish
    await page.goto(`${base}/console/a/lantern/events/autumn/ticket-types`);
    const add = page.locator('form:has(h2:text("Add a ticket type"))');
    await add.getByLabel('Key').fill('ga');
    await add.getByLabel('Name').fill('General admission');
    await add.getByLabel('Price (EUR)').fill('20');
    await add.getByLabel('On sale').check();
    await add.getByRole('button', { name: 'Add' }).click();
    await page.waitForURL(/done=added/);
    await page.goto(`${base}/console/a/lantern/events/autumn`);
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.waitForURL(/lifecycle=published/);
    expect(await page.getByRole('status').textContent()).toContain('The event is published');
    expect((await statusOf('autumn'))!.status).toBe('published');
    await buyer.goto(`${base}/e/lantern/autumn`);
    expect(await buyer.getByRole('button', { name: 'Continue to payment' }).count()).toBe(1);

    // schedule: before the sales start the buyer page says when, with no checkout
    await page.getByLabel('Sales start (Europe/Berlin)').fill('2027-09-01T10:00');
    await page.getByRole('button', { name: 'Save the sales start' }).click();
    await page.waitForURL(/lifecycle=scheduled/);
    expect((await statusOf('autumn'))!.sales_start_at!.toISOString()).toBe('2027-09-01T08:00:00.000Z');
    await check(page, 'scheduled-details');
    await buyer.goto(`${base}/e/lantern/autumn`);
    expect(await buyer.getByRole('status').textContent()).toContain('Tickets go on sale');
    expect(await buyer.getByRole('button', { name: 'Continue to payment' }).count()).toBe(0);
    await check(buyer, 'buyer-before-sales');
    await buyer.goto(`${base}/e/lantern/autumn?lang=de`);
    expect(await buyer.getByRole('status').textContent()).toContain('Der Ticketverkauf beginnt');

    // archive the event with orders: off the list, on the archived filter
    await page.goto(`${base}/console/a/lantern/events/sold`);
    expect(await page.getByRole('link', { name: 'Delete this event…' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.waitForURL(/lifecycle=archived/);
    expect((await statusOf('sold'))!.archived).toBe(true);
    await page.goto(`${base}/console/a/lantern/events`);
    expect(await page.getByRole('link', { name: 'Sold Night' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Archived', exact: true }).click();
    await page.waitForURL(/show=archived/);
    expect(await page.getByRole('link', { name: 'Sold Night' }).count()).toBe(1);
    await check(page, 'events-archived', { ownPage: false });

    // delete the one without orders, after the confirmation
    await page.goto(`${base}/console/a/lantern/events/autumn`);
    await page.getByRole('link', { name: 'Delete this event…' }).click();
    await page.waitForURL(/\/events\/autumn\/delete$/);
    await check(page, 'delete-confirm');
    await page.getByRole('button', { name: 'Delete the event' }).click();
    await page.waitForURL(/\/events\?done=event-deleted$/);
    expect(await page.getByRole('status').textContent()).toContain('The event was deleted.');
    expect(await statusOf('autumn')).toBeUndefined();
    expect((await buyer.goto(`${base}/e/lantern/autumn`))!.status()).toBe(404);
    await buyer.close();
    await page.close();
  });
});
