import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { seriousViolations, SHOTS, watchCsp } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp, type Seeded } from './browser-app.ts';
import { pdfText } from '../pdf-reader.ts';
import { makeAccountFile, makeEvent } from '../factories.ts';

/** A person buying on the event page, an audience page and a portal, in Debian's Chromium. */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let base: string;
let a: Seeded;

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      themes: [{ name: 'Lantern', is_default: true, settings: { accent_color: '#b4461b' } }],
      events: [
        makeEvent({
          slug: 'fest',
          name: 'Harbour Fest',
          description:
            'Three stages on the **old harbour**, food from the quay and a late set on the pier.\n\n## Getting there\n\nTake the ferry to *Landungsbrücken*; the gates open at 17:00.',
          venue: { name: 'Harbour Sheds', address: 'Am Kai 3, 20457 Hamburg', map_url: 'https://maps.example/sheds' },
          sales_end_at: '2027-03-15T15:00:00Z',
          ticket_types: [
            { key: 'ga', name: 'General admission', price: 2500, capacity: 50, max_per_order: 6, tax_rate_bp: 700 },
            { key: 'gone', name: 'Front row', price: 6000, capacity: 0 },
            { key: 'crew', name: 'Crew pass', price: 1000, audience: 'crew' },
            { key: 'box', name: 'Harbour box', price: 9000, capacity: 3, max_per_order: 3 },
          ],
          goods: [{ key: 'tote', name: 'Tote bag', price: 1200, capacity: 20 }],
          audiences: [{ key: 'crew', name: 'Crew' }],
          portals: [{ key: 'uni', name: 'University box office' }],
          discount_codes: [{ code: 'FRIENDS', percent_off: 10 }],
        }),
      ],
    }),
  });
  ({ t, browser, base } = app);
  a = app.seeded;
  const ev = await t.ctx.db
    .selectFrom('events')
    .select(['id', 'account_id'])
    .where('slug', '=', 'fest')
    .executeTakeFirstOrThrow();
  await t.ctx.db
    .insertInto('questions')
    .values({
      account_id: ev.account_id,
      event_id: ev.id,
      key: 'source',
      label: 'How did you hear about us?',
      scope: 'order',
      required: true,
    })
    .execute();
});
afterAll(() => app?.close());

async function buy(page: Page, pagePath: string, ticket: string, shot: string, extra?: (p: Page) => Promise<void>) {
  await page.goto(`${base}${pagePath}`);
  await extra?.(page);
  await page.getByLabel(ticket, { exact: true }).selectOption('2');
  await page.getByLabel('Name').fill('Ada Lovelace');
  await page.getByLabel('Email').fill('ada@example.org');
  await page.getByLabel('How did you hear about us? (required)').fill('A friend');
  if (shot === 'shop') {
    // 2 × 25.00 + a tote 12.00, less the typed code's 10 %: priced by the server as the checkout will
    await expect.poll(() => page.locator('[data-total] output').textContent(), { timeout: 5_000 }).toBe('€55.80');
    expect(await page.locator('[data-total-note]').textContent()).toBe('(€6.20 off with your code)');
  }
  await page.screenshot({ path: `${SHOTS}/${shot}-form.png`, fullPage: true });
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.waitForURL(/\/pay\//);
  await page.getByRole('button', { name: /Pay/ }).click();
  await page.waitForURL(/\/o\//);
  await page.screenshot({ path: `${SHOTS}/${shot}-tickets.png`, fullPage: true });
  return page.url();
}

async function apiOrder(orderUrl: string) {
  const secret = orderUrl.split('/').pop()!;
  const { ref } = await t.ctx.db.selectFrom('orders').select('ref').where('access_secret', '=', secret).executeTakeFirstOrThrow();
  return (await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/orders/${ref}` })).json();
}

describe('a person buying', () => {
  it('chooses tickets and a good, applies a code, answers, pays in the sandbox and sees the tickets', async () => {
    const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
    const refused = watchCsp(page);
    const res = await page.goto(`${base}/e/${a.slug}/fest`);
    // the running total runs allowed by its hash: scripts need no 'unsafe-inline' (and the
    // browser refusing it would fail watchCsp below)
    expect(res!.headers()['content-security-policy']).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+={0,2}'(;|$)/);
    // shown (it starts hidden) and at zero once the script ran
    await expect.poll(() => page.locator('[data-total] output').textContent()).toBe('€0.00');
    // a sold-out type has no quantity field at all
    expect(await page.getByLabel('Front row', { exact: true }).count()).toBe(0);
    expect(await page.getByText('Sold out').count()).toBeGreaterThan(0);
    // the hints: few left, and when sales end
    expect(await page.locator('.admit-item', { hasText: 'Harbour box' }).textContent()).toContain('only 3 left');
    expect(await page.locator('.admit-hint', { hasText: 'Sales end' }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    const url = await buy(page, `/e/${a.slug}/fest`, 'General admission', 'shop', async (p) => {
      await p.getByLabel('Tote bag').selectOption('1');
      // the running total follows the quantities (2 × 25.00 is added by buy())
      await expect.poll(() => p.locator('[data-total] output').textContent()).toBe('€12.00');
      await p.getByLabel('Discount code (optional)').fill('FRIENDS');
      await expect.poll(() => p.locator('[data-total] output').textContent(), { timeout: 5_000 }).toBe('€10.80');
    });
    expect(await page.locator('.admit-ticket svg').count()).toBe(2);
    const o = await apiOrder(url);
    // the tickets to keep: the PDF the order page links, read back as text
    const pdf = await page.request.get(
      `${base}${await page.getByRole('link', { name: 'Download tickets (PDF)' }).getAttribute('href')}`,
    );
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    const text = await pdfText(await pdf.body());
    expect(text).toContain('Harbour Fest');
    expect(text).toContain('Ada Lovelace');
    expect(o.tickets).toHaveLength(2);
    for (const ref of o.tickets as string[]) expect(text).toContain(ref);
    expect(refused).toEqual([]);
    expect(o).toMatchObject({
      status: 'paid',
      audience: null,
      portal: null,
      discounts: [{ code: 'FRIENDS', amount_cents: 620 }],
      answers: [{ question: 'How did you hear about us?', answer: 'A friend' }],
    });
    expect(o.lines.map((l: { name: string; quantity: number }) => [l.name, l.quantity])).toEqual([
      ['General admission', 2],
      ['Tote bag', 1],
    ]);
    await page.close();
  });

  it('finds the event from the root page and the account page (phone and desktop, axe)', async () => {
    for (const [width, height, size] of [
      [390, 844, 'phone'],
      [1280, 900, 'desktop'],
    ] as const) {
      const page = await browser.newPage({ viewport: { width, height } });
      await page.goto(`${base}/`);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/root-${size}.png`, fullPage: true });
      await page.goto(`${base}/e/${a.slug}`);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/account-${size}.png`, fullPage: true });
      await page.getByRole('link', { name: 'Harbour Fest' }).click();
      await page.waitForURL(/\/fest$/);
      expect(await page.getByRole('heading', { name: 'Getting there' }).count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/event-${size}.png`, fullPage: true });
      const ics = await page.request.get(
        await page
          .getByRole('link', { name: 'Add to calendar' })
          .getAttribute('href')
          .then((h) => `${base}${h}`),
      );
      expect(ics.headers()['content-type']).toContain('text/calendar');
      expect(await ics.text()).toContain('SUMMARY:Harbour Fest');
      await page.close();
    }
  });

  it('buys through an audience page and a portal, which the orders record', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const crew = await apiOrder(await buy(page, `/e/${a.slug}/fest/a/crew`, 'Crew pass', 'audience'));
    expect(crew).toMatchObject({ audience: 'crew', portal: null });
    const uni = await apiOrder(await buy(page, `/e/${a.slug}/fest/p/uni`, 'General admission', 'portal'));
    expect(uni).toMatchObject({ audience: null, portal: 'uni' });
    const avail = (await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/fest/availability' })).json();
    expect(avail.rows[0]).toMatchObject({ name: 'General admission', via_portals: 2, portals: [{ portal: 'uni', units: 2 }] });
    await page.close();
  });

  it('buys in German: a browser asking for de-DE reads the page, the hints, the total, the pay and order pages and the PDF in German', async () => {
    const context = await browser.newContext({ locale: 'de-DE', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const refused = watchCsp(page);
    await page.goto(`${base}/e/${a.slug}/fest`);
    expect(await page.locator('html').getAttribute('lang')).toBe('de-DE');
    expect(await page.getByRole('heading', { name: 'Harbour Fest' }).count()).toBe(1);
    expect(await page.locator('.admit-item', { hasText: 'Front row' }).textContent()).toContain('Ausverkauft');
    expect(await page.locator('.admit-item', { hasText: 'Harbour box' }).textContent()).toContain('nur noch 3 verfügbar');
    expect(await page.locator('.admit-hint', { hasText: 'Verkauf endet' }).textContent()).toContain('15. März 2027');
    expect(await page.getByText('35 Minuten lang').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/de-event-phone.png`, fullPage: true });
    const ics = await page.request.get(
      `${base}${await page.getByRole('link', { name: 'Zum Kalender hinzufügen' }).getAttribute('href')}`,
    );
    expect(await ics.text()).toContain('SUMMARY:Harbour Fest');

    await page.getByLabel('General admission', { exact: true }).selectOption('2');
    await page.getByLabel('Harbour box', { exact: true }).selectOption('1');
    // 2 × 25,00 € + 90,00 €, in German notation
    await expect.poll(() => page.locator('[data-total] output').textContent()).toBe('140,00\u00a0€');
    await page.getByLabel('Name').fill('Jürgen Weiß');
    await page.getByLabel('E-Mail').fill('juergen@example.org');
    await page.getByRole('button', { name: 'Weiter zur Zahlung' }).click();
    // the question was left out: the form comes back in German, filled in
    await page.waitForSelector('[role=alert]');
    expect(await page.locator('[role=alert]').textContent()).toContain('Bitte prüfen Sie die markierten Felder.');
    expect(await page.getByLabel('Name').inputValue()).toBe('Jürgen Weiß');
    await page.getByLabel('How did you hear about us? (Pflichtfeld)').fill('Radio');
    await page.getByRole('button', { name: 'Weiter zur Zahlung' }).click();
    await page.waitForURL(/\/pay\//);
    expect(await page.locator('html').getAttribute('lang')).toBe('de-DE');
    expect(await page.getByText('Ihre Tickets sind reserviert bis').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/de-pay-phone.png`, fullPage: true });
    await page.getByRole('button', { name: '140,00\u00a0€ bezahlen' }).click();
    await page.waitForURL(/\/o\//);
    expect(await page.getByRole('heading', { name: 'Sie sind dabei!' }).count()).toBe(1);
    expect(await page.locator('.admit-ticket svg').count()).toBe(3);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/de-order-phone.png`, fullPage: true });
    const o = await apiOrder(page.url());
    const pdf = await page.request.get(
      `${base}${await page.getByRole('link', { name: 'Tickets herunterladen (PDF)' }).getAttribute('href')}`,
    );
    const text = await pdfText(await pdf.body());
    expect(text).toContain('Jürgen Weiß');
    expect(text).toContain('Bestellung');
    expect(text).toContain('Zeigen Sie diesen Code am Eingang.');
    for (const ref of o.tickets as string[]) expect(text).toContain(ref);
    // the switch back to English keeps the order
    await page.getByRole('link', { name: 'English' }).click();
    expect(await page.getByRole('heading', { name: 'Your tickets' }).count()).toBe(1);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/e/${a.slug}/fest`);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/de-event-desktop.png`, fullPage: true });
    expect(refused).toEqual([]);
    await context.close();
  });
});
