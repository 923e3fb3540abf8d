import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { screenshotBoth, seriousViolations, signInToConsole, watchCsp } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp } from './browser-app.ts';
import { makeAccountFile, makeEvent, makeOrder } from '../factories.ts';
import { makeGoogleKey } from '../../src/modules/wallet/wallet.fixture.ts';

/**
 * Two console pages in Chromium at 390 and 1280 px with axe: writing a message to attendees
 * (preview with a real order, then send) and the account's wallet keys (a Google key saved,
 * shown only as configured).
 */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;
const OWNER = { email: 'owner@example.org', password: 'correct horse battery' };

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      slug: 'pier',
      users: [{ ...OWNER, name: 'Olive Owner', role: 'owner' }],
      events: [
        makeEvent({
          slug: 'concert',
          name: 'Pier Concert',
          ticket_types: [{ key: 'ga', name: 'General admission', price: 2500, capacity: 100 }],
          orders: [makeOrder({ ref: 'PIER-1', name: 'Ada Lovelace', email: 'ada@example.org' }), makeOrder({ ref: 'PIER-2' })],
        }),
      ],
    }),
  });
  ({ t, browser, base } = app);
});
afterAll(() => app?.close());

describe('console pages', () => {
  it('writes a message to the attendees: preview with a real order, then send', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const refused = watchCsp(page);
    await signInToConsole(page, base, OWNER, /\/console\/a\/pier\/events$/);
    await page.goto(`${base}/console/a/pier/events/concert/messages`);
    expect(await seriousViolations(page), 'messages page').toEqual([]);
    await page.getByLabel('Subject').fill('Doors open at 19:00');
    await page.getByLabel('Message', { exact: true }).fill('Dear guests,\n\nthe doors open **an hour later**, at 19:00.');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('#preview-h').waitFor();
    const preview = await page.locator('section.card', { has: page.locator('#preview-h') }).textContent();
    expect(preview).toContain('Doors open at 19:00');
    expect(await seriousViolations(page), 'preview').toEqual([]);
    await screenshotBoth(page, 'console-messages-preview');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/done=sent/);
    expect(await page.locator('.flash').textContent()).toContain('Queued');
    expect(await page.locator('table').textContent()).toContain('Doors open at 19:00');
    const queued = await t.ctx.db.selectFrom('outbox').select('id').where('kind', 'like', 'mail.message%').execute();
    expect(queued.length).toBe(2);
    expect(refused).toEqual([]);
    await page.close();
  });

  it('saves a Google wallet key and never shows it again', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await signInToConsole(page, base, OWNER, /\/console\/a\/pier\/events$/);
    await page.goto(`${base}/console/a/pier/wallet`);
    expect(await seriousViolations(page), 'wallet page').toEqual([]);
    await screenshotBoth(page, 'console-wallet');
    const key = makeGoogleKey();
    await page.getByLabel('Issuer ID').fill('3388000000012345678');
    await page.getByLabel('Service account email').fill('tickets@admit-test.iam.gserviceaccount.com');
    await page.getByLabel(/Service account private key/).fill(key.privatePem);
    await page.getByRole('button', { name: /Save Google key/ }).click();
    await page.waitForLoadState();
    const text = await page.locator('main').textContent();
    expect(text).toContain('The keys were checked and saved.');
    expect(await page.content()).not.toContain('PRIVATE KEY');
    expect(await seriousViolations(page), 'wallet saved').toEqual([]);
    await page.close();
  });
});
