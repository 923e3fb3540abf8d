import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { appSecret } from '../secrets.ts';
import { csrfToken, verifyCsrf } from './csrf.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const req = (origin?: string) => ({ headers: origin ? { origin } : {} }) as unknown as FastifyRequest;

describe('CSRF form tokens', () => {
  it('accepts its own token for the same scope within the window', async () => {
    const token = await csrfToken(t.ctx, 'pay:1');
    await expect(verifyCsrf(t.ctx, req(), 'pay:1', token)).resolves.toBeUndefined();
    await expect(verifyCsrf(t.ctx, req('http://admit.test'), 'pay:1', token)).resolves.toBeUndefined();
    t.clock.advance(2 * 60 * 60 * 1000);
    await expect(verifyCsrf(t.ctx, req(), 'pay:1', token)).resolves.toBeUndefined();
  });

  it('refuses another scope, a tampered or missing token, a foreign origin and an old token', async () => {
    const token = await csrfToken(t.ctx, 'pay:1');
    for (const [r, scope, tok] of [
      [req(), 'pay:2', token],
      [req(), 'pay:1', token.slice(0, -2) + 'xx'],
      [req(), 'pay:1', undefined],
      [req(), 'pay:1', 'nonsense'],
      [req('https://evil.example'), 'pay:1', token],
    ] as const) {
      await expect(verifyCsrf(t.ctx, r, scope, tok)).rejects.toMatchObject({ code: 'csrf_failed' });
    }
    t.clock.advance(5 * 60 * 60 * 1000);
    await expect(verifyCsrf(t.ctx, req(), 'pay:1', token)).rejects.toMatchObject({ code: 'csrf_failed' });
  });
});

describe('app secrets', () => {
  it('gives each name its own key, the same one on every call', async () => {
    const [csrf, pass, place] = await Promise.all(['csrf', 'queue-pass', 'queue-place'].map((n) => appSecret(t.ctx.db, n)));
    expect(new Set([csrf, pass, place]).size).toBe(3);
    expect(await appSecret(t.ctx.db, 'queue-pass')).toBe(pass);
    expect(await appSecret(t.ctx.db, 'csrf')).toBe(csrf);
  });
});
