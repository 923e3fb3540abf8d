import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const SHOTS = path.resolve(import.meta.dirname, '../../test-results/screenshots');

/**
 * Debian's Chromium, headless, with everything that would reach the network turned off (this
 * machine's network is closed and Chromium otherwise retries its own services).
 */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  fs.mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

const AXE_SOURCE = fs.readFileSync(path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  /** CSS selectors of the offending elements */
  targets: string[];
}

/**
 * Runs axe-core (WCAG 2.x A/AA rules) in the page and returns the serious and critical violations,
 * so a test can `expect(await seriousViolations(page)).toEqual([])` and see what failed.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // evaluated by the debugger, not added as a <script>: the pages' CSP runs no inline script
  // without the response's nonce, and must not be weakened for the test
  await page.evaluate(AXE_SOURCE);
  // a string, so the browser-side code needs no DOM types here
  const found = (await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`)) as Array<{
    id: string;
    impact: string | null;
    help: string;
    targets: string[];
  }>;
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Collects what the page's Content-Security-Policy refused (Chromium reports each on the
 * console) and the page's uncaught errors, from now on: a test expects the list to stay empty.
 */
export function watchCsp(page: Page): string[] {
  const seen: string[] = [];
  page.on('console', (m) => {
    if (/content security policy/i.test(m.text())) seen.push(m.text());
  });
  page.on('pageerror', (e) => seen.push(`page error: ${e.message}`));
  return seen;
}

/** Screenshots a page at phone (390 px) and desktop (1280 px) width under test-results/screenshots. */
export async function screenshotBoth(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  for (const [label, width] of [
    ['phone', 390],
    ['desktop', 1280],
  ] as const) {
    await page.setViewportSize({ width, height: label === 'phone' ? 844 : 800 });
    await page.screenshot({ path: `${SHOTS}/${name}-${label}.png`, fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

/** Signs a person in on the console's sign-in page; with `landing`, waits until the console arrives there. */
export async function signInToConsole(
  page: Page,
  base: string,
  who: { email: string; password: string },
  landing?: RegExp,
): Promise<void> {
  await page.goto(`${base}/console`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (landing) await page.waitForURL(landing);
}
