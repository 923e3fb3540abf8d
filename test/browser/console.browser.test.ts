import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { screenshotBoth, seriousViolations, signInToConsole } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp } from './browser-app.ts';
import { makeAccountFile, makeEvent } from '../factories.ts';

/** An organiser in the console, in Debian's Chromium: sign in, set up an event, sell on it, see the count. */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;

const OWNER = { email: 'owner@example.org', password: 'correct horse battery' };
const VIEWER = { email: 'viewer@example.org', password: 'viewer password 1' };
const DOOR = { email: 'door@example.org', password: 'door password 12' };

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      slug: 'lantern',
      users: [
        { ...OWNER, name: 'Olive Owner', role: 'owner' },
        { ...VIEWER, role: 'viewer' },
        { ...DOOR, role: 'door' },
      ],
      events: [makeEvent({ slug: 'existing', name: 'Existing Night' })],
    }),
  });
  ({ t, browser, base } = app);
});
// a fresh sign-in budget (per minute, per email and address) for every test
beforeEach(() => t.clock.advance(61_000));
afterAll(() => app?.close());

const signIn = (page: Page, who: { email: string; password: string }) => signInToConsole(page, base, who);

async function accessible(page: Page, name: string) {
  expect(await seriousViolations(page), name).toEqual([]);
  await screenshotBoth(page, `console-${name}`);
}

describe('the organiser console', () => {
  it('refuses a wrong password without saying whether the email exists', async () => {
    const page = await browser.newPage();
    await signIn(page, { email: OWNER.email, password: 'not the password' });
    expect(await page.getByRole('alert').textContent()).toContain('That email and password do not match');
    await signIn(page, { email: 'nobody@example.org', password: 'not the password' });
    expect(await page.getByRole('alert').textContent()).toContain('That email and password do not match');
    await accessible(page, 'sign-in');
    await page.close();
  });

  it('signs in, creates an event with two ticket types and a code, sells a ticket, and counts it', async () => {
    const page = await browser.newPage();
    await signIn(page, OWNER);
    await page.waitForURL(/\/console\/a\/lantern\/events$/);
    await accessible(page, 'events');

    await page.getByRole('link', { name: 'New event' }).click();
    await accessible(page, 'new-event');
    await page.getByLabel('Web address').fill('summer-night');
    await page.getByLabel('Name', { exact: true }).fill('Summer Night');
    await page.getByLabel('Timezone').selectOption('Europe/Berlin');
    await page.getByLabel('Starts', { exact: true }).fill('2027-06-01T19:00');
    await page.getByLabel('Venue', { exact: true }).fill('Harbour Hall');
    await page.getByLabel('Description').fill('A **warm** night by the water.');
    await page.getByRole('button', { name: 'Create the event' }).click();
    await page.waitForURL(/\/events\/summer-night\/ticket-types/);
    expect(await page.getByRole('status').textContent()).toContain('The event was created');

    const add = page.locator('form:has(h2:text("Add a ticket type"))');
    for (const [key, name, price, cap] of [
      ['ga', 'General admission', '25.00', '100'],
      ['vip', 'VIP', '80', '10'],
    ] as const) {
      await add.getByLabel('Key').fill(key);
      await add.getByLabel('Name').fill(name);
      await add.getByLabel('Price (EUR)').fill(price);
      await add.getByLabel('Capacity').fill(cap);
      await add.getByLabel('On sale').check();
      await add.getByRole('button', { name: 'Add' }).click();
      await page.waitForURL(/done=added/);
    }
    await accessible(page, 'ticket-types');
    expect(await page.locator('details.item summary').allTextContents()).toEqual([
      expect.stringContaining('General admission'),
      expect.stringContaining('VIP'),
    ]);

    // a bad price is shown next to the field, with the input kept
    await add.getByLabel('Key').fill('kids');
    await add.getByLabel('Name').fill('Kids');
    await add.getByLabel('Price (EUR)').fill('cheap');
    await add.getByRole('button', { name: 'Add' }).click();
    await expect(add.getByLabel('Price (EUR)').inputValue()).resolves.toBe('cheap');
    expect(await add.locator('.error').first().textContent()).toContain('Enter an amount, like');
    await accessible(page, 'ticket-types-error');

    await page.getByRole('link', { name: 'Discount codes' }).click();
    const addCode = page.locator('form:has(h2:text("Add a discount code"))');
    await addCode.getByLabel('Code', { exact: true }).fill('SUMMER');
    await addCode.getByLabel('Percent off').fill('10');
    await addCode.getByRole('button', { name: 'Add' }).click();
    await page.waitForURL(/codes\?done=added/);
    await accessible(page, 'codes');

    for (const tab of ['Details', 'Goods', 'Sessions', 'Donations', 'Audiences', 'Portals', 'Check-in lists']) {
      await page.getByRole('link', { name: tab, exact: true }).click();
      await accessible(page, `tab-${tab.toLowerCase().replace(/\s/g, '-')}`);
    }
    await page.getByRole('link', { name: 'Team' }).click();
    await accessible(page, 'team');
    await page.getByRole('link', { name: 'API tokens' }).click();
    await accessible(page, 'tokens');
    await page.getByRole('link', { name: 'Your sign-in' }).click();
    await accessible(page, 'me');

    // a new event is a draft: published from its details page before a buyer can see it
    await page.goto(`${base}/console/a/lantern/events/summer-night`);
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.waitForURL(/lifecycle=published/);

    // a buyer buys on the new event's public page
    const buyer = await browser.newPage();
    await buyer.goto(`${base}/e/lantern/summer-night`);
    await buyer.getByLabel('General admission', { exact: true }).selectOption('1');
    await buyer.getByLabel('Name').fill('Ada Lovelace');
    await buyer.getByLabel('Email').fill('ada@example.org');
    await buyer.getByRole('button', { name: 'Continue to payment' }).click();
    await buyer.waitForURL(/\/pay\//);
    await buyer.getByRole('button', { name: /Pay/ }).click();
    await buyer.waitForURL(/\/o\//);
    await buyer.close();

    await page.goto(`${base}/console/a/lantern/events`);
    expect(await page.locator('[data-sold="summer-night"]').textContent()).toBe('1');
    await page.close();
  });

  it('refuses a form posted without its CSRF token, and changes nothing', async () => {
    const page = await browser.newPage();
    await signIn(page, OWNER);
    await page.waitForURL(/\/events$/);
    const res = await page.request.post(`${base}/console/a/lantern/events/new`, {
      form: { slug: 'forged', name: 'Forged', currency: 'eur', timezone: 'UTC', starts_at: '2027-01-01T10:00' },
    });
    expect(res.status()).toBe(403);
    expect(await t.ctx.db.selectFrom('events').select('id').where('slug', '=', 'forged').execute()).toEqual([]);
    await page.close();
  });

  it('shows a viewer no way to change anything, and a door person only door check-in and their sign-in', async () => {
    const page = await browser.newPage();
    await signIn(page, VIEWER);
    await page.waitForURL(/\/events$/);
    expect(await page.getByRole('link', { name: 'New event' }).count()).toBe(0);
    await page.goto(`${base}/console/a/lantern/events/existing/ticket-types`);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Team' }).count()).toBe(0);
    await accessible(page, 'viewer-ticket-types');
    await page.close();

    const door = await browser.newPage();
    await signIn(door, DOOR);
    await door.waitForURL(/\/console\/a\/lantern\/door$/);
    expect(await door.getByRole('link', { name: 'Events', exact: true }).count()).toBe(0);
    expect(await door.getByRole('link', { name: 'Door check-in' }).count()).toBe(1);
    const events = await door.goto(`${base}/console/a/lantern/events`);
    expect(events?.status()).toBe(404);
    await door.close();
  });

  it('every other console page passes axe: forgot, reset, invitation, two-step setup and code, new token', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/console/forgot`);
    await accessible(page, 'forgot');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await accessible(page, 'forgot-sent');
    const payloadOf = async (kind: string) => {
      const row = await t.ctx.db
        .selectFrom('outbox')
        .select('payload')
        .where('kind', '=', kind)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      return (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as { token: string };
    };
    await page.goto(`${base}/console/reset/${(await payloadOf('mail.password_reset')).token}`);
    await accessible(page, 'reset');

    await signIn(page, OWNER);
    await page.waitForURL(/\/events$/);
    await page.goto(`${base}/console/a/lantern/team`);
    await page.getByLabel('Email', { exact: true }).fill('helper@example.org');
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await page.waitForURL(/done=invited/);
    await accessible(page, 'team-invited');
    const guest = await browser.newPage();
    await guest.goto(`${base}/console/invite/${(await payloadOf('mail.invitation')).token}`);
    await accessible(guest, 'invite');
    await guest.close();

    await page.goto(`${base}/console/a/lantern/tokens`);
    await page.getByLabel('Name').fill('Box office');
    await page.getByLabel('events.view').check();
    await page.getByRole('button', { name: 'Create the token' }).click();
    expect(await page.locator('code.secret').textContent()).toMatch(/^adm_/);
    await accessible(page, 'token-created');

    await page.goto(`${base}/console/a/lantern/webhooks`);
    await page.getByLabel('URL').fill('https://hooks.example.org/admit');
    await page.getByLabel('order.paid').check();
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    expect(await page.locator('code.secret').textContent()).toMatch(/^whsec_/);
    await accessible(page, 'webhooks');
    await page.locator('details.item summary').first().click();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.waitForURL(/webhooks\/\d+\?done=queued/);
    await accessible(page, 'webhook-log');

    await page.goto(`${base}/console/me`);
    // changing the password: a wrong current one is said beside its field, nothing changes
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password').fill('a brand new password');
    await page.getByRole('button', { name: 'Change the password' }).click();
    expect(await page.getByText('That is not your password').count()).toBe(1);
    const wide = page.viewportSize();
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    if (wide) await page.setViewportSize(wide);
    await accessible(page, 'password-change');
    await page.goto(`${base}/console/me`);
    await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
    await accessible(page, 'totp-setup');
    const key = (await page.locator('code').first().textContent())!;
    const { Secret, TOTP } = await import('otpauth');
    const totp = new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' });
    await page.getByLabel('Code from the app').fill(totp.generate({ timestamp: t.clock.now().getTime() }));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.waitForURL(/done=2fa-on/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, OWNER);
    await page.waitForURL(/sign-in\/code/);
    await accessible(page, 'totp-code');
    await page.getByLabel('Code').fill(totp.generate({ timestamp: t.clock.now().getTime() }));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(/\/events$/);
    await page.close();
  });
});
