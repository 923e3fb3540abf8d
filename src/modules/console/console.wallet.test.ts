import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { ConsoleClient } from '../../../test/console-client.ts';
import { PW } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { makeAppleCredentials, makeGoogleKey, type TestAppleCredentials } from '../wallet/wallet.fixture.ts';
import { generateKeyPairSync } from 'node:crypto';

/** The console's wallet page: owners upload, replace and remove keys; the keys never come back. */
let t: TestApp;
let apple: TestAppleCredentials;
let google: ReturnType<typeof makeGoogleKey>;
const base = '/console/a/walletacct';
const pemBody = (pem: string) => pem.split('\n')[1]!;

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  apple = makeAppleCredentials();
  google = makeGoogleKey();
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'walletacct',
      users: [
        { email: 'owner@example.org', role: 'owner', password: PW },
        { email: 'manager@example.org', role: 'manager', password: PW },
      ],
      events: [makeEvent({ slug: 'gig' })],
    }),
  );
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

async function signedIn(email: string, ip: string) {
  const c = new ConsoleClient(t.app);
  c.ip = ip;
  const res = await c.signIn(email, PW);
  expect(res.statusCode, res.body).toBe(303);
  return c;
}

const appleForm = (over: Record<string, string> = {}) => ({
  pass_type_id: apple.passTypeId,
  team_id: apple.teamId,
  certificate_pem: apple.certificatePem,
  key_pem: apple.keyPem,
  wwdr_pem: apple.wwdrPem,
  ...over,
});

describe('console wallet page', () => {
  it('refuses a certificate with another key by field, showing no PEM back', async () => {
    const c = await signedIn('owner@example.org', '10.1.0.1');
    const page = await c.get(`${base}/wallet`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Not configured.');
    const res = await c.post(`${base}/wallet/apple`, appleForm({ key_pem: apple.otherKeyPem }));
    expect(res.statusCode).toBe(422);
    expect(res.body).toMatch(/id="f-key_pem-err"[^>]*>This key does not belong to the certificate\./);
    expect(res.body).toContain(`value="${apple.passTypeId}"`);
    for (const pem of [apple.otherKeyPem, apple.certificatePem, apple.wwdrPem]) expect(res.body).not.toContain(pemBody(pem));
    expect(await t.ctx.db.selectFrom('wallet_keys').select('platform').execute()).toEqual([]);
  });

  it('saves matching keys, then shows only that they are configured; remove takes them away', async () => {
    const c = await signedIn('owner@example.org', '10.1.0.2');
    await c.get(`${base}/wallet`);
    const saved = await c.post(`${base}/wallet/apple`, appleForm());
    expect(saved.statusCode, saved.body).toBe(303);
    const json = JSON.stringify({
      type: 'service_account',
      client_email: 'wallet@acct.iam.gserviceaccount.com',
      private_key: google.privatePem,
    });
    const g = await c.post(`${base}/wallet/google`, {
      issuer_id: '3388000000012345678',
      service_account_email: '',
      private_key_pem: json,
    });
    expect(g.statusCode, g.body).toBe(303);
    const page = await c.get(`${base}/wallet?done=saved`);
    expect(page.body).toContain('Configured, uploaded');
    expect(page.body).toContain('wallet@acct.iam.gserviceaccount.com');
    expect(page.body).toContain('Replace Apple keys');
    // no console page shows a key
    for (const url of [
      `${base}/wallet`,
      `${base}/events`,
      `${base}/events/gig`,
      `${base}/invoicing`,
      `${base}/team`,
      '/console/me',
    ]) {
      const res = await c.get(url);
      for (const pem of [apple.keyPem, apple.certificatePem, apple.wwdrPem, google.privatePem])
        expect(res.body, url).not.toContain(pemBody(pem));
      expect(res.body).not.toContain('PRIVATE KEY');
    }
    await c.get(`${base}/wallet`);
    expect((await c.post(`${base}/wallet/apple/remove`, {})).statusCode).toBe(303);
    const after = await c.get(`${base}/wallet`);
    expect(after.body).toContain('Remove Google key');
    expect(after.body).not.toContain('Remove Apple keys');
    expect((await t.ctx.db.selectFrom('wallet_keys').select('platform').execute()).map((r) => r.platform)).toEqual(['google']);
  });

  it('speaks German and refuses a Google key that is not RSA', async () => {
    const c = await signedIn('owner@example.org', '10.1.0.3');
    c.headers['accept-language'] = 'de';
    await c.get(`${base}/wallet`);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const res = await c.post(`${base}/wallet/google`, {
      issuer_id: '123',
      service_account_email: 'a@b.example',
      private_key_pem: ec,
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('Es muss ein RSA-Schlüssel sein');
    expect(res.body).toContain('Wallet-Pässe');
  });

  it("is for owners only (not in a manager's menu), and every form needs its CSRF token", async () => {
    const m = await signedIn('manager@example.org', '10.1.0.4');
    // like the other owner pages, a role without the right does not learn the page exists
    expect((await m.get(`${base}/wallet`)).statusCode).toBe(404);
    expect((await m.post(`${base}/wallet/apple`, appleForm())).statusCode).toBe(404);
    expect((await m.get(`${base}/events`)).body).not.toContain('/wallet"');
    const c = await signedIn('owner@example.org', '10.1.0.5');
    expect((await c.post(`${base}/wallet/apple`, appleForm(), { csrf: false })).statusCode).toBe(403);
    expect((await c.post(`${base}/wallet/google/remove`, {}, { csrf: false })).statusCode).toBe(403);
  });
});
