import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, screenshotBoth, seriousViolations, signInToConsole, watchCsp } from './chromium.ts';
import { freePort } from '../net.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../factories.ts';

/**
 * The console's last finish in Chromium: the event description's preview (as the organiser types,
 * and with script off through the Preview button) and the empty lists with their next step, at
 * 390 and 1280 px, with axe and no page wider than a phone.
 */

let t: TestApp;
let browser: Browser;
let base: string;
const PW = 'correct horse battery';
const OWNER = { email: 'owner@finish.example', password: PW };
const SOLO = { email: 'solo@blank.example', password: PW };
const type = { key: 'ga', name: 'General admission', price: 2500, capacity: 100 };

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ config: { baseUrl: base } });
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'finish',
      users: [{ ...OWNER, name: 'Olive Owner', role: 'owner' }],
      events: [
        makeEvent({ slug: 'gala', name: 'Winter Gala', description: 'An evening of **music**.', ticket_types: [type] }),
        makeEvent({ slug: 'draft-ev', name: 'Spring Draft', status: 'draft', ticket_types: [type] }),
        makeEvent({ slug: 'bare', name: 'Bare Event', ticket_types: [] }),
        makeEvent({ slug: 'sold', name: 'Sold Show', ticket_types: [type], orders: [makeOrder({ ref: 'SOLD-1' })] }),
      ],
    }),
  );
  await seedAccount(
    t.ctx,
    makeAccountFile({ slug: 'blank', tokens: [], users: [{ ...SOLO, name: 'Sol Solo', role: 'owner' }], events: [] }),
  );
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
// each test signs in afresh: a minute apart, as far as the sign-in budget can tell
beforeEach(() => t.clock.advance(61_000));

const description = async () =>
  (await t.ctx.db.selectFrom('events').select('description').where('slug', '=', 'gala').executeTakeFirstOrThrow()).description;
const previewBody = (page: Page) => page.locator('#description-preview [data-preview-body]');

describe('the description preview', () => {
  it('follows the typing with the buyer page’s HTML, sanitised, and saves nothing', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const refused = watchCsp(page);
    await signInToConsole(page, base, OWNER, /\/console\/a\/finish\/events$/);
    await page.goto(`${base}/console/a/finish/events/gala`);
    expect(await page.locator('#description-preview').isHidden()).toBe(true);
    const area = page.getByLabel('Description');
    await area.fill('');
    await area.pressSequentially('## Line-up\n\n- **Ada** at 19:00\n- <script>alert(1)</script>', { delay: 5 });
    await page.locator('#description-preview h3', { hasText: 'Line-up' }).waitFor();
    await previewBody(page).locator('li', { hasText: 'alert(1)' }).waitFor();
    const shown = await previewBody(page).innerHTML();
    expect(shown).toContain('<strong>Ada</strong>');
    expect(shown).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(await previewBody(page).locator('script').count()).toBe(0);
    // the same text, saved, is what the buyer page shows
    // a string, so the browser-side code needs no DOM types here
    const answer = (await page.evaluate(`(async () => {
      const res = await fetch('/console/a/finish/markdown-preview', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': document.querySelector('input[name=csrf]').value },
        body: JSON.stringify({ markdown: ${JSON.stringify(await area.inputValue())} }),
      });
      return (await res.json()).html;
    })()`)) as string;
    expect(shown).toBe(answer);
    expect(await description()).toBe('An evening of **music**.');
    // emptied, it says so
    await area.fill('');
    await previewBody(page).getByText('Nothing to preview: the description is empty.').waitFor();
    expect(await seriousViolations(page), 'details with the preview').toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });

  it('Enter in a field still saves the form (the Preview button is not the default)', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInToConsole(page, base, OWNER, /\/console\/a\/finish\/events$/);
    await page.goto(`${base}/console/a/finish/events/gala`);
    await page.getByLabel('Description').fill('Saved with **Enter**.');
    await page.getByLabel('Name', { exact: true }).press('Enter');
    await page.waitForURL(/done=event-saved/);
    expect(await description()).toBe('Saved with **Enter**.');
    await page.close();
  });

  it('works without script: the Preview button shows the form again with the preview, nothing saved', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signInToConsole(page, base, OWNER, /\/console\/a\/finish\/events$/);
    await page.goto(`${base}/console/a/finish/events/gala`);
    const before = await description();
    await page.getByLabel('Description').fill('Doors at **18:30**.\n\n[Programme](https://example.org/programme)');
    await page.getByRole('button', { name: 'Preview the description' }).click();
    await page.waitForURL(/\/events\/gala#description-preview$/);
    const box = page.locator('#description-preview');
    expect(await box.isVisible()).toBe(true);
    expect(await box.locator('strong').textContent()).toBe('18:30');
    expect(await box.locator('a').getAttribute('href')).toBe('https://example.org/programme');
    expect(await box.textContent()).toContain('nothing was saved yet');
    expect(await page.getByLabel('Description').inputValue()).toContain('Doors at **18:30**.');
    expect(await description()).toBe(before);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await context.close();
  });

  it('the server-rendered preview passes axe at both widths', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await signInToConsole(page, base, OWNER, /\/console\/a\/finish\/events$/);
    await page.goto(`${base}/console/a/finish/events/gala`);
    await page.getByLabel('Description').fill('# Welcome\n\nAll *day* long, with [the map](https://example.org/map).');
    // the form sent as without script (requestSubmit fires no click, so the script leaves it alone)
    await Promise.all([
      page.waitForURL(/#description-preview$/),
      page.evaluate(`(() => {
        const b = document.querySelector('button[name=intent][value=preview]');
        b.form.requestSubmit(b);
      })()`),
    ]);
    await page.locator('#description-preview h2', { hasText: 'Welcome' }).waitFor();
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      expect(await seriousViolations(page), `preview at ${width}`).toEqual([]);
      if (width === 390) expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    }
    await page.locator('#description-preview').scrollIntoViewIfNeeded();
    await screenshotBoth(page, 'console-description-preview');
    await page.close();
  });
});

/** [who, page, the empty list's name, the next step's link text] */
const EMPTY: Array<[typeof OWNER, string, string, string]> = [
  [SOLO, '/console/a/blank/events', 'events', 'Create your first event'],
  [SOLO, '/console/a/blank/events?show=archived', 'archived-events', 'Back to the current events'],
  [SOLO, '/console/a/blank/door', 'door', 'Create an event'],
  [SOLO, '/console/a/blank/team', 'team', 'Invite someone'],
  [SOLO, '/console/a/blank/tokens', 'tokens', 'Create a token'],
  [SOLO, '/console/a/blank/webhooks', 'webhooks', 'Add an endpoint'],
  [OWNER, '/console/a/finish/events/gala/orders', 'orders', 'Or issue a complimentary order'],
  [OWNER, '/console/a/finish/events/draft-ev/orders', 'orders', 'Publish it'],
  [OWNER, '/console/a/finish/events/bare/dashboard', 'availability', 'Add a ticket type'],
  [OWNER, '/console/a/finish/events/gala/reports', 'orders', 'Or issue a complimentary order'],
  [OWNER, '/console/a/finish/events/bare/reports/orders', 'orders', 'Add a ticket type'],
  [OWNER, '/console/a/finish/events/sold/orders?status=canceled', 'orders-match', 'Clear the filters'],
  [OWNER, '/console/a/finish/events/gala/waiting-list', 'waiting-list', 'Turn the waiting list on'],
  [OWNER, '/console/a/finish/events/gala/messages', 'messages', 'Write the first message'],
  [OWNER, '/console/a/finish/events/bare/codes', 'codes', 'Add the first discount code'],
  [OWNER, '/console/a/finish/events/bare/sessions', 'sessions', 'Add the first session'],
  [OWNER, '/console/a/finish/events/sold/orders/SOLD-1/invoices', 'invoices', 'Invoicing settings'],
];

describe('empty lists with their next step', () => {
  for (const width of [390, 1280]) {
    it(`show the next step, fit the window and pass axe at ${width} px`, async () => {
      const pages = new Map<typeof OWNER, Page>();
      for (const who of [OWNER, SOLO]) {
        const page = await browser.newPage({ viewport: { width, height: width === 390 ? 844 : 900 } });
        await signInToConsole(page, base, who, /\/console\/a\/\w+\/events$/);
        pages.set(who, page);
      }
      for (const [who, url, name, next] of EMPTY) {
        const page = pages.get(who)!;
        const refused = watchCsp(page);
        await page.goto(`${base}${url}`);
        const empty = page.locator(`[data-empty="${name}"]`);
        expect(await empty.isVisible(), `${url} shows its empty state`).toBe(true);
        const step = empty.getByRole('link', { name: next });
        expect(await step.isVisible(), `${url}: "${next}"`).toBe(true);
        const box = await step.boundingBox();
        expect(box && box.x >= 0 && box.x + box.width <= width, `${url}: "${next}" within the window`).toBe(true);
        expect(await page.evaluate<number>('document.documentElement.scrollWidth'), `${url} at ${width} px`).toBeLessThanOrEqual(
          width,
        );
        expect(await seriousViolations(page), `${url} at ${width} px`).toEqual([]);
        expect(refused, url).toEqual([]);
      }
      // the next step leads where it says
      const solo = pages.get(SOLO)!;
      await solo.goto(`${base}/console/a/blank/events`);
      await solo.getByRole('link', { name: 'Create your first event' }).click();
      await solo.waitForURL(/\/events\/new$/);
      const owner = pages.get(OWNER)!;
      await owner.goto(`${base}/console/a/finish/events/draft-ev/orders`);
      await owner.locator('[data-empty="orders"]').getByRole('link', { name: 'Publish it' }).click();
      await owner.waitForURL(/\/events\/draft-ev#lifecycle$/);
      expect(await owner.getByRole('button', { name: 'Publish' }).isVisible()).toBe(true);
      for (const page of pages.values()) await page.close();
    });
  }

  it('screenshots of the main empty pages', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signInToConsole(page, base, SOLO, /\/console\/a\/blank\/events$/);
    await screenshotBoth(page, 'console-empty-events');
    await page.goto(`${base}/console/a/blank/tokens`);
    await screenshotBoth(page, 'console-empty-tokens');
    await page.close();
    const owner = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signInToConsole(owner, base, OWNER, /\/console\/a\/finish\/events$/);
    await owner.goto(`${base}/console/a/finish/events/gala/orders`);
    await screenshotBoth(owner, 'console-empty-orders');
    await owner.goto(`${base}/console/a/finish/events/bare/dashboard`);
    await screenshotBoth(owner, 'console-empty-dashboard');
    await owner.goto(`${base}/console/a/finish/events/gala/waiting-list`);
    await screenshotBoth(owner, 'console-empty-waiting-list');
    await owner.close();
  });
});
