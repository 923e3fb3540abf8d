import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { screenshotBoth, seriousViolations, SHOTS, watchCsp } from './chromium.ts';
import { startBrowserApp, type BrowserApp, type Seeded } from './browser-app.ts';
import { pdfText } from '../pdf-reader.ts';
import { makeAccountFile, makeEvent } from '../factories.ts';

/** A business buyer gives an invoice address at checkout and gets the invoice, in Debian's Chromium. */

let app: BrowserApp;
let browser: Browser;
let base: string;
let a: Seeded;

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      account: {
        slug: 'konferenz',
        name: 'Konferenz',
        payments: { mode: 'sandbox' },
        invoicing: {
          enabled: true,
          issuer: { name: 'Konferenz GmbH', address: 'Hauptstr. 1\n10115 Berlin', country: 'DE', vat_id: 'DE123456789' },
          number_prefix: 'RE',
        },
      },
      slug: 'konferenz',
      events: [
        makeEvent({
          slug: 'devconf',
          name: 'DevConf',
          ticket_types: [{ key: 'day', name: 'Day ticket', price: 1850, capacity: 50, tax_rate_bp: 1000 }],
          discount_codes: [{ code: 'TWENTY', percent_off: 20 }],
        }),
        makeEvent({
          slug: 'meetup',
          name: 'Meetup',
          ticket_types: [{ key: 'free', name: 'Free seat', price: 0, capacity: 50 }],
        }),
      ],
    }),
  });
  ({ browser, base } = app);
  a = app.seeded;
});
afterAll(() => app?.close());

describe('invoice at checkout', () => {
  it('fills the invoice address, pays, finds the invoice on the order page; reverse charge on the receipt and in the PDF', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const refused = watchCsp(page);
    await page.goto(`${base}/e/${a.slug}/devconf`);
    await page.getByLabel('Day ticket', { exact: true }).selectOption('1');
    await page.locator('#f-name').fill('Ada Lovelace');
    await page.locator('#f-email').fill('ada@example.org');
    await page.getByLabel('Discount code (optional)').fill('TWENTY');
    await page.getByLabel('Company (optional)').fill('Acme Ltd');
    await page.locator('#f-inv_name').fill('Ada Lovelace');
    await page.getByLabel('Street and number').fill('1 Main St');
    await page.getByLabel('Postcode').fill('1010');
    await page.getByLabel('City').fill('Wien');
    await page.getByLabel('Country (two-letter code, e.g. DE)').fill('AT');
    await page.getByLabel('VAT ID (optional)').fill('ATU12345678');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBoth(page, 'invoice-checkout');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/pay\//);
    // reverse charge: the business pays the net price (18.50 less its 1.68 VAT, less 20 %), and the
    // receipt shows no VAT in the total, as the invoice does not, but the legal note
    const foot = await page.locator('.admit-receipt tfoot').textContent();
    expect(foot).not.toMatch(/includes/);
    expect(foot).toMatch(/Total\s+€13\.46/);
    expect(foot).toContain('Reverse charge');
    await screenshotBoth(page, 'invoice-pay-reverse-charge');
    await page.getByRole('button', { name: /Pay/ }).click();
    await page.waitForURL(/\/o\//);
    const link = page.getByRole('link', { name: 'Invoice RE2026-1' });
    expect(await link.count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBoth(page, 'invoice-order-page');
    const pdf = await page.request.get(`${base}${await link.getAttribute('href')}`);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    const bytes = await pdf.body();
    const text = await pdfText(bytes);
    // a second reader, poppler's (the browser stage installs poppler-utils with Chromium), agrees
    expect(execFileSync('pdftotext', ['-layout', '-', '-'], { input: bytes }).toString('utf8')).toMatch(/Total\s+€13\.46/);
    // an Austrian business with a VAT ID buying from a German issuer: reverse charge, no VAT
    expect(text).toContain('Reverse charge');
    expect(text).toMatch(/Total\s+€13\.46/);
    // the PDF opens in Chromium's own viewer (not a download, not an error page)
    const viewer = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    let opened: string;
    try {
      const res = await viewer.goto(`${base}${await link.getAttribute('href')}`);
      opened = `${res?.status()} ${res?.headers()['content-type']}`;
      await viewer.waitForTimeout(1500);
      await viewer.screenshot({ path: `${SHOTS}/invoice-pdf-viewer.png` });
    } catch (err) {
      opened = `navigation: ${(err as Error).message.split('\n')[0]}`;
    }
    console.log('invoice PDF in Chromium:', opened);
    expect(opened).toMatch(/^200 application\/pdf|Download is starting/);
    expect(refused).toEqual([]);
    await page.close();
    await viewer.close();
  });

  it('a free order: the buyer asks for an invoice on the order page and gets it', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const refused = watchCsp(page);
    await page.goto(`${base}/e/${a.slug}/meetup`);
    await page.getByLabel('Free seat', { exact: true }).selectOption('1');
    await page.locator('#f-name').fill('Grace Hopper');
    await page.locator('#f-email').fill('grace@example.org');
    await page.getByRole('button', { name: /Get tickets|Continue|Order/ }).click();
    await page.waitForURL(/\/o\//);
    await page.getByText('Need an invoice?').click();
    await page.locator('#r-inv_name').fill('Grace Hopper');
    await page.locator('#r-inv_street').fill('Weg 1');
    await page.locator('#r-inv_postcode').fill('10115');
    await page.locator('#r-inv_city').fill('Berlin');
    await page.locator('#r-inv_country').fill('XX');
    await page.getByRole('button', { name: 'Request the invoice' }).click();
    // refused: the form stays open with the country marked and what was typed kept
    await expect.poll(() => page.locator('#r-inv_country[aria-invalid="true"]').count()).toBe(1);
    expect(await page.locator('#r-inv_street').inputValue()).toBe('Weg 1');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBoth(page, 'invoice-request-refused');
    await page.locator('#r-inv_country').fill('DE');
    await page.getByRole('button', { name: 'Request the invoice' }).click();
    const link = page.getByRole('link', { name: /^Invoice RE2026-\d+$/ });
    await expect.poll(() => link.count()).toBe(1);
    expect(await page.getByText('Need an invoice?').count()).toBe(0);
    const pdf = await page.request.get(`${base}${await link.getAttribute('href')}`);
    expect(await pdfText(await pdf.body())).toMatch(/Total\s+€0\.00/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBoth(page, 'invoice-request-done');
    expect(refused).toEqual([]);
    await page.close();
  });
});
