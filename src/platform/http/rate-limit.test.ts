import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { buildApp } from '../../app.ts';
import { makeAccountFile, seedAccount } from '../../../test/factories.ts';

let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  t = await createTestApp({ config: { rateLimitPerMin: 5 }, now: '2026-11-22T12:00:10Z' });
  a = await seedAccount(t.ctx, makeAccountFile());
});
afterAll(() => t.close());

describe('rate limits', () => {
  it('429 rate_limited with Retry-After past the per-token budget, then a new window', async () => {
    const get = (token: string, ip = '10.0.0.1') => t.call(token, { method: 'GET', url: '/api/v1/account', remoteAddress: ip });
    for (let i = 0; i < 5; i++) expect((await get(a.tokens.all)).statusCode).toBe(200);
    const limited = await get(a.tokens.all, '10.0.0.2');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBe(50);
    // another token from another address still has its own budget
    expect((await get(a.tokens.view, '10.0.0.3')).statusCode).toBe(200);
    t.clock.advance(60_000);
    expect((await get(a.tokens.all, '10.0.0.4')).statusCode).toBe(200);
  });

  it('limits per client address across tokens', async () => {
    t.clock.advance(60_000);
    const ip = '10.9.9.9';
    const tokens = [a.tokens.all, a.tokens.view, a.tokens.invitations, a.tokens.limited, a.tokens.all];
    for (const tok of tokens)
      expect((await t.call(tok, { method: 'GET', url: '/api/v1/account', remoteAddress: ip })).statusCode).toBe(200);
    expect((await t.call(a.tokens.view, { method: 'GET', url: '/api/v1/account', remoteAddress: ip })).statusCode).toBe(429);
  });

  it('shares the budget through the database, so a second instance sees the first one’s traffic', async () => {
    t.clock.set('2026-11-22T13:00:05Z');
    const second = await buildApp({ ...t.ctx }); // same database, its own limiter: another instance
    try {
      const hit = (app: FastifyInstance) =>
        app.inject({
          method: 'GET',
          url: '/api/v1/account',
          remoteAddress: '10.7.7.7',
          headers: { authorization: `Bearer ${a.tokens.all}` },
        });
      for (let i = 0; i < 3; i++) expect((await hit(t.app)).statusCode).toBe(200);
      t.clock.advance(1500);
      expect((await hit(t.app)).statusCode).toBe(200); // syncs: 4 in the shared row
      expect((await hit(second)).statusCode).toBe(200); // 5
      expect((await hit(second)).statusCode).toBe(429); // alone it would have allowed 5
    } finally {
      await second.close();
    }
  });
});

describe('one budget, several instances', () => {
  it('three instances taking turns inside one second let through the budget, not three of it', async () => {
    t.clock.set('2026-11-22T14:00:05Z');
    const config = { ...t.ctx.config, rateLimitPerMin: 40 };
    const apps = [
      await buildApp({ ...t.ctx, config }),
      await buildApp({ ...t.ctx, config }),
      await buildApp({ ...t.ctx, config }),
    ];
    try {
      let ok = 0;
      for (let i = 0; i < 120; i++) {
        const res = await apps[i % 3]!.inject({
          method: 'GET',
          url: '/api/v1/account',
          remoteAddress: `10.8.${i >> 8}.${i & 255}`, // the token's budget, not an address's
          headers: { authorization: `Bearer ${a.tokens.view}` },
        });
        if (res.statusCode === 200) ok++;
        else expect(res.statusCode).toBe(429);
      }
      // a once-a-second sync alone lets each instance spend most of the budget on its own
      expect(ok).toBeGreaterThanOrEqual(40);
      expect(ok).toBeLessThanOrEqual(42);
    } finally {
      for (const app of apps) await app.close();
    }
  });
});

describe('token lookups', () => {
  it('are reused for tokenCacheMs, then looked up again', async () => {
    const app = await buildApp({ ...t.ctx, config: { ...t.ctx.config, tokenCacheMs: 60_000, rateLimitPerMin: 0 } });
    try {
      const get = () =>
        app.inject({ method: 'GET', url: '/api/v1/account', headers: { authorization: `Bearer ${a.tokens.view}` } });
      // twice: the first lookup learns the token's account, the second is kept under it (auth.ts)
      expect((await get()).statusCode).toBe(200);
      expect((await get()).statusCode).toBe(200);
      await t.ctx.db.deleteFrom('api_tokens').where('name', '=', 'view').execute();
      // still served from this instance's cache; an uncached instance refuses at once
      expect((await get()).statusCode).toBe(200);
      expect((await t.call(a.tokens.view, { method: 'GET', url: '/api/v1/account' })).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });
});
