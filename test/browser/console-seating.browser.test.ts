import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { screenshotBoth, seriousViolations, signInToConsole, watchCsp } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp } from './browser-app.ts';
import { makeAccountFile, makeEvent } from '../factories.ts';
import { theatrePlan } from '../../src/modules/events/seating.fixture.ts';

/** The console's seating page in Chromium: the sold map, a seat blocked by clicking, at 390 and 1280 px. */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;
const OWNER = { email: 'owner@example.org', password: 'correct horse battery' };

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      slug: 'stage',
      users: [{ ...OWNER, name: 'Olive Owner', role: 'owner' }],
      events: [
        makeEvent({
          slug: 'hamlet',
          name: 'Hamlet',
          ticket_types: [
            { key: 'stalls', name: 'Stalls', price: 4500 },
            { key: 'balcony', name: 'Balcony', price: 2500 },
          ],
          seating: { plan: theatrePlan(), categories: { Stalls: 'stalls', Balcony: 'balcony' } },
        }),
      ],
    }),
  });
  ({ t, browser, base } = app);
  const a = app.seeded;
  const stalls = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'stalls').executeTakeFirstOrThrow())
    .id;
  // an order being paid holds C-6
  const held = await t.call(a.tokens.all, {
    method: 'POST',
    url: '/api/v1/events/hamlet/orders',
    payload: { items: [{ ticket_type_id: stalls, quantity: 1, seats: ['stalls-C-6'] }], email: 'b@example.org' },
  });
  expect(held.statusCode).toBe(201);
});
afterAll(() => app?.close());

describe('the seating page', () => {
  it('shows the sold map; a click keeps a seat off sale, saving makes it so', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const refused = watchCsp(page);
    await signInToConsole(page, base, OWNER, /\/console\/a\/stage\/events$/);
    await page.goto(`${base}/console/a/stage/events/hamlet/seating`);
    expect(await page.locator('circle[data-g="stalls-C-6"]').getAttribute('data-state')).toBe('h');
    await page.locator('circle[data-g="stalls-F-1"]').click();
    expect(await page.locator('#f-blocked').inputValue()).toBe('stalls-F-1');
    // a held seat does not change
    await page.locator('circle[data-g="stalls-C-6"]').click();
    expect(await page.locator('#f-blocked').inputValue()).toBe('stalls-F-1');
    expect(JSON.stringify(await seriousViolations(page), null, 1)).toBe('[]');
    await screenshotBoth(page, 'console-seating');
    await page.getByRole('button', { name: 'Save seating' }).click();
    await page.getByText('Seating saved.').waitFor();
    expect(await page.locator('circle[data-g="stalls-F-1"]').getAttribute('data-state')).toBe('b');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(refused).toEqual([]);
    await page.close();
  });
});
