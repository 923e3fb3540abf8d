import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { PW } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { ConsoleClient, csrfIn, form } from '../../../test/console-client.ts';
import { renderPasswordResetMail } from '../users/users.mail.ts';
import { RESET_ANSWER_FLOOR_MS } from '../users/credentials.service.ts';

// What an attacker tries against the console's own forms: a forged sign-in, an old reset link,
// an unthrottled password check, a cached page with keys on it.
let t: TestApp;
let ipSeq = 0;

beforeAll(async () => {
  t = await createTestApp();
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'sec',
      users: [
        { email: 'owner@sec.example', role: 'owner', password: PW },
        { email: 'victim@sec.example', role: 'manager', password: PW },
        { email: 'guess@sec.example', role: 'viewer', password: PW },
        { email: 'known@sec.example', role: 'viewer', password: PW },
      ],
      events: [makeEvent({ slug: 'sec-fest' })],
    }),
  );
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

class Client extends ConsoleClient {
  constructor() {
    super(t.app);
    this.ip = `10.99.0.${++ipSeq}`;
  }
}
const signedIn = async (email: string, password = PW) => {
  const c = new Client();
  const res = await c.signIn(email, password);
  expect(res.statusCode, res.body).toBe(303);
  return c;
};

async function signInWithOrigin(origin: string | undefined) {
  const page = await t.app.inject({ method: 'GET', url: '/console/sign-in' });
  return t.app.inject({
    method: 'POST',
    url: '/console/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin === undefined ? {} : { origin }) },
    payload: form({ csrf: csrfIn(page.body), email: 'owner@sec.example', password: PW, next: '/console' }),
    remoteAddress: `10.98.0.${++ipSeq}`,
  });
}

async function resetLinks(): Promise<string[]> {
  const rows = await t.ctx.db
    .selectFrom('outbox')
    .select('payload')
    .where('kind', '=', 'mail.password_reset')
    .orderBy('id')
    .execute();
  const links: string[] = [];
  for (const r of rows) {
    const payload = (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, unknown>;
    const mail = await renderPasswordResetMail(t.ctx, payload);
    links.push(/http:\/\/admit\.test(\/console\/reset\/[\w-]+)/.exec(mail!.text)![1]!);
  }
  return links;
}

describe('forged console forms', () => {
  it('refuses a sign-in posted with Origin: null or another origin (403), takes our own', async () => {
    for (const origin of ['null', 'http://evil.example', 'http://admit.test.evil.example', 'https://admit.test']) {
      const res = await signInWithOrigin(origin);
      expect([res.statusCode, res.headers['set-cookie']], origin).toEqual([403, undefined]);
      expect(res.body).toContain('another site');
    }
    expect((await signInWithOrigin('http://admit.test')).statusCode).toBe(303);
    // a browser that sends no Origin at all still needs the token
    expect((await signInWithOrigin(undefined)).statusCode).toBe(303);
  });

  it('refuses a signed-in form with Origin: null, and the session stays', async () => {
    const c = await signedIn('owner@sec.example');
    await c.get('/console/me');
    const res = await t.app.inject({
      method: 'POST',
      url: '/console/sign-out',
      headers: { cookie: `admit_session=${c.cookie}`, 'content-type': 'application/x-www-form-urlencoded', origin: 'null' },
      payload: form({ csrf: c.csrf }),
    });
    expect(res.statusCode).toBe(403);
    expect((await c.get('/console/me')).statusCode).toBe(200);
  });

  it('our pages make browsers name our origin on a post (Referrer-Policy: same-origin)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console/sign-in' });
    expect(res.headers['referrer-policy']).toBe('same-origin');
  });
});

describe('console pages are never cached', () => {
  it('answers with Cache-Control: no-store, signed in or not, errors included', async () => {
    const c = await signedIn('owner@sec.example');
    for (const url of [
      '/console/sign-in',
      '/console/forgot',
      '/console/me',
      '/console/a/sec/events',
      '/console/a/sec/tokens',
      '/console/a/nope/events',
    ]) {
      const res = await c.get(url);
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
  });
});

describe('reset links', () => {
  it('setting a password through one link ends every other link and every session', async () => {
    const before = (await resetLinks()).length;
    const c = new Client();
    for (let i = 0; i < 2; i++) {
      await c.get('/console/forgot');
      await c.post('/console/forgot', { email: 'victim@sec.example' });
    }
    const [first, second] = (await resetLinks()).slice(before);
    expect(first && second && first !== second).toBe(true);
    const session = await signedIn('victim@sec.example');
    await c.get(first!);
    expect((await c.post(first!, { password: 'the first new password' })).statusCode).toBe(303);
    const old = await c.get(second!);
    expect(old.statusCode).toBe(404);
    // the form's token from another page does not revive it either
    const forced = await c.post(second!, { password: 'the attackers password' });
    expect(forced.statusCode).not.toBe(303);
    expect((await session.get('/console/me')).statusCode).toBe(303);
    expect((await new Client().signIn('victim@sec.example', 'the first new password')).statusCode).toBe(303);
    expect((await new Client().signIn('victim@sec.example', 'the attackers password')).statusCode).toBe(401);
  });

  it('answers a known and an unknown email no sooner than the same floor', async () => {
    for (const email of ['known@sec.example', 'nobody@sec.example']) {
      const c = new Client();
      await c.get('/console/forgot');
      const started = performance.now();
      await c.post('/console/forgot', { email });
      expect(performance.now() - started, email).toBeGreaterThanOrEqual(RESET_ANSWER_FLOOR_MS - 5);
    }
  });
});

describe('password checks outside sign-in share its throttle', () => {
  it('turning off two-step sign-in: wrong passwords run into 429', async () => {
    const c = await signedIn('guess@sec.example');
    await c.get('/console/me');
    await c.post('/console/me/2fa/start', {});
    const key = /Key: <code>([A-Z2-7]+)<\/code>/.exec((await c.get('/console/me')).body)![1]!;
    const totp = new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' });
    expect(
      (await c.post('/console/me/2fa/confirm', { code: totp.generate({ timestamp: t.clock.now().getTime() }) })).statusCode,
    ).toBe(303);
    t.clock.advance(61_000);
    await c.get('/console/me');
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await c.post('/console/me/2fa/off', { password: `wrong guess ${i}` })).statusCode);
    expect(statuses.slice(0, 5)).toEqual([422, 422, 422, 422, 422]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    // the right password within the same minute is refused too: the budget is spent
    expect((await c.post('/console/me/2fa/off', { password: PW })).statusCode).toBe(429);
    const u = await t.ctx.db
      .selectFrom('users')
      .select('totp_enabled')
      .where('email', '=', 'guess@sec.example')
      .executeTakeFirstOrThrow();
    expect(u.totp_enabled).toBe(true);
  });

  it('changing the password checks the current one under the same throttle, then ends other sessions', async () => {
    const c = await signedIn('known@sec.example');
    const other = await signedIn('known@sec.example');
    await c.get('/console/me');
    expect((await c.post('/console/me/password', { current: 'not it', password: 'a fresh new password' })).statusCode).toBe(422);
    const ok = await c.post('/console/me/password', { current: PW, password: 'a fresh new password' });
    expect([ok.statusCode, ok.headers.location]).toEqual([303, '/console/me?done=password-changed']);
    expect((await c.get('/console/me')).statusCode).toBe(200);
    expect((await other.get('/console/me')).statusCode).toBe(303);
    t.clock.advance(61_000);
    await c.get('/console/me');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++)
      statuses.push((await c.post('/console/me/password', { current: `guess ${i}`, password: 'whatever new pw' })).statusCode);
    expect(statuses.at(-1)).toBe(429);
  });
});
