import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';

// Endpoints belong to the account and receive every event's orders, buyers included: a token
// limited to some events may not make, read or change one, whatever its capabilities.
let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let endpointId: number;
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  t = await createTestApp({ config: { webhookAllowPrivate: true } });
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({ slug: 'wh-acl', events: [makeEvent({ slug: 'wh-a' }), makeEvent({ slug: 'wh-b' })], limitedTo: ['wh-a'] }),
  );
  const made = await t.call(acct.tokens.all, {
    method: 'POST',
    url: '/api/v1/webhook-endpoints',
    headers: json,
    payload: JSON.stringify({ url: 'https://hooks.example.org/in', events: [] }),
  });
  expect(made.statusCode, made.body).toBe(201);
  endpointId = made.json().id;
});
afterAll(() => t.close());

const snapshot = async () => JSON.stringify(await t.ctx.db.selectFrom('webhook_endpoints').selectAll().orderBy('id').execute());

describe('webhook endpoints and event-limited tokens', () => {
  it('every webhook operation answers 403 to a token limited to events, and changes nothing', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const ops = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/webhook-endpoints'))
      .flatMap(([path, methods]) =>
        Object.keys(methods)
          .filter((m) => ['get', 'post', 'patch', 'put', 'delete'].includes(m))
          .map((m) => ({ method: m.toUpperCase(), url: path.replace('{id}', String(endpointId)).replace('{delivery_id}', '1') })),
      );
    // list, create, read, change, delete, rotate, test, deliveries, attempts, redeliver, redeliver-failed
    expect(ops.length).toBeGreaterThanOrEqual(10);
    const before = await snapshot();
    const bodies: Record<string, unknown> = {
      POST: { url: 'https://attacker.example.org/x', events: [], since: '2026-01-01T00:00:00Z' },
      PATCH: { url: 'https://attacker.example.org/x' },
    };
    for (const op of ops) {
      const body = op.url.endsWith('/redeliver-failed')
        ? { since: '2026-01-01T00:00:00Z' }
        : op.method === 'POST' && op.url === '/api/v1/webhook-endpoints'
          ? bodies.POST
          : op.method === 'PATCH'
            ? bodies.PATCH
            : undefined;
      const res = await t.call(acct.tokens.limited, {
        method: op.method as 'GET',
        url: op.url,
        ...(body === undefined ? {} : { headers: json, payload: JSON.stringify(body) }),
      });
      expect([res.statusCode, res.json().error?.code], `${op.method} ${op.url}`).toEqual([403, 'forbidden']);
    }
    expect(await snapshot()).toBe(before);
  });

  it('an all-events token with webhooks.manage still manages them', async () => {
    const res = await t.call(acct.tokens.all, { method: 'GET', url: `/api/v1/webhook-endpoints/${endpointId}` });
    expect(res.statusCode).toBe(200);
  });
});
