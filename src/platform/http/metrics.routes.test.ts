import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { applyForwardedMetric } from '../metrics.ts';

const TOKEN = 'metrics-token-0123456789abcdef';
let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  t = await createTestApp({ config: { metrics: { enabled: true, token: TOKEN } } });
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({ events: [makeEvent({ slug: 'gig', ticket_types: [{ key: 'ga', name: 'GA', price: 0, capacity: 500 }] })] }),
  );
});
afterAll(() => t.close());

const scrape = (headers: Record<string, string> = {}, remoteAddress?: string) =>
  t.app.inject({ method: 'GET', url: '/metrics', headers, ...(remoteAddress ? { remoteAddress } : {}) });

/** One sample's value from the text format; labels given must all match. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}

describe('GET /metrics', () => {
  it('counts every order written while orders arrive at once, with the route timings and the outbox', async () => {
    const before = (await scrape()).body;
    const typeId = (await t.call(acct.tokens.all, { method: 'GET', url: '/api/v1/events/gig/ticket-types' })).json()
      .ticket_types[0].id;
    const buys = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.call(acct.tokens.all, {
          method: 'POST',
          url: '/api/v1/events/gig/orders',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ items: [{ ticket_type_id: typeId, quantity: 1 }], email: `b${i}@example.com` }),
        }),
      ),
    );
    expect(buys.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    const res = await scrape();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const after = res.body;
    expect(sample(after, 'admit_orders_written_total') - sample(before, 'admit_orders_written_total')).toBe(20);
    // every order went through a batch; batches of one or more
    const batches = sample(after, 'admit_order_batch_size_count') - sample(before, 'admit_order_batch_size_count');
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThanOrEqual(20);
    expect(sample(after, 'admit_order_batch_size_sum') - sample(before, 'admit_order_batch_size_sum')).toBe(20);
    const route = { method: 'POST', route: '/api/v1/events/:slug/orders', status: '2xx' };
    expect(sample(after, 'admit_http_request_duration_seconds_count', route)).toBe(20);
    // free orders are paid at once: their ticket mails wait in the outbox until the dispatcher runs
    expect(sample(after, 'admit_outbox_depth')).toBeGreaterThanOrEqual(20);
    expect(sample(after, 'admit_outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(0);
    await t.jobs.runAll();
    expect(sample((await scrape()).body, 'admit_outbox_depth')).toBeLessThan(sample(after, 'admit_outbox_depth'));
    expect(after).toContain('nodejs_eventloop_lag_p99_seconds');
    // a raw URL never becomes a label
    await t.app.inject({ method: 'GET', url: '/no/such/page/123' });
    const text = (await scrape()).body;
    expect(text).not.toContain('/no/such/page/123');
    expect(sample(text, 'admit_http_request_duration_seconds_count', { route: 'unmatched' })).toBeGreaterThanOrEqual(1);
  });

  it('is served to the machine itself or with the token, to nobody else', async () => {
    expect((await scrape({}, '10.1.2.3')).statusCode).toBe(403);
    expect((await scrape({ authorization: 'Bearer wrong-token-0123456789abcdef' }, '10.1.2.3')).statusCode).toBe(403);
    expect((await scrape({ authorization: `Bearer ${TOKEN}x` }, '10.1.2.3')).statusCode).toBe(403);
    expect((await scrape({ authorization: `Bearer ${TOKEN}` }, '10.1.2.3')).statusCode).toBe(200);
    // a proxy on the same machine connects from loopback: what it forwards is not local
    expect((await scrape({ 'x-forwarded-for': '203.0.113.9' })).statusCode).toBe(403);
    expect((await scrape({ forwarded: 'for=203.0.113.9' })).statusCode).toBe(403);
    const refused = await scrape({}, '10.1.2.3');
    expect(refused.json().error.code).toBe('forbidden');
    expect(refused.body).not.toContain('admit_');
  });

  it('adds the counts a job thread forwards, and ignores other messages', async () => {
    const before = sample((await scrape()).body, 'admit_webhook_deliveries_total', { result: 'retrying' });
    expect(applyForwardedMetric({ admitMetric: 'webhook', result: 'retrying', n: 3 })).toBe(true);
    expect(applyForwardedMetric('stop')).toBe(false);
    expect(applyForwardedMetric({ admitMetric: 'webhook', result: 'bogus', n: 3 })).toBe(true);
    expect(sample((await scrape()).body, 'admit_webhook_deliveries_total', { result: 'retrying' }) - before).toBe(3);
  });
});

describe('the Grafana dashboard in docs/', () => {
  it('asks only for metrics the service serves', async () => {
    const dashboard = readFileSync(new URL('../../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
    const asked = new Set([...dashboard.matchAll(/\b((?:admit|nodejs|process)_[a-z0-9_]+)/g)].map((m) => m[1]!));
    expect(asked.size).toBeGreaterThan(5);
    const served = (await scrape()).body;
    // a histogram's series are <name>_bucket, _count and _sum; a metric with no sample yet still has its TYPE line
    for (const name of asked) expect(served, name).toContain(`# TYPE ${name.replace(/_(bucket|count|sum)$/, '')} `);
  });
});

describe('GET /metrics off', () => {
  it('is an ordinary 404 unless ADMIT_METRICS=1', async () => {
    const off = await createTestApp();
    try {
      expect((await off.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });
});
