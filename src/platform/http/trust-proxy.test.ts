import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../config.ts';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, seedAccount } from '../../../test/factories.ts';

// Every per-address budget (sign-in, reset, checkout, API) counts the address the request came
// from. Behind a proxy that is the rightmost address the proxy chain did not write itself: a
// client can put anything at the left of X-Forwarded-For.
const apps: TestApp[] = [];
async function appWith(trustProxy: Config['trustProxy'], rateLimitPerMin = 0) {
  const t = await createTestApp({
    config: { trustProxy, rateLimitPerMin },
    beforeReady: (app) => app.get('/_test/ip', { schema: { hide: true } }, async (request) => ({ ip: request.ip })),
  });
  apps.push(t);
  return t;
}
afterAll(async () => {
  for (const t of apps) await t.close();
});

const ipOf = async (t: TestApp, socket: string, xff?: string) =>
  (
    await t.app.inject({
      method: 'GET',
      url: '/_test/ip',
      remoteAddress: socket,
      headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
    })
  ).json().ip as string;

describe('the client address behind proxies', () => {
  it('without ADMIT_TRUST_PROXY, X-Forwarded-For is ignored', async () => {
    const t = await appWith(false);
    expect(await ipOf(t, '198.51.100.9', '1.2.3.4')).toBe('198.51.100.9');
  });

  it('one hop: the address the proxy appended, not what the client wrote before it', async () => {
    const t = await appWith(1);
    expect(await ipOf(t, '10.0.0.2', '203.0.113.7')).toBe('203.0.113.7');
    expect(await ipOf(t, '10.0.0.2', '1.2.3.4, 203.0.113.7')).toBe('203.0.113.7');
    expect(await ipOf(t, '10.0.0.2', '6.6.6.6, 1.2.3.4, 203.0.113.7')).toBe('203.0.113.7');
  });

  it('two hops: the address the outer proxy appended', async () => {
    const t = await appWith(2);
    expect(await ipOf(t, '10.0.0.2', '1.2.3.4, 203.0.113.7, 10.0.0.1')).toBe('203.0.113.7');
  });

  it('trusted addresses: the rightmost address not among them', async () => {
    const t = await appWith(['10.0.0.0/8', '127.0.0.1']);
    expect(await ipOf(t, '10.0.0.2', '1.2.3.4, 203.0.113.7, 10.1.1.1')).toBe('203.0.113.7');
    // a request that does not come through a trusted proxy: its header means nothing
    expect(await ipOf(t, '198.51.100.9', '1.2.3.4')).toBe('198.51.100.9');
  });

  it('a client rotating the left of X-Forwarded-For still runs into its per-address budget', async () => {
    const t = await appWith(1, 3);
    const a = await seedAccount(t.ctx, makeAccountFile());
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.call(a.tokens[(['all', 'view', 'invitations', 'limited', 'all'] as const)[i]!], {
        method: 'GET',
        url: '/api/v1/account',
        remoteAddress: '10.0.0.2',
        headers: { 'x-forwarded-for': `192.0.2.${i + 1}, 203.0.113.7` },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});
