import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { deliverWebhooks, settleWebhooks } from './delivery.service.ts';
import { nextAttemptDelay, post } from './webhook-post.ts';
import { sign } from './signing.ts';

/** A local receiver: records every request; answers with the next queued status (200 by default). */
class Receiver {
  server = http.createServer((req, res) => this.handle(req, res));
  got: Array<{ path: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  answers: Array<{ status: number; headers?: Record<string, string>; hang?: boolean; delayMs?: number }> = [];
  url = '';
  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      this.got.push({ path: req.url ?? '', headers: req.headers, body });
      const a = this.answers.shift() ?? { status: 200 };
      if (a.hang) return;
      setTimeout(() => res.writeHead(a.status, a.headers).end(`answer ${a.status}`), a.delayMs ?? 0);
    });
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let rx: Receiver;
let gaId: number;
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  t = await createTestApp({
    config: { webhookAllowPrivate: true, webhookRetrySchedule: [5, 300, 1800], webhookTimeoutMs: 1_500 },
  });
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'hooks',
      events: [
        makeEvent({
          slug: 'hooks-fest',
          ticket_types: [{ key: 'ga', name: 'GA', price: 2000, capacity: 100 }],
          checkin_lists: [{ key: 'main', name: 'Main' }],
        }),
      ],
    }),
  );
  gaId = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'ga').executeTakeFirstOrThrow()).id;
  rx = await new Receiver().start();
});
afterAll(async () => {
  await settleWebhooks(t.ctx);
  await rx.close();
  await t.close();
});
beforeEach(async () => {
  // the standardwebhooks verifier checks webhook-timestamp against the real clock
  t.clock.set(new Date());
  rx.got = [];
  rx.answers = [];
  await t.ctx.db.deleteFrom('webhook_endpoints').execute();
});

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, token = acct.tokens.all) =>
  t.call(token, {
    method,
    url: `/api/v1${url}`,
    ...(body === undefined ? {} : { headers: json, payload: JSON.stringify(body) }),
  });
const endpoint = async (path = '/hook', events: string[] = []) => {
  const res = await api('POST', '/webhook-endpoints', { url: `${rx.url}${path}`, events, description: 'test' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; secret: string };
};
const order = async () => {
  const res = await api('POST', '/events/hooks-fest/orders', {
    items: [{ ticket_type_id: gaId, quantity: 1 }],
    email: 'b@example.org',
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { ref: string };
};
const deliver = async () => {
  await deliverWebhooks(t.ctx);
  await settleWebhooks(t.ctx);
};
const deliveries = async () => t.ctx.db.selectFrom('webhook_deliveries').selectAll().orderBy('id').execute();

describe('signatures', () => {
  it('match the Standard Webhooks reference vector and the standardwebhooks package', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(sign(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
    expect(sign(secret, 'msg_1', 1700000000, '{}')).toBe(new Webhook(secret).sign('msg_1', new Date(1700000000 * 1000), '{}'));
  });
});

describe('webhook endpoints', () => {
  it('create shows the secret once; list and read never do; bad input is 422; webhooks.manage is needed', async () => {
    const made = await endpoint('/x', ['order.paid']);
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const list = await api('GET', '/webhook-endpoints');
    expect(list.body).not.toContain(made.secret);
    expect(list.json().webhook_endpoints[0]).toMatchObject({ url: `${rx.url}/x`, events: ['order.paid'], enabled: true });
    expect((await api('GET', `/webhook-endpoints/${made.id}`)).json()).not.toHaveProperty('secret');
    for (const bad of [
      { url: 'ftp://x' },
      { url: 'not a url' },
      { url: 'https://u:p@example.org' },
      { url: 'https://e.org', events: ['order.exploded'] },
    ]) {
      const r = await api('POST', '/webhook-endpoints', bad);
      expect([r.statusCode, r.json().error.code], JSON.stringify(bad)).toEqual([422, 'validation_failed']);
    }
    expect((await api('GET', '/webhook-endpoints', undefined, acct.tokens.view)).statusCode).toBe(403);
    const patched = await api('PATCH', `/webhook-endpoints/${made.id}`, { enabled: false, description: 'off' });
    expect(patched.json()).toMatchObject({ enabled: false, description: 'off' });
    expect((await api('DELETE', `/webhook-endpoints/${made.id}`)).statusCode).toBe(204);
    expect((await api('GET', `/webhook-endpoints/${made.id}`)).statusCode).toBe(404);
  });
});

describe('delivery', () => {
  it('sends order.created signed as Standard Webhooks, after commit, with the order read shape', async () => {
    const ep = await endpoint();
    const o = await order();
    await deliver();
    expect(rx.got).toHaveLength(1);
    const req = rx.got[0]!;
    const verified = new Webhook(ep.secret).verify(req.body, {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    }) as { type: string; timestamp: string; data: { ref: string; status: string } };
    expect(verified.type).toBe('order.created');
    expect(verified.data.ref).toBe(o.ref);
    expect(verified.data.status).toBe('pending');
    const log = await api('GET', `/webhook-endpoints/${ep.id}/deliveries`);
    expect(log.json().deliveries[0]).toMatchObject({
      type: 'order.created',
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
    });
  });

  it('only the types an endpoint asked for; a rolled-back change sends nothing', async () => {
    await endpoint('/paid-only', ['order.paid']);
    await order();
    expect(await deliveries()).toEqual([]);
    await endpoint('/all');
    const before = (await deliveries()).length;
    const orderRow = await t.ctx.db
      .selectFrom('orders')
      .select(['id', 'account_id'])
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    await expect(
      t.ctx.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('order_log')
          .values({ account_id: orderRow.account_id, order_id: orderRow.id, action: 'paid', data: '{}', created_at: new Date() })
          .execute();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await deliveries()).length).toBe(before);
  });

  it('retries on the schedule under a fake clock with the same webhook-id, honours Retry-After, then fails', async () => {
    await endpoint();
    await order();
    rx.answers = [{ status: 500 }, { status: 503, headers: { 'retry-after': '120' } }, { status: 500 }, { status: 500 }];
    await deliver();
    let [d] = await deliveries();
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500 });
    const wait1 = new Date(d!.next_attempt_at).getTime() - t.clock.now().getTime();
    expect(wait1).toBeGreaterThanOrEqual(4_500);
    expect(wait1).toBeLessThanOrEqual(5_500);
    // not due yet: nothing is sent
    await deliver();
    expect(rx.got).toHaveLength(1);
    t.clock.advance(wait1);
    await deliver();
    [d] = await deliveries();
    // Retry-After: 120 s instead of the schedule's 300 s
    expect(new Date(d!.next_attempt_at).getTime() - t.clock.now().getTime()).toBe(120_000);
    t.clock.advance(120_000);
    await deliver();
    [d] = await deliveries();
    const wait3 = new Date(d!.next_attempt_at).getTime() - t.clock.now().getTime();
    expect(wait3).toBeGreaterThanOrEqual(1_620_000);
    expect(wait3).toBeLessThanOrEqual(1_980_000);
    t.clock.advance(wait3);
    await deliver();
    [d] = await deliveries();
    expect(d).toMatchObject({ status: 'failed', attempts: 4 });
    expect(new Set(rx.got.map((g) => g.headers['webhook-id'])).size).toBe(1);
    expect(new Set(rx.got.map((g) => g.body)).size).toBe(1);
    const attempts = await api('GET', `/webhook-endpoints/${d!.endpoint_id}/deliveries/${d!.id}/attempts`);
    expect(attempts.json().attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 503, 500, 500]);
    expect(attempts.json().attempts[0].response_body).toBe('answer 500');

    // redelivery: the same webhook-id and body, due at once
    const again = await api('POST', `/webhook-endpoints/${d!.endpoint_id}/deliveries/${d!.id}/redeliver`);
    expect(again.statusCode).toBe(202);
    await deliver();
    expect(rx.got).toHaveLength(5);
    expect(rx.got[4]!.headers['webhook-id']).toBe(rx.got[0]!.headers['webhook-id']);
    expect(rx.got[4]!.body).toBe(rx.got[0]!.body);
    expect((await deliveries())[0]).toMatchObject({ status: 'succeeded' });
  });

  it('the schedule has ±10% jitter and ends after its last step', () => {
    const schedule = [5, 300];
    expect(nextAttemptDelay(schedule, 1, null, () => 0)).toBe(4_500);
    expect(nextAttemptDelay(schedule, 1, null, () => 1)).toBe(5_500);
    expect(nextAttemptDelay(schedule, 2, null, () => 0.5)).toBe(300_000);
    expect(nextAttemptDelay(schedule, 3, null)).toBeNull();
  });

  it('a 410 disables the endpoint; its other deliveries wait', async () => {
    const ep = await endpoint();
    await order();
    await order();
    rx.answers = [{ status: 410 }];
    await deliver();
    const got = (await api('GET', `/webhook-endpoints/${ep.id}`)).json();
    expect(got).toMatchObject({ enabled: false, disabled_reason: 'the receiver answered 410 Gone' });
    const sent = rx.got.length;
    await deliver();
    expect(rx.got.length).toBe(sent);
    // enabling again sends what waited
    await api('PATCH', `/webhook-endpoints/${ep.id}`, { enabled: true });
    await deliver();
    expect((await deliveries()).filter((d) => d.status === 'succeeded').length).toBeGreaterThanOrEqual(1);
  });

  it('after a rotation both secrets sign for 24 hours, then only the new one', async () => {
    const ep = await endpoint();
    const rotated = (await api('POST', `/webhook-endpoints/${ep.id}/rotate-secret`)).json();
    expect(rotated.secret).not.toBe(ep.secret);
    await order();
    await deliver();
    const req = rx.got[0]!;
    const sigs = String(req.headers['webhook-signature']).split(' ');
    expect(sigs).toHaveLength(2);
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    expect(() => new Webhook(ep.secret).verify(req.body, headers)).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(req.body, headers)).not.toThrow();
    t.clock.advance(24 * 60 * 60 * 1000 + 1000);
    await order();
    await deliver();
    expect(String(rx.got[1]!.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });

  it('a test event, check-ins and redeliver-failed since a time', async () => {
    const ep = await endpoint('/t', ['checkin.created']);
    const test = await api('POST', `/webhook-endpoints/${ep.id}/test`);
    expect(test.statusCode).toBe(202);
    await deliver();
    expect(JSON.parse(rx.got[0]!.body).type).toBe('webhook.test');
    // an order paid and checked in through the API
    const o = await order();
    const paid = await t.ctx.db
      .selectFrom('orders')
      .select(['id', 'account_id'])
      .where('ref', '=', o.ref)
      .executeTakeFirstOrThrow();
    await t.ctx.db.transaction().execute(async (trx) => {
      const { fulfilOrder } = await import('../orders/fulfil-order.service.ts');
      const row = await trx.selectFrom('orders').selectAll().where('id', '=', paid.id).executeTakeFirstOrThrow();
      await fulfilOrder(trx, t.ctx, row, t.clock.now(), 'test');
    });
    const ticket = await t.ctx.db
      .selectFrom('tickets')
      .select(['qr_token', 'ref'])
      .where('order_id', '=', paid.id)
      .executeTakeFirstOrThrow();
    const list = await t.ctx.db.selectFrom('checkin_lists').select('id').where('key', '=', 'main').executeTakeFirstOrThrow();
    const scan = await t.call(acct.tokens.all, {
      method: 'POST',
      url: `/hooks/hooks-fest/checkin_lists/${list.id}/tickets/${ticket.qr_token}/checkins`,
    });
    expect(scan.statusCode, scan.body).toBe(200);
    rx.answers = [{ status: 500 }];
    await deliver();
    t.clock.advance(10_000);
    rx.answers = [{ status: 500 }, { status: 500 }, { status: 500 }];
    for (let i = 0; i < 4; i++) {
      await deliver();
      t.clock.advance(2_000_000);
    }
    const failed = (await deliveries()).filter((d) => d.type === 'checkin.created');
    expect(failed[0]).toMatchObject({ status: 'failed' });
    const redo = await api('POST', `/webhook-endpoints/${ep.id}/redeliver-failed`, { since: '2020-01-01T00:00:00Z' });
    expect(redo.json()).toEqual({ redelivered: 1 });
    await deliver();
    const last = JSON.parse(rx.got.at(-1)!.body);
    expect(last).toMatchObject({
      type: 'checkin.created',
      data: { order: o.ref, ticket: ticket.ref, seat: null, checkin_list: list.id, online: true },
    });
  });

  it('one slow receiver does not hold up another', async () => {
    await endpoint('/slow');
    await endpoint('/fast');
    rx.answers = [];
    const slow = new Receiver();
    await slow.start();
    await t.ctx.db
      .updateTable('webhook_endpoints')
      .set({ url: `${slow.url}/slow` })
      .where('url', 'like', '%/slow')
      .execute();
    slow.answers = [{ status: 200, hang: true }];
    await order();
    const started = Date.now();
    await deliverWebhooks(t.ctx);
    // the fast one is done within the pass; the slow one is still waiting on its receiver
    expect(rx.got.map((g) => g.path)).toEqual(['/fast']);
    expect(Date.now() - started).toBeLessThan(1_400);
    await settleWebhooks(t.ctx);
    const slowDelivery = (await deliveries()).find((d) => d.status !== 'succeeded');
    expect(slowDelivery?.last_status_code).toBeNull();
    await slow.close();
  });

  it('five days of failures disable the endpoint and mail the owners', async () => {
    const ep = await endpoint();
    await t.ctx.db
      .updateTable('webhook_endpoints')
      .set({ failing_since: new Date(t.clock.now().getTime() - 5 * 24 * 3600 * 1000) })
      .where('id', '=', ep.id)
      .execute();
    rx.answers = [{ status: 500 }];
    await order();
    await deliver();
    const got = (await api('GET', `/webhook-endpoints/${ep.id}`)).json();
    expect(got).toMatchObject({ enabled: false, disabled_reason: 'every delivery failed for five days' });
    const mail = await t.ctx.db.selectFrom('outbox').select('kind').where('kind', '=', 'mail.webhook_disabled').execute();
    expect(mail.length).toBeGreaterThanOrEqual(1);
  });
});

describe('SSRF', () => {
  it('refuses every private, loopback, link-local, metadata, multicast and reserved target before connecting', async () => {
    const targets = [
      'http://127.0.0.1/',
      'http://10.1.2.3/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://224.0.0.1/',
      'http://240.0.0.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[fd00:ec2::254]/',
      'http://[fe80::1]/',
      'http://[ff02::1]/',
      'http://localhost/',
    ];
    for (const target of targets) {
      const r = await post(target, {}, '{}', { timeoutMs: 1000, allowPrivate: false });
      expect([target, r.status, r.error]).toEqual([target, null, expect.stringMatching(/^refused: /)]);
    }
    // the switch lets on-premise receivers through
    const ok = await post(`${rx.url}/ok`, {}, '{}', { timeoutMs: 1000, allowPrivate: true });
    expect(ok.status).toBe(200);
  });

  it('a delivery to a private target without the switch is recorded as refused and retried', async () => {
    const strict = await createTestApp({ config: { webhookAllowPrivate: false } });
    try {
      const a = await seedAccount(strict.ctx, makeAccountFile({ slug: 'strict' }));
      const made = await strict.call(a.tokens.all, {
        method: 'POST',
        url: '/api/v1/webhook-endpoints',
        headers: json,
        payload: JSON.stringify({ url: `${rx.url}/private` }),
      });
      const id = made.json().id;
      await strict.call(a.tokens.all, { method: 'POST', url: `/api/v1/webhook-endpoints/${id}/test` });
      await deliverWebhooks(strict.ctx);
      await settleWebhooks(strict.ctx);
      expect(rx.got.filter((g) => g.path === '/private')).toEqual([]);
      const attempts = await sql<{ error: string }>`select error from webhook_attempts`.execute(strict.ctx.db);
      expect(attempts.rows[0]!.error).toMatch(/^refused: 127\.0\.0\.1 is a loopback address/);
    } finally {
      await strict.close();
    }
  });
});

describe.runIf(process.env.DATABASE_URL)('two workers', () => {
  it('never send one attempt twice at once', async () => {
    await endpoint('/dup');
    for (let i = 0; i < 20; i++) await order();
    const second = await createTestApp({ sameDatabaseAs: t, config: { webhookAllowPrivate: true } });
    // both clocks a little past the rows' creation, well within the lease: only the lease keeps a
    // delivery another worker has under way from being claimed again
    t.clock.advance(5_000);
    second.clock.set(t.clock.now());
    try {
      // a slow receiver: one worker's attempts are still under way when the other looks for work
      rx.answers = Array.from({ length: 20 }, () => ({ status: 200, delayMs: 300 }));
      const staggered = async () => {
        const first = deliverWebhooks(t.ctx);
        await new Promise((r) => setTimeout(r, 100));
        await Promise.all([first, deliverWebhooks(second.ctx)]);
      };
      for (let i = 0; i < 8; i++) await staggered();
      await Promise.all([settleWebhooks(t.ctx), settleWebhooks(second.ctx)]);
      const ids = rx.got.map((g) => String(g.headers['webhook-id']));
      expect(ids.length).toBe(20);
      expect(new Set(ids).size).toBe(20);
    } finally {
      await second.close();
    }
  });
});
