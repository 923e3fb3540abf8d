import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { screenshotBoth, seriousViolations, signInToConsole } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp } from './browser-app.ts';
import { makeAccountFile, makeEvent, makeOrder } from '../factories.ts';
import { qrCodeUrl } from '../../src/modules/checkin/checkin.service.ts';

/**
 * The door scanner in Debian's Chromium: it keeps working with the network gone (typed references,
 * a reload served by its service worker), uploads when the network returns, and reads a ticket's
 * QR code from a camera (Chromium's fake capture device fed a .y4m made from the code).
 */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;
let listId: number;
const DOOR = { email: 'door@example.org', password: 'door password 12' };

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      slug: 'lantern',
      users: [{ ...DOOR, name: 'Dana Door', role: 'door' }],
      events: [
        makeEvent({
          slug: 'night',
          name: 'Harbour Night',
          starts_at: '2026-11-22T19:00:00Z',
          ticket_types: [
            { key: 'ga', name: 'General admission', price: 2500, capacity: 100 },
            { key: 'vip', name: 'VIP', price: 6000, capacity: 10 },
          ],
          checkin_lists: [{ key: 'main', name: 'Main gate' }],
          orders: [
            makeOrder({
              ref: 'NIGHT-1',
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 2, unit_price: 2500, attendees: ['Ada Lovelace', 'Bo Diddley'] }],
            }),
            makeOrder({
              ref: 'NIGHT-2',
              lines: [{ kind: 'tickets', ref: 'vip', quantity: 1, unit_price: 6000, attendees: ['Cy Twombly'] }],
            }),
            makeOrder({
              ref: 'NIGHT-3',
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 2500, attendees: ['Di Prima'] }],
            }),
          ],
        }),
      ],
    }),
  });
  ({ t, browser, base } = app);
  listId = Number((await t.ctx.db.selectFrom('checkin_lists').select('id').executeTakeFirstOrThrow()).id);
});
beforeEach(() => t.clock.advance(61_000));
afterAll(() => app?.close());

const signIn = (page: Page) => signInToConsole(page, base, DOOR, /\/console\/a\/lantern\/door$/);

const scannerUrl = () => `${base}/console/a/lantern/door/night/${listId}`;
const checkinsOnList = () =>
  t.ctx.db
    .selectFrom('checkins as c')
    .innerJoin('tickets as tk', 'tk.id', 'c.ticket_id')
    .select(['tk.ref', 'c.conflict', 'c.reason', 'c.online', 'c.qr_code_scanned', 'c.device'])
    .where('c.checkin_list_id', '=', listId)
    .orderBy('c.created_at')
    .orderBy('c.id')
    .execute();

/** Types a reference, answers the result shown (and how long it took, scan to result). */
async function typeRef(page: Page, ref: string, screenshot?: string) {
  await page.getByLabel('Ticket reference').fill(ref);
  const started = await page.evaluate(() => performance.now());
  await page.getByRole('button', { name: 'Check in' }).click();
  await page.locator('#result[data-ok="true"], #result[data-ok="false"]').waitFor();
  const shownAt = await page.evaluate(() => performance.now());
  const result = {
    ok: (await page.locator('#result').getAttribute('data-ok')) === 'true',
    verdict: await page.locator('#r-verdict').textContent(),
    who: await page.locator('#r-who').textContent(),
    detail: await page.locator('#r-detail').textContent(),
    ms: shownAt - started,
  };
  if (screenshot) await page.screenshot({ path: `test-results/screenshots/${screenshot}-phone.png` });
  await page.locator('#result').click();
  await page.locator('#result[data-ok=""]').waitFor({ state: 'attached' });
  return result;
}

/** What the scanner measured from each scan's start (submit, camera frame) to its result on screen. */
const scanTimes = async (page: Page) =>
  ((await page.evaluate(`performance.getEntriesByName('admit-scan-result').map((e) => e.duration)`)) as number[]).map((d) =>
    d.toFixed(1),
  );

describe('the door scanner', () => {
  it('scans offline by typed reference, survives a reload offline, and uploads two admissions and one flagged conflict', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await signIn(page);
    expect(await seriousViolations(page), 'door page').toEqual([]);
    await screenshotBoth(page, 'console-door');
    await page.getByRole('link', { name: /Open scanner/ }).click();
    await page.waitForURL(scannerUrl());
    await expect.poll(() => page.locator('#notice').textContent()).toContain('Ready: 4 valid tickets');
    await page.locator('html[data-offline-ready="true"]').waitFor();
    expect(await page.locator('#total').textContent()).toBe('4');
    expect(await seriousViolations(page), 'scanner').toEqual([]);
    await screenshotBoth(page, 'console-scanner');

    await context.setOffline(true);
    await expect.poll(() => page.locator('#net').getAttribute('data-state')).toBe('offline');
    const first = await typeRef(page, 'night-1-1');
    expect(first).toMatchObject({ ok: true, verdict: 'Valid', who: 'Ada Lovelace', detail: 'General admission' });
    const second = await typeRef(page, 'NIGHT-2');
    expect(second).toMatchObject({ ok: true, who: 'Cy Twombly', detail: 'VIP' });
    const again = await typeRef(page, 'NIGHT-1-1', 'console-scanner-refused');
    expect(again).toMatchObject({ ok: false, verdict: 'Refused', who: 'Ada Lovelace' });
    expect(again.detail).toMatch(/^Already checked in at \d\d:\d\d\.$/);
    const unknown = await typeRef(page, 'NOPE-9');
    expect(unknown).toMatchObject({ ok: false, verdict: 'Unknown ticket' });
    const several = await typeRef(page, 'NIGHT-1');
    expect(several).toMatchObject({ ok: false, verdict: 'Several tickets' });
    console.log(`typed scan to result, as the page measured it (ms): ${(await scanTimes(page)).join(', ')}`);
    console.log(
      `click to result, seen from the test (ms): ${[first, second, again, unknown, several].map((r) => r.ms.toFixed(1)).join(', ')}`,
    );
    expect(await page.locator('#pending').textContent()).toBe('3');
    expect(await page.locator('#checked').textContent()).toBe('2');
    expect(await checkinsOnList()).toEqual([]);

    // a reload with no network: the service worker serves the page, IndexedDB still holds list and queue
    await page.reload();
    await expect.poll(() => page.locator('#notice').textContent()).toContain('No connection');
    expect(await page.locator('#pending').textContent()).toBe('3');
    expect(await page.locator('#checked').textContent()).toBe('2');
    expect(await page.locator('#recent li').count()).toBe(5);
    await screenshotBoth(page, 'console-scanner-offline');

    await context.setOffline(false);
    await page.evaluate("window.dispatchEvent(new Event('online'))");
    await expect.poll(() => page.locator('#pending').textContent(), { timeout: 15_000 }).toBe('0');
    await expect.poll(() => page.locator('#net').getAttribute('data-state')).toBe('online');
    expect(await page.locator('#recent li .flag').allTextContents()).toEqual(['uploaded', 'uploaded', 'uploaded']);
    const rows = await checkinsOnList();
    expect(rows.map((r) => [r.ref, r.conflict, r.reason])).toEqual([
      ['NIGHT-1-1', false, null],
      ['NIGHT-2-1', false, null],
      ['NIGHT-1-1', true, 'already_checked_in'],
    ]);
    expect(rows.every((r) => !r.online && r.device?.startsWith(`${DOOR.email} · `))).toBe(true);
    const list = await t.ctx.db
      .selectFrom('checkin_lists')
      .select('checked_in_count')
      .where('id', '=', listId)
      .executeTakeFirstOrThrow();
    expect(list.checked_in_count).toBe(2);

    // the conflicts view
    await page.goto(`${scannerUrl()}/conflicts`);
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.getByRole('table').textContent()).toContain('NIGHT-1-1');
    expect(await seriousViolations(page), 'conflicts').toEqual([]);
    await screenshotBoth(page, 'console-conflicts');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('admits a ticket read from the camera (fake capture fed a QR code)', async () => {
    const ticket = await t.ctx.db
      .selectFrom('tickets')
      .select(['id', 'qr_token'])
      .where('ref', '=', 'NIGHT-3-1')
      .executeTakeFirstOrThrow();
    const camera = await app.launchCamera(qrCodeUrl(t.ctx, 'ticket', ticket.qr_token));
    try {
      const context = await camera.newContext({ viewport: { width: 390, height: 844 }, permissions: ['camera'] });
      const page = await context.newPage();
      await signIn(page);
      await page.goto(scannerUrl());
      await expect.poll(() => page.locator('#notice').textContent()).toContain('Ready');
      await page.getByRole('button', { name: 'Scan with the camera' }).click();
      await page.locator('#result[data-ok="true"]').waitFor({ timeout: 15_000 });
      expect(await page.locator('#r-who').textContent()).toBe('Di Prima');
      console.log(`camera frame to result, as the page measured it (ms): ${(await scanTimes(page)).join(', ')}`);
      await page.screenshot({ path: 'test-results/screenshots/console-scanner-camera-phone.png' });
      await expect.poll(() => page.locator('#pending').textContent(), { timeout: 15_000 }).toBe('0');
      const rows = (await checkinsOnList()).filter((r) => r.ref === 'NIGHT-3-1');
      expect(rows).toEqual([expect.objectContaining({ conflict: false, qr_code_scanned: true, online: false })]);
      await context.close();
    } finally {
      await camera.close();
    }
  });

  it("speaks the door person's language: German verdicts, notices and recent scans", async () => {
    await t.ctx.db.updateTable('users').set({ language: 'de' }).where('email', '=', DOOR.email).execute();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await signIn(page);
      await page.goto(scannerUrl());
      await expect.poll(() => page.locator('#notice').textContent()).toContain('Bereit: 4 gültige Tickets auf diesem Gerät.');
      await expect.poll(() => page.locator('#net').textContent()).toMatch(/^Online · abgeglichen \d\d:\d\d:\d\d$/);
      expect(await page.locator('#recent li').first().textContent()).toBe('Noch keine Scans auf diesem Gerät.');

      const typed = async (ref: string) => {
        await page.locator('#ref').fill(ref);
        await page.locator('#manual button[type=submit]').click();
        await page.locator('#result[data-ok="true"], #result[data-ok="false"]').waitFor();
        const shown = [await page.locator('#r-verdict').textContent(), await page.locator('#r-detail').textContent()];
        await page.locator('#result').click();
        await page.locator('#result[data-ok=""]').waitFor({ state: 'attached' });
        return shown;
      };
      expect(await typed('nope-9')).toEqual(['Unbekanntes Ticket', 'Kein Ticket dieser Liste.']);
      expect(await typed('night-1')).toEqual(['Mehrere Tickets', 'Geben Sie ein einzelnes Ticket ein: NIGHT-1-1, NIGHT-1-2']);
      const [verdict] = await typed('night-2-1');
      expect(['Gültig', 'Abgewiesen']).toContain(verdict);
      const recent = await page.locator('#recent li .what').allTextContents();
      expect(recent.slice(1)).toEqual(['Abgewiesen NIGHT-1 · mehrere Tickets', 'Abgewiesen NOPE-9 · unbekannt']);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await t.ctx.db.updateTable('users').set({ language: null }).where('email', '=', DOOR.email).execute();
    }
  });
});
