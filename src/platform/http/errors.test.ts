import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, seedAccount } from '../../../test/factories.ts';
import { createLogger } from '../logger.ts';

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, cb) {
    lines.push(String(chunk));
    cb();
  },
});

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await createTestApp({
    log: createLogger('info', sink),
    config: { bodyLimit: 4096 },
    beforeReady(app) {
      app.get('/api/v1/_boom', { config: { capability: 'events.view' } }, async () => {
        throw new Error('secret internals: stack me');
      });
      app.post(
        '/api/v1/_echo',
        { schema: { body: { type: 'object', additionalProperties: false, properties: { a: { type: 'integer' } } } } },
        async (req) => req.body,
      );
    },
  });
  const acct = await seedAccount(t.ctx, makeAccountFile());
  token = acct.tokens.all;
});
afterAll(() => t.close());

describe('errors', () => {
  it('a 500 carries a request id that is also logged, and never a stack', async () => {
    const res = await t.call(token, { method: 'GET', url: '/api/v1/_boom' });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body.error.code).toBe('internal_error');
    expect(body.error.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).not.toContain('secret internals');
    expect(res.body).not.toContain('at ');
    expect(lines.some((l) => l.includes(body.error.request_id) && l.includes('unhandled error'))).toBe(true);
  });

  it('malformed JSON, a wrong content type and a schema violation answer in the documented shape', async () => {
    const post = (payload: string, type = 'application/json') =>
      t.call(token, { method: 'POST', url: '/api/v1/_echo', headers: { 'content-type': type }, payload });
    const bad = await post('{"a":');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: { code: 'bad_request', message: expect.any(String) } });
    const type = await post('a=1', 'text/csv');
    expect(type.statusCode).toBe(415);
    expect(type.json().error.code).toBe('unsupported_media_type');
    const schema = await post('{"a":"1","b":2}');
    expect(schema.statusCode).toBe(400);
    expect(schema.json().error.code).toBe('bad_request');
    expect(Object.keys(schema.json().error.fields).length).toBeGreaterThan(0);
    expect((await post('{"a":1}')).json()).toEqual({ a: 1 });
  });

  it('oversized bodies are 413 payload_too_large', async () => {
    const res = await t.call(token, {
      method: 'POST',
      url: '/api/v1/events/x/orders',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ pad: 'x'.repeat(10_000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('payload_too_large');
  });

  it('logs never contain bearer tokens or capability secrets', async () => {
    await t.call(token, { method: 'GET', url: '/api/v1/account' });
    await t.call(null, { method: 'GET', url: '/o/SuperSecretOrderPageValue123' });
    await t.call(null, { method: 'GET', url: '/pay/SuperSecretPayPageValue456?x=1' });
    const all = lines.join('');
    expect(all).toContain('/o/[redacted]');
    expect(all).not.toContain(token);
    expect(all).not.toContain('SuperSecretOrderPageValue123');
    expect(all).not.toContain('SuperSecretPayPageValue456');
  });

  it('health and readiness answer when the database does', async () => {
    expect((await t.call(null, { method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.call(null, { method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
  });
});
