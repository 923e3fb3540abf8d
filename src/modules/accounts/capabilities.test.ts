import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount, tokenSecrets } from '../../../test/factories.ts';

/**
 * Every read endpoint of the foundation against every token shape the factories issue:
 * 401 without a valid token, 403 without events.view, 404 for unknown or hidden events, 200 otherwise.
 */
let t: TestApp;
let tokens: ReturnType<typeof tokenSecrets>;
beforeAll(async () => {
  t = await createTestApp();
  const acct = await seedAccount(
    t.ctx,
    makeAccountFile({ events: [makeEvent({ slug: 'open' }), makeEvent({ slug: 'hidden' })], limitedTo: ['open'] }),
  );
  tokens = acct.tokens;
});
afterAll(() => t.close());

const endpoints = [
  { url: '/api/v1/account', event: null },
  { url: '/api/v1/events', event: null },
  { url: '/api/v1/series', event: null },
  { url: '/api/v1/events/open', event: 'open' },
  { url: '/api/v1/events/hidden', event: 'hidden' },
  { url: '/api/v1/events/missing', event: 'missing' },
  { url: '/api/v1/events/open/ticket-types', event: 'open', list: true },
  { url: '/api/v1/events/hidden/ticket-types', event: 'hidden', list: true },
  { url: '/api/v1/events/missing/ticket-types', event: 'missing', list: true },
] as const;

type TokenName = keyof ReturnType<typeof tokenSecrets>;
const canView: Record<TokenName, boolean> = {
  all: true,
  view: true,
  orders: false,
  manage: false,
  refund: false,
  none: false,
  invitations: true,
  limited: true,
};

function expected(name: TokenName, e: (typeof endpoints)[number]): number {
  if (!canView[name]) return 403;
  if (e.event === null || 'list' in e) return 200;
  if (e.event === 'missing') return 404;
  if (e.event === 'hidden' && name === 'limited') return 404;
  return 200;
}

describe('capability matrix of the read endpoints', () => {
  it('answers 401 for a missing, malformed or unknown token everywhere', async () => {
    for (const e of endpoints) {
      for (const header of [undefined, 'Bearer', 'Basic abc', `Bearer ${tokens.all}x`, `bearer  `]) {
        const res = await t.app.inject({ method: 'GET', url: e.url, headers: header ? { authorization: header } : {} });
        expect(res.statusCode, `${e.url} ${header}`).toBe(401);
        expect(res.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
      }
    }
  });

  for (const name of Object.keys(canView) as TokenName[]) {
    it(`token "${name}"`, async () => {
      for (const e of endpoints) {
        const res = await t.call(tokens[name], { method: 'GET', url: e.url });
        const want = expected(name, e);
        expect(res.statusCode, `${name} ${e.url}`).toBe(want);
        if (want >= 400) expect(res.json().error.code).toBe(want === 403 ? 'forbidden' : 'not_found');
        if ('list' in e && want === 200) {
          const visible = e.event === 'open' || (e.event === 'hidden' && name !== 'limited');
          expect(res.json().ticket_types.length, `${name} ${e.url}`).toBe(visible ? 1 : 0);
        }
      }
    });
  }
});
