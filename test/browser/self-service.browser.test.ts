import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { screenshotBoth, seriousViolations, signInToConsole, watchCsp } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp } from './browser-app.ts';
import { makeAccountFile, makeEvent, makeOrder } from '../factories.ts';
import { qrCodeUrl } from '../../src/modules/checkin/checkin.service.ts';

/**
 * Self-service in Debian's Chromium, as a buyer does it: a rename, a transfer (after which the door
 * scanner, synced again, refuses the old QR code read from its camera) and a cancellation with its
 * refund; the holder's page; screenshots at 390 and 1280 px and axe on every page.
 */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;
let listId: number;
let secret: string;
const DOOR = { email: 'door@example.org', password: 'door password 12' };

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      slug: 'harbour',
      users: [{ ...DOOR, name: 'Dana Door', role: 'door' }],
      events: [
        makeEvent({
          slug: 'regatta',
          name: 'Harbour Regatta',
          starts_at: '2027-02-14T18:00:00Z',
          venue: { name: 'Pier 4', address: 'Harbour Road 4, Hamburg' },
          self_service: { transfer: true, cancel_until: '2027-02-01T12:00:00Z', cancel_fee_percent: 10 },
          ticket_types: [{ key: 'deck', name: 'Deck ticket', price: 3000, capacity: 50 }],
          checkin_lists: [{ key: 'pier', name: 'Pier gate' }],
          orders: [
            makeOrder({
              ref: 'REGATTA-1',
              name: 'Ada Lovelace',
              email: 'ada@example.org',
              lines: [{ kind: 'tickets', ref: 'deck', quantity: 3, unit_price: 3000 }],
              payments: [{ rail: 'sandbox', amount: 9000, at: '2026-11-20T10:05:00Z', fee: 0, provider_ref: 'sbx_regatta1' }],
            }),
          ],
        }),
      ],
    }),
    now: '2026-11-22T12:00:00Z',
  });
  ({ t, browser, base } = app);
  listId = Number((await t.ctx.db.selectFrom('checkin_lists').select('id').executeTakeFirstOrThrow()).id);
  secret = (await t.ctx.db.selectFrom('orders').select('access_secret').where('ref', '=', 'REGATTA-1').executeTakeFirstOrThrow())
    .access_secret;
});
beforeEach(() => t.clock.advance(61_000));
afterAll(() => app?.close());

const ticket = (ref: string) =>
  t.ctx.db
    .selectFrom('tickets')
    .select(['id', 'ref', 'status', 'attendee_name', 'qr_token', 'holder_secret'])
    .where('ref', '=', ref)
    .executeTakeFirstOrThrow();
const card = (page: Page, ref: string) => page.locator(`li.admit-ticket[data-ticket="${ref}"]`);

describe('self-service on the order page', () => {
  it('renames an attendee', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const csp = watchCsp(page);
    await page.goto(`${base}/o/${secret}`);
    expect(await seriousViolations(page), 'order page').toEqual([]);
    await screenshotBoth(page, 'self-service-order');
    const first = card(page, 'REGATTA-1-1');
    await first.getByText('Change the name').click();
    await first.getByLabel('Attendee name').fill('Grace Hopper');
    await first.getByLabel('Attendee email (optional)').fill('grace@example.org');
    await screenshotBoth(page, 'self-service-rename-open');
    await first.getByRole('button', { name: 'Save the name' }).click();
    await page.waitForURL(`${base}/o/${secret}`);
    await expect.poll(() => card(page, 'REGATTA-1-1').textContent()).toContain('Grace Hopper');
    expect(await ticket('REGATTA-1-1')).toMatchObject({ attendee_name: 'Grace Hopper' });
    // a refused name: the form open again, the problem named, the rest kept
    const second = card(page, 'REGATTA-1-2');
    await second.getByText('Change the name').click();
    await second.getByLabel('Attendee email (optional)').fill('not an email');
    await second.getByLabel('Attendee name').fill('Bo');
    await page.evaluate("document.querySelectorAll('form').forEach((f) => f.setAttribute('novalidate', ''))");
    await second.getByRole('button', { name: 'Save the name' }).click();
    await expect.poll(() => page.locator('.admit-error').first().textContent()).toBe('Enter an email address');
    expect(await card(page, 'REGATTA-1-2').getByLabel('Attendee name').inputValue()).toBe('Bo');
    expect(await seriousViolations(page), 'refused rename').toEqual([]);
    expect(csp).toEqual([]);
    await context.close();
  });

  it('passes a ticket on: the holder gets a page, and the door refuses the old code after its next sync', async () => {
    const before = await ticket('REGATTA-1-2');
    // the door's camera is fed the code the buyer had before the transfer
    const camera = await app.launchCamera(qrCodeUrl(t.ctx, 'ticket', before.qr_token));
    try {
      const door = await camera.newContext({ viewport: { width: 390, height: 844 }, permissions: ['camera'] });
      const scanner = await door.newPage();
      await signInToConsole(scanner, base, DOOR, /\/console\/a\/harbour\/door$/);
      const scannerUrl = `${base}/console/a/harbour/door/regatta/${listId}`;
      await scanner.goto(scannerUrl);
      await expect.poll(() => scanner.locator('#notice').textContent()).toContain('Ready: 3 valid tickets');

      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${base}/o/${secret}`);
      const second = card(page, 'REGATTA-1-2');
      await second.getByText('Pass this ticket on').click();
      await second.getByLabel('Their name').fill('Linus Torvalds');
      await second.getByLabel('Their email').fill('linus@example.org');
      await second.getByRole('button', { name: 'Pass it on' }).click();
      await page.waitForURL(`${base}/o/${secret}`);
      await expect.poll(() => card(page, 'REGATTA-1-2').textContent()).toContain('Passed on to Linus Torvalds');
      expect(await card(page, 'REGATTA-1-2').locator('svg').count()).toBe(0);
      expect(await seriousViolations(page), 'order page after a transfer').toEqual([]);
      await screenshotBoth(page, 'self-service-transferred');

      const after = await ticket('REGATTA-1-2');
      expect(after.qr_token).not.toBe(before.qr_token);
      await page.goto(`${base}/ticket/${after.holder_secret}`);
      expect(await page.locator('h1').textContent()).toBe('Harbour Regatta');
      expect(await page.locator('main').textContent()).toContain('Passed on to you by Ada Lovelace');
      expect(await page.locator('li.admit-ticket svg').count()).toBe(1);
      expect(await seriousViolations(page), 'holder page').toEqual([]);
      await screenshotBoth(page, 'self-service-holder');
      await context.close();

      // the scanner syncs again (a reload), then reads the old code from its camera: refused
      await scanner.reload();
      await expect.poll(() => scanner.locator('#notice').textContent()).toContain('Ready');
      await scanner.getByRole('button', { name: 'Scan with the camera' }).click();
      await scanner.locator('#result[data-ok="false"]').waitFor({ timeout: 15_000 });
      expect(await scanner.locator('#r-verdict').textContent()).toBe('Unknown ticket');
      await scanner.screenshot({ path: 'test-results/screenshots/self-service-old-code-refused-phone.png' });
      await door.close();
    } finally {
      await camera.close();
    }
    const admitted = await t.ctx.db.selectFrom('checkins').select('id').where('ticket_id', '=', before.id).execute();
    expect(admitted.filter(Boolean)).toHaveLength(0);
  });

  it('cancels a ticket: the refund less the fee, the ticket void', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${base}/o/${secret}`);
    await page.getByText('Cancel tickets', { exact: true }).click();
    const section = page.locator('section.admit-cancel');
    expect(await section.textContent()).toContain('€30.00, refund €27.00');
    await section.getByRole('checkbox', { name: /REGATTA-1-3/ }).check();
    await section.getByRole('checkbox', { name: /cannot be restored/ }).check();
    await screenshotBoth(page, 'self-service-cancel');
    await section.getByRole('button', { name: 'Cancel the chosen tickets' }).click();
    await page.waitForURL(`${base}/o/${secret}`);
    await expect.poll(() => card(page, 'REGATTA-1-3').textContent()).toContain('No longer valid');
    expect(await page.locator('main').textContent()).toContain('€27.00');
    const violations = await seriousViolations(page);
    expect(violations, JSON.stringify(violations, null, 1)).toEqual([]);
    expect(await ticket('REGATTA-1-3')).toMatchObject({ status: 'voided' });
    const refunds = await t.ctx.db.selectFrom('refunds').select(['amount_cents', 'status']).execute();
    expect(refunds).toEqual([{ amount_cents: 2700, status: 'succeeded' }]);
    await context.close();
  });
});
