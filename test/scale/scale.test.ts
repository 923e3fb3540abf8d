import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autocannon, fmt } from '../../bench/lib.ts';
import { importAccount } from '../../src/modules/import/import.service.ts';
import type { EventIn } from '../../src/modules/events/event-document.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { startFakeSmtp, type FakeSmtp } from '../fakes/fake-smtp.ts';
import { startFakeStripe, type FakeStripe } from '../fakes/fake-stripe.ts';
import { missingTools, startCluster, type Cluster, type CpuSnapshot } from './cluster.ts';
import { count, countError, loop, newTally, postWithRetries, sleep } from './load.ts';

/**
 * Scale-out with real parts: three admit instances behind HAProxy, writing through
 * PgBouncer (transaction pooling) to a PostgreSQL primary, reading reports from a streaming
 * replica. Needs postgresql, pgbouncer and haproxy from Debian; says what is missing otherwise.
 * The tests run in order and share the cluster: the later ones stop and start instances.
 */

const missing = missingTools();
if (missing.length) console.warn(`test:scale skipped: missing ${missing.join(', ')} (apt-get install -y ${missing.join(' ')})`);
const TOKEN = 'adm_scale_all_capabilities_0123456789abcdef';
const CAPACITY = 400;
const DRAIN_MS = 1500;

let c: Cluster;
let smtp: FakeSmtp;
let stripe: FakeStripe;
let receiver: { url: string; ids: Map<string, number>; close(): Promise<void> };
const typeIds: Record<string, number> = {};
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const orderBody = (key: string, quantity = 1) => JSON.stringify({ items: [{ ticket_type_id: typeIds[key], quantity }] });
const report: string[] = [];

const event = (slug: string, key: string, price: number, capacity: number, extra: Partial<EventIn> = {}): EventIn => ({
  slug,
  name: slug,
  currency: 'eur',
  timezone: 'Europe/Berlin',
  starts_at: '2030-06-01T18:00:00Z',
  ticket_types: [{ key, name: key, price, capacity }],
  ...extra,
});

/** A webhook receiver on loopback that counts each webhook-id it is sent. */
async function startReceiver() {
  const ids = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      ids.set(id, (ids.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    ids,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms: number,
  diagnose: () => string = () => '',
): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what} ${diagnose()}`);
    await sleep(250);
  }
  return Date.now() - start;
}

const cpuPerSecond = (a: CpuSnapshot, b: CpuSnapshot, loadCpuSeconds: number) => {
  const s = (b.at - a.at) / 1000;
  const f = (k: keyof Omit<CpuSnapshot, 'at'>) => ((b[k] - a[k]) / s).toFixed(2);
  return `cores busy: admit ${f('instances')}, postgres ${f('postgres')}, pgbouncer ${f('pgbouncer')}, haproxy ${f('haproxy')}, load generator ${(loadCpuSeconds / s).toFixed(2)}; idle ${f('idle')} of ${os.cpus().length}`;
};

describe.skipIf(missing.length > 0)('scale-out through HAProxy, PgBouncer and a replica', () => {
  beforeAll(async () => {
    [smtp, stripe, receiver] = await Promise.all([startFakeSmtp(), startFakeStripe(), startReceiver()]);
    c = await startCluster({
      instances: 3,
      env: {
        ADMIT_RATE_LIMIT_PER_MIN: '0',
        ADMIT_DRAIN_MS: String(DRAIN_MS),
        SMTP_URL: smtp.url,
        ADMIT_WEBHOOK_ALLOW_PRIVATE: '1',
        ADMIT_WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
      },
    });
    const database = await openDatabase({ databaseUrl: c.primaryUrl, dataDir: null, poolSize: 2 });
    const ctx = {
      config: { ...loadConfig({}), databaseUrl: c.primaryUrl },
      db: database.db,
      engine: 'postgres' as const,
      clock: systemClock,
      log: createLogger('silent'),
    };
    await importAccount(ctx, {
      account: { slug: 'scale', name: 'Scale', payments: { mode: 'sandbox' } },
      tokens: [
        {
          name: 'all',
          secret: TOKEN,
          capabilities: ['events.view', 'orders.view', 'orders.manage', 'refund', 'webhooks.manage'],
        },
      ],
      events: [
        event('rush', 'hot', 2500, CAPACITY),
        event('open', 'free', 0, 1_000_000),
        event('bulk', 'seat', 1000, 1_000_000),
        event('card', 'ga', 5000, 100, {
          orders: [
            {
              ref: 'CARD-RACE',
              status: 'paid',
              email: 'race@example.org',
              created_at: '2026-11-01T10:00:00Z',
              paid_at: '2026-11-01T10:05:00Z',
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 5000 }],
              payments: [{ rail: 'card', amount: 5000, at: '2026-11-01T10:05:00Z', provider_ref: 'pi_RACE', fee: null }],
            },
          ],
        }),
      ],
    });
    // the refund goes to the local fake of the card provider
    await database.db
      .updateTable('accounts')
      .set({
        payments_mode: 'own_key',
        payments_provider: 'stripe',
        payments_api_key: 'sk_test_fake',
        payments_api_base: stripe.url,
      })
      .where('slug', '=', 'scale')
      .execute();
    await database.db.updateTable('payments').set({ provider: 'stripe' }).where('provider_ref', '=', 'pi_RACE').execute();
    for (const t of await database.db.selectFrom('ticket_types').select(['id', 'key']).execute()) typeIds[t.key] = Number(t.id);
    await database.close();
  }, 180_000);

  afterAll(async () => {
    if (report.length) console.log(['', 'scale-out figures:', ...report.map((r) => `  ${r}`)].join('\n'));
    await c?.stop();
    await Promise.all([smtp?.close(), stripe?.close(), receiver?.close()]);
  });

  it('sells out with 256 clients across three instances: no seat oversold, every 201 one order', async () => {
    const load = await autocannon({
      url: `${c.balancerUrl}/api/v1/events/rush/orders`,
      connections: 256,
      duration: 6,
      method: 'POST',
      body: orderBody('hot'),
      headers,
    });
    const created = load.statuses['201'] ?? 0;
    const [orders, taken] = c
      .psql(
        c.primaryUrl,
        `select (select count(*) from orders o join events e on e.id = o.event_id where e.slug = 'rush'),
                (select i.taken from inventory i join ticket_types t on t.inventory_id = i.id where t.key = 'hot')`,
      )
      .split('|')
      .map(Number);
    report.push(
      `flash sale, 256 clients through the balancer: ${fmt(created)} × 201, ${fmt(load.statuses['409'] ?? 0)} × 409, all answers ${JSON.stringify(load.statuses)}; orders ${orders}, taken ${taken} of ${CAPACITY}`,
    );
    expect(created).toBe(CAPACITY);
    expect(orders).toBe(CAPACITY);
    expect(taken).toBe(CAPACITY);
    expect(Object.keys(load.statuses).sort()).toEqual(['201', '409']);
  }, 120_000);

  it('makes one order per Idempotency-Key when the tries land on different instances', async () => {
    const tries = Array.from({ length: 24 }, () =>
      fetch(`${c.balancerUrl}/api/v1/events/bulk/orders`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': 'scale-key-1' },
        body: orderBody('seat'),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { ref?: string } })),
    );
    const answers = await Promise.all(tries);
    const refs = new Set(answers.filter((a) => a.status < 300).map((a) => a.body.ref));
    expect(refs.size).toBe(1);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(23);
    const [keyed, orders] = c
      .psql(
        c.primaryUrl,
        `select (select count(*) from idempotency_keys where key = 'scale-key-1'),
                (select count(*) from orders o join events e on e.id = o.event_id where e.slug = 'bulk')`,
      )
      .split('|')
      .map(Number);
    expect(keyed).toBe(1);
    expect(orders).toBe(1);
  });

  it('serves reports from the replica: paused, it shows an older moment, never a mixed one', async () => {
    const sold = async () => {
      const r = await fetch(`${c.balancerUrl}/api/v1/events/open/availability`, { headers });
      expect(r.status).toBe(200);
      return ((await r.json()) as { rows: Array<{ sold: number }> }).rows[0]!.sold;
    };
    const free = () =>
      fetch(`${c.balancerUrl}/api/v1/events/open/orders`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ items: [{ ticket_type_id: typeIds.free, quantity: 1 }], email: 'replica@example.org' }),
      }).then((r) => expect(r.status).toBe(201));
    await free();
    await c.replicaCaughtUp();
    expect(await sold()).toBe(1);
    // replay stopped: the primary moves on, every instance's report stays at the replica's moment
    c.psql(c.replicaUrl, 'select pg_wal_replay_pause()');
    try {
      for (let i = 0; i < 5; i++) await free();
      expect(c.psql(c.primaryUrl, `select count(*) from orders o join events e on e.id = o.event_id where e.slug = 'open'`)).toBe(
        '6',
      );
      for (let i = 0; i < 6; i++) expect(await sold()).toBe(1);
    } finally {
      c.psql(c.replicaUrl, 'select pg_wal_replay_resume()');
    }
    await c.replicaCaughtUp();
    for (let i = 0; i < 3; i++) expect(await sold()).toBe(6);

    // where 60 report reads ran: transactions counted on each server (flushed within 10 s)
    const commits = (url: string) => Number(c.psql(url, `select xact_commit from pg_stat_database where datname = 'admit'`));
    await sleep(11_000);
    const before = { primary: commits(c.primaryUrl), replica: commits(c.replicaUrl) };
    for (let i = 0; i < 30; i++) {
      await sold();
      const a = await fetch(`${c.balancerUrl}/api/v1/events/rush/income?range=all`, { headers });
      expect(a.status).toBe(200);
      await a.arrayBuffer();
    }
    await sleep(11_000);
    const after = { primary: commits(c.primaryUrl), replica: commits(c.replicaUrl) };
    report.push(
      `60 report requests: ${after.replica - before.replica} transactions on the replica, ${after.primary - before.primary} on the primary in the same time (token lookups every 5 s per instance, the jobs of three instances over ~25 s)`,
    );
    expect(after.replica - before.replica).toBeGreaterThanOrEqual(60);
  }, 120_000);

  it('refunds racing on two instances make one provider refund', async () => {
    stripe.refundMode = 'slow';
    const before = stripe.calls.filter((call) => call.path === '/v1/refunds').length;
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        fetch(`http://127.0.0.1:${c.instances[i % 2]!.port}/api/v1/orders/CARD-RACE/refund`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}` },
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { refunded_cents?: number; already?: boolean } })),
      ),
    );
    stripe.refundMode = 'ok';
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(200));
    expect(answers.filter((a) => a.body.already !== true)).toHaveLength(1);
    expect(stripe.calls.filter((call) => call.path === '/v1/refunds').length - before).toBe(1);
    expect(c.psql(c.primaryUrl, `select count(*) from refunds where status = 'succeeded'`)).toBe('1');
  });

  it('loses and doubles nothing when an instance is killed mid-load; the others finish its mail and webhooks', async () => {
    const hook = await fetch(`${c.balancerUrl}/api/v1/webhook-endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url, events: ['order.created', 'order.paid'] }),
    });
    expect(hook.status).toBe(201);
    const ordersOf = () =>
      Number(c.psql(c.primaryUrl, `select count(*) from orders o join events e on e.id = o.event_id where e.slug = 'open'`));
    const takenOf = () =>
      Number(
        c.psql(c.primaryUrl, `select i.taken from inventory i join ticket_types t on t.inventory_id = i.id where t.key = 'free'`),
      );
    const [ordersBefore, takenBefore] = [ordersOf(), takenOf()];
    const tally = newTally();
    const answered = new Map<string, string>();
    let stop = false;
    const running = loop(
      24,
      () => stop,
      async (w, n) => {
        const key = `kill-${w}-${n}`;
        const res = await postWithRetries(
          `${c.balancerUrl}/api/v1/events/open/orders`,
          {
            headers: { ...headers, 'idempotency-key': key },
            body: JSON.stringify({ items: [{ ticket_type_id: typeIds.free, quantity: 2 }], email: `k${w}-${n}@example.org` }),
          },
          tally,
        );
        if (res && (res.status === 201 || res.status === 200)) answered.set(key, String(res.body.ref));
        else answered.set(key, `failed: ${res?.status ?? 'no answer'}`);
      },
    );
    await sleep(2500);
    const victim = c.instances[2]!;
    await c.stopInstance(2, 'SIGKILL');
    const killedAt = Date.now();
    await sleep(3000);
    stop = true;
    await running;
    void victim;

    const failed = [...answered.values()].filter((v) => v.startsWith('failed'));
    report.push(
      `SIGKILL of one of three instances under 24 retrying clients: ${answered.size} keys, ${failed.length} without an order; answers ${JSON.stringify(tally.statuses)}, connection errors ${JSON.stringify(tally.errors)}`,
    );
    expect(failed).toEqual([]);
    const orders = ordersOf() - ordersBefore;
    const taken = takenOf() - takenBefore;
    const [keyed, distinct] = c
      .psql(
        c.primaryUrl,
        `select (select count(*) from idempotency_keys where key like 'kill-%'),
                (select count(distinct order_id) from idempotency_keys where key like 'kill-%')`,
      )
      .split('|')
      .map(Number);
    // every key the clients used made exactly one order, and no order was made without one
    expect(keyed).toBe(answered.size);
    expect(distinct).toBe(answered.size);
    expect(orders).toBe(answered.size);
    expect(taken).toBe(2 * answered.size);
    const refs = new Set(answered.values());
    expect(refs.size).toBe(answered.size);
    const known = Number(
      c.psql(c.primaryUrl, `select count(*) from orders where ref = any(array[${[...refs].map((r) => `'${r}'`).join(',')}])`),
    );
    expect(known).toBe(refs.size);

    // the mail and webhooks of every order go out, including what the killed instance had claimed
    const held = c.psql(
      c.primaryUrl,
      `select (select count(*) from outbox where status = 'pending' and attempts > 0),
              (select count(*) from webhook_deliveries where status = 'pending' and attempts > 0)`,
    );
    const mails = () =>
      new Set(
        smtp.messages
          .filter((m) => m.to.some((to) => /\bk\d+-\d+@example\.org\b/.test(to)))
          .map((m) => /^Message-ID: (\S+)/im.exec(m.data)?.[1]),
      ).size;
    await waitUntil(
      () =>
        c.psql(c.primaryUrl, `select count(*) from outbox where kind = 'mail.tickets' and status <> 'sent'`) === '0' &&
        mails() >= orders,
      'every ticket mail',
      120_000,
      () =>
        `(mails ${mails()} of ${orders}; outbox: ${c.psql(c.primaryUrl, `select string_agg(concat_ws(' ', kind, status, attempts, last_error, n), '; ') from (select kind, status, attempts, last_error, count(*) n from outbox group by 1, 2, 3, 4) x`)})`,
    );
    const mailDone = (Date.now() - killedAt) / 1000;
    await waitUntil(
      () => c.psql(c.primaryUrl, `select count(*) from webhook_deliveries where status <> 'succeeded'`) === '0',
      'every webhook delivery',
      120_000,
      () =>
        c.psql(
          c.primaryUrl,
          `select string_agg(concat_ws(' ', status, attempts, n), '; ') from (select status, attempts, count(*) n from webhook_deliveries group by 1, 2) x`,
        ),
    );
    const hooksDone = (Date.now() - killedAt) / 1000;
    const deliveries = Number(c.psql(c.primaryUrl, `select count(*) from webhook_deliveries`));
    expect(receiver.ids.size).toBe(deliveries);
    expect(deliveries).toBe(2 * orders); // order.created and order.paid of each free order
    expect(mails()).toBe(orders);
    report.push(
      `  ${answered.size} orders, each once; claimed but unfinished at the kill: outbox|webhooks ${held}; all ${orders} ticket mails sent ${mailDone.toFixed(0)} s and all ${deliveries} webhooks delivered ${hooksDone.toFixed(0)} s after the kill (${[...receiver.ids.values()].filter((n) => n > 1).length} sent twice)`,
    );
  }, 300_000);

  it('restarts all three, one by one, under load without a failed request', async () => {
    await c.startInstance(2); // back from the kill
    await sleep(1000);
    const tally = newTally();
    let stop = false;
    let n = 0;
    const running = loop(
      16,
      () => stop,
      async (w) => {
        tally.sent++;
        try {
          const res =
            w % 2 === 0
              ? await fetch(`${c.balancerUrl}/api/v1/events/bulk/orders`, { method: 'POST', headers, body: orderBody('seat') })
              : await fetch(`${c.balancerUrl}/api/v1/events/bulk`, { headers });
          count(tally, res.status);
          await res.arrayBuffer();
        } catch (err) {
          countError(tally, err);
        }
        n++;
      },
    );
    const started = Date.now();
    for (let i = 0; i < 3; i++) {
      await c.stopInstance(i, 'SIGTERM');
      await c.startInstance(i);
      await sleep(1000); // the balancer's health check brings it back before the next one goes
    }
    stop = true;
    await running;
    report.push(
      `rolling restart of 3 instances in ${((Date.now() - started) / 1000).toFixed(1)} s under 16 clients: ${n} requests, ${JSON.stringify(tally.statuses)}, connection errors ${JSON.stringify(tally.errors)}`,
    );
    expect(tally.errors).toEqual({});
    expect(Object.keys(tally.statuses).sort()).toEqual(['200', '201']);
  }, 180_000);

  it('measures orders/s through the balancer with one, two and three instances', async () => {
    const rows: string[] = [];
    const run = async (label: string) => {
      const before = c.cpu();
      const load = await autocannon({
        url: `${c.balancerUrl}/api/v1/events/bulk/orders`,
        connections: 64,
        duration: 5,
        method: 'POST',
        body: orderBody('seat'),
        headers,
      });
      const after = c.cpu();
      expect(Object.keys(load.statuses)).toEqual(['201']);
      rows.push(`${label}: ${fmt(load.perSecond)} orders/s, p99 ${load.p99} ms; ${cpuPerSecond(before, after, load.cpuSeconds)}`);
    };
    await c.stopInstance(1, 'SIGTERM');
    await c.stopInstance(2, 'SIGTERM');
    await sleep(1000);
    await run('1 instance ');
    await c.startInstance(1);
    await sleep(1000);
    await run('2 instances');
    await c.startInstance(2);
    await sleep(1000);
    await run('3 instances');
    report.push('flash sale (64 clients, 5 s each) on this 2-core machine:', ...rows.map((r) => `  ${r}`));
  }, 180_000);

  it('shares one rate-limit budget among the three instances', async () => {
    const LIMIT = 90;
    for (let i = 0; i < 3; i++) {
      await c.stopInstance(i, 'SIGTERM');
      await c.startInstance(i, { ADMIT_RATE_LIMIT_PER_MIN: String(LIMIT) });
    }
    await sleep(1000);
    // the budget is per calendar minute: start well inside one
    const sec = new Date().getUTCSeconds();
    if (sec > 40) await sleep((61 - sec) * 1000);
    const tally = newTally();
    const answers = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const mine: number[] = [];
        for (let i = 0; i < 30; i++) {
          const r = await fetch(`${c.balancerUrl}/api/v1/events/bulk`, { headers });
          count(tally, r.status);
          mine.push(r.status);
          await r.arrayBuffer();
        }
        return mine;
      }),
    );
    const ok = answers.flat().filter((s) => s === 200).length;
    report.push(`rate limit ${LIMIT}/min shared by 3 instances, 240 requests from 8 clients: ${JSON.stringify(tally.statuses)}`);
    expect(Object.keys(tally.statuses).sort()).toEqual(['200', '429']);
    expect(ok).toBeGreaterThanOrEqual(LIMIT);
    // at most one more per client whose request was in flight on an instance as the budget ran out
    expect(ok).toBeLessThanOrEqual(LIMIT + 8);
  }, 180_000);
});
