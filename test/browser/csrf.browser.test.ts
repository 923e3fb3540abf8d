import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Request, Response } from 'playwright-core';
import { seriousViolations } from './chromium.ts';
import type { TestApp } from '../app.ts';
import { startBrowserApp, type BrowserApp } from './browser-app.ts';
import { makeAccountFile } from '../factories.ts';

/**
 * Login CSRF on the console's sign-in form, in Debian's Chromium. The sign-in token is not bound
 * to a session (anyone can fetch one from the sign-in page), so the Origin check is what stops a
 * foreign page from signing the victim's browser into the attacker's account. The attacker's page
 * lives on another site (localhost vs 127.0.0.1) and posts the form with the attacker's
 * credentials and a freshly fetched token, both directly (the browser names the attacker's
 * origin) and through a 307 on the attacker's own server (the browser then sends `Origin: null`).
 *
 * The session cookie is SameSite=Lax, so neither forged post carries the victim's cookie; the
 * attack does not need it: what matters is whether the answer's Set-Cookie replaces it, which
 * Chromium allows for a top-level navigation. So the proof that the attack failed is that admit
 * answered 403 and the victim's browser is still signed in as the victim.
 */

let app: BrowserApp;
let t: TestApp;
let browser: Browser;
let admit: string;
let attacker: http.Server;
let evil: string;
/** What the attacker's server saw arrive at its redirecting endpoint (the browser's first hop). */
const bounced: Array<{ origin: string | undefined }> = [];

const VICTIM = { email: 'victim@example.org', password: 'victim password 1' };
const ATTACKER = { email: 'mallory@example.org', password: 'mallory password 1' };

/** The attacker's server side: a valid sign-in token, taken from admit's own sign-in page. */
async function stealToken(): Promise<string> {
  const res = await fetch(`${admit}/console/sign-in`);
  const token = /name="csrf" value="([^"]+)"/.exec(await res.text())?.[1];
  if (!res.ok || !token) throw new Error(`no sign-in token (${res.status})`);
  return token;
}

/** The attacker's page: an auto-submitting copy of admit's sign-in form with the attacker's credentials. */
function attackPage(action: string, csrf: string): string {
  const field = (name: string, value: string) => `<input type="hidden" name="${name}" value="${value}">`;
  return `<!doctype html><html lang="en"><head><title>Win a prize</title></head><body>
    <form method="post" action="${action}">
      ${field('csrf', csrf)}${field('next', '/console/me')}${field('email', ATTACKER.email)}${field('password', ATTACKER.password)}
    </form>
    <script>document.forms[0].submit()</script>
  </body></html>`;
}

beforeAll(async () => {
  app = await startBrowserApp({
    account: makeAccountFile({
      slug: 'lantern',
      users: [
        { ...VICTIM, name: 'Vera Victim', role: 'owner' },
        { ...ATTACKER, name: 'Mallory', role: 'viewer' },
      ],
    }),
  });
  ({ t, browser, base: admit } = app);

  attacker = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://attacker');
      if (req.method === 'GET' && url.pathname === '/direct') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(attackPage(`${admit}/console/sign-in`, await stealToken()));
      } else if (req.method === 'GET' && url.pathname === '/via-redirect') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(attackPage('/bounce', await stealToken()));
      } else if (req.method === 'POST' && url.pathname === '/bounce') {
        // 307 keeps the method and body; crossing origins on the way makes the browser send Origin: null
        bounced.push({ origin: req.headers.origin });
        req.resume();
        req.on('end', () => {
          res.writeHead(307, { location: `${admit}/console/sign-in` });
          res.end();
        });
      } else {
        res.writeHead(404);
        res.end();
      }
    })().catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  // only on 127.0.0.1, but reached as http://localhost: another site for the browser, same machine
  await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
  evil = `http://localhost:${(attacker.address() as AddressInfo).port}`;
});
// a fresh sign-in budget (per minute, per email and address) for every test
beforeEach(() => t.clock.advance(61_000));
afterAll(async () => {
  if (attacker) await new Promise((r) => attacker.close(r));
  await app?.close();
});

const isSignInPost = (r: Request) => r.method() === 'POST' && r.url() === `${admit}/console/sign-in`;

/** Signs in through admit's own form and returns the browser's sign-in request. */
async function signIn(page: Page, who: { email: string; password: string }): Promise<Request> {
  await page.goto(`${admit}/console/sign-in`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  const answered = page.waitForResponse((r) => isSignInPost(r.request()));
  await page.getByRole('button', { name: 'Sign in' }).click();
  const response = await answered;
  // a refused sign-in shows why (a redirect has no body to read)
  const why = response.status() === 303 ? '' : await response.text();
  expect(response.status(), `sign-in as ${who.email}: ${why}`).toBe(303);
  await page.waitForURL(/\/console\/a\/lantern\/events$/);
  return response.request();
}

/** Whose console this browser shows on "Your sign-in". */
async function signedInAs(page: Page): Promise<string> {
  await page.goto(`${admit}/console/me`);
  expect(page.url()).toBe(`${admit}/console/me`);
  return (await page.locator('.card p').first().textContent()) ?? '';
}

async function attackerSessions(): Promise<number> {
  const row = await t.ctx.db
    .selectFrom('console_sessions')
    .innerJoin('users', 'users.id', 'console_sessions.user_id')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('users.email', '=', ATTACKER.email)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The victim, signed in as themselves, opens the attacker's page; returns admit's answer to the forged post. */
async function visitAttackerPage(context: BrowserContext, path: string): Promise<{ page: Page; response: Response }> {
  const page = await context.newPage();
  await signIn(page, VICTIM);
  expect(await signedInAs(page)).toContain(VICTIM.email);
  const answered = page.waitForResponse((r) => isSignInPost(r.request()));
  await page.goto(`${evil}${path}`);
  const response = await answered;
  await page.waitForLoadState();
  return { page, response };
}

describe('login CSRF on the console sign-in', () => {
  let context: BrowserContext;
  beforeEach(async () => {
    context = await browser.newContext();
    return () => context.close();
  });

  it('signs in through its own form: Chromium names our origin (Referrer-Policy: same-origin), and the page passes axe', async () => {
    const page = await context.newPage();
    const shown = await page.goto(`${admit}/console/sign-in`);
    expect(shown?.headers()['referrer-policy']).toBe('same-origin');
    expect(await seriousViolations(page)).toEqual([]);

    const request = await signIn(page, VICTIM);
    // under no-referrer Chromium would send "null" here, which is now refused
    expect((await request.allHeaders()).origin).toBe(admit);
    expect(await signedInAs(page)).toContain(VICTIM.email);
  });

  it('refuses the forged sign-in posted straight from the attacker page (foreign Origin)', async () => {
    const before = await attackerSessions();
    const { page, response } = await visitAttackerPage(context, '/direct');

    const sent = await response.request().allHeaders();
    expect(sent.origin).toBe(evil);
    // SameSite=Lax: a cross-site POST goes without the victim's session cookie
    expect(sent.cookie ?? '').not.toContain('admit_session');
    // soft: when the refusal is missing, the report shows the swapped session as well as the status
    expect.soft(response.status()).toBe(403);
    expect.soft(await response.headerValue('set-cookie')).toBeNull();
    expect.soft(await page.locator('body').textContent()).toContain('This form was sent from another site');

    const me = await signedInAs(page);
    expect.soft(me).toContain(VICTIM.email);
    expect.soft(me).not.toContain(ATTACKER.email);
    expect.soft(await attackerSessions()).toBe(before);
  });

  it('refuses the forged sign-in sent through a cross-origin 307 (Origin: null)', async () => {
    const before = await attackerSessions();
    bounced.length = 0;
    const { page, response } = await visitAttackerPage(context, '/via-redirect');

    // the browser really went through the attacker's redirect, and arrived naming no origin
    expect(bounced).toEqual([{ origin: evil }]);
    expect(response.request().redirectedFrom()?.url()).toBe(`${evil}/bounce`);
    const sent = await response.request().allHeaders();
    expect(sent.origin).toBe('null');
    expect(sent.cookie ?? '').not.toContain('admit_session');
    // soft: when the refusal is missing, the report shows the swapped session as well as the status
    expect.soft(response.status()).toBe(403);
    expect.soft(await response.headerValue('set-cookie')).toBeNull();
    expect.soft(await page.locator('body').textContent()).toContain('This form was sent from another site');
    expect.soft(await seriousViolations(page)).toEqual([]);

    const me = await signedInAs(page);
    expect.soft(me).toContain(VICTIM.email);
    expect.soft(me).not.toContain(ATTACKER.email);
    expect.soft(await attackerSessions()).toBe(before);
  });

  it('would swap the session if the origin passed: the stolen token and credentials are valid', async () => {
    // the control for the two refusals above: the same body with our own Origin signs the victim's
    // browser into the attacker's account, so only the Origin check stands between them
    const page = await context.newPage();
    await signIn(page, VICTIM);
    const res = await context.request.post(`${admit}/console/sign-in`, {
      form: { csrf: await stealToken(), next: '/console/me', email: ATTACKER.email, password: ATTACKER.password },
      headers: { origin: admit },
      maxRedirects: 0,
    });
    expect(res.status()).toBe(303);
    expect(await signedInAs(page)).toContain(ATTACKER.email);
  });
});
