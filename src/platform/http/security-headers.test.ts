import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cspOf, expectNoncedScripts, scriptNonceOf } from '../../../test/csp.ts';
import { pageCsp, scriptHash, securityHeaders } from './security-headers.ts';

let app: FastifyInstance;

beforeAll(async () => {
  app = Fastify();
  securityHeaders(app);
  const page = (body: string) => `<!doctype html><html><body>${body}</body></html>`;
  app.get('/page', (request, reply) =>
    reply.type('text/html; charset=utf-8').send(page(`<script nonce="${request.cspNonce}">1</script>`)),
  );
  app.get('/public', (_request, reply) =>
    reply.header('cache-control', 'public, max-age=600').type('text/html').send(page('cached?')),
  );
  app.get('/revalidated', (_request, reply) => reply.header('cache-control', 'no-cache').type('text/html').send(page('list')));
  app.get('/own-policy', (_request, reply) =>
    reply
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cache-control', 'public, max-age=600')
      .type('text/html')
      .send(page('own')),
  );
  app.get('/json', async () => ({ ok: true }));
  await app.ready();
});
afterAll(() => app.close());

describe('the page policy', () => {
  it('allows scripts from our origin or with the nonce, never inline ones; inline styles stay allowed', () => {
    const csp = cspOf({ headers: { 'content-security-policy': pageCsp({ nonce: 'abc' }) }, body: '' });
    expect(csp.get('script-src')).toEqual(["'self'", "'nonce-abc'"]);
    expect(csp.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    const stripe = cspOf({
      headers: {
        'content-security-policy': pageCsp({ nonce: 'abc' }, { script: ['https://js.stripe.com'], default: ['https://x.test'] }),
      },
      body: '',
    });
    expect(stripe.get('script-src')).toEqual(["'self'", "'nonce-abc'", 'https://js.stripe.com']);
    expect(stripe.get('default-src')).toEqual(["'self'", 'https://x.test']);
  });

  it('allows a script by the hash of its exact text instead of a nonce', () => {
    // the example the CSP specification's readers know (MDN, script-src): the same text, the same hash
    expect(scriptHash("alert('Hello, world.');")).toBe("'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='");
    expect(scriptHash("alert('Hello, world.'); ")).not.toBe(scriptHash("alert('Hello, world.');"));
    const csp = cspOf({ headers: { 'content-security-policy': pageCsp({ hashes: [scriptHash('1')] }) }, body: '' });
    expect(csp.get('script-src')).toEqual(["'self'", scriptHash('1')]);
    // no inline script at all: our origin only
    expect(cspOf({ headers: { 'content-security-policy': pageCsp({ hashes: [] }) }, body: '' }).get('script-src')).toEqual([
      "'self'",
    ]);
  });

  it('gives every page its own nonce, the one its scripts carry (request.cspNonce)', async () => {
    const [one, two] = await Promise.all([app.inject('/page'), app.inject('/page')]);
    expect(expectNoncedScripts(one!)).toMatchObject({ scripts: 1 });
    expect(expectNoncedScripts(two!)).toMatchObject({ scripts: 1 });
    expect(scriptNonceOf(one!)).not.toBe(scriptNonceOf(two!));
    expect(Buffer.from(scriptNonceOf(one!)!, 'base64')).toHaveLength(16);
    expect(one!.headers['x-frame-options']).toBe('DENY');
  });

  it('keeps a page under the nonce policy out of shared caches', async () => {
    expect((await app.inject('/page')).headers['cache-control']).toBe('no-store');
    expect((await app.inject('/public')).headers['cache-control']).toBe('no-store');
    // no-cache: a shared cache must ask again before each use, and gets a fresh page and nonce
    expect((await app.inject('/revalidated')).headers['cache-control']).toBe('no-cache');
  });

  it('leaves a route its own policy and caching, and non-HTML answers without a policy', async () => {
    const own = await app.inject('/own-policy');
    expect(own.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(own.headers['cache-control']).toBe('public, max-age=600');
    const json = await app.inject('/json');
    expect(json.headers['content-security-policy']).toBeUndefined();
    expect(json.headers['x-content-type-options']).toBe('nosniff');
    expect(json.headers['referrer-policy']).toBe('same-origin');
  });
});
