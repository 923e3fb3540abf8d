import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { Job } from '../../platform/jobs/jobs.ts';
import { enqueue } from '../../platform/jobs/outbox.ts';
import { refusedAddress } from '../../platform/net/address-policy.ts';
import { iso } from '../../platform/time.ts';
import { findOrderById } from '../orders/orders.repo.ts';
import { presentOrders } from '../orders/orders.presenter.ts';
import { signatureHeader } from './signing.ts';
import { webhookId } from './webhooks.service.ts';

/**
 * The delivery worker. Every instance runs it; a delivery is claimed with FOR UPDATE SKIP LOCKED
 * and a lease (next_attempt_at pushed past the attempt's timeout), so two workers never send one
 * attempt at once, and a worker that dies mid-attempt leaves it to be retried after the lease.
 * Sends run in the background: at most PER_ENDPOINT at a time per endpoint, so one slow or dead
 * receiver never holds up the others.
 */
const PER_ENDPOINT = 4;
const BATCH = 50;
const LEASE_MS = 60_000;
const RESPONSE_CAP = 1024;
const FAILING_DISABLE_MS = 5 * 24 * 60 * 60 * 1000;

interface State {
  perEndpoint: Map<number, number>;
  running: Set<Promise<void>>;
}
const states = new WeakMap<AppContext, State>();
function stateOf(ctx: AppContext): State {
  let s = states.get(ctx);
  if (!s) states.set(ctx, (s = { perEndpoint: new Map(), running: new Set() }));
  return s;
}

/** Waits for every attempt this instance has under way (tests, shutdown). */
export async function settleWebhooks(ctx: AppContext): Promise<void> {
  while (stateOf(ctx).running.size) await Promise.allSettled([...stateOf(ctx).running]);
}

interface Claimed {
  id: number;
  endpoint_id: number;
  account_id: number;
  type: string;
  subject: Record<string, unknown>;
  body: string | null;
  attempts: number;
  created_at: Date;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
}

export async function claimDue(ctx: AppContext): Promise<Claimed[]> {
  const state = stateOf(ctx);
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const rows = await sql<Claimed>`
      select d.id, d.endpoint_id, d.account_id, d.type, d.subject, d.body, d.attempts, d.created_at,
        e.url, e.secret, e.previous_secret, e.previous_secret_until
      from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
      -- never tried: due at once (whatever clock wrote the row); tried: after its wait or lease
      where d.status = 'pending' and (d.attempts = 0 or d.next_attempt_at <= ${now}) and e.enabled
      order by d.next_attempt_at, d.id
      limit ${BATCH * 4}
      for update of d skip locked`.execute(trx);
    const taken: Claimed[] = [];
    const quota = new Map<number, number>();
    for (const r of rows.rows) {
      const endpoint = Number(r.endpoint_id);
      const used = quota.get(endpoint) ?? state.perEndpoint.get(endpoint) ?? 0;
      if (used >= PER_ENDPOINT || taken.length >= BATCH) continue;
      quota.set(endpoint, used + 1);
      taken.push({ ...r, id: Number(r.id), endpoint_id: endpoint, account_id: Number(r.account_id) });
    }
    if (taken.length) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ attempts: sql`attempts + 1`, next_attempt_at: new Date(now.getTime() + LEASE_MS), updated_at: now })
        .where(
          'id',
          'in',
          taken.map((c) => c.id),
        )
        .execute();
    }
    return taken.map((c) => ({ ...c, attempts: c.attempts + 1 }));
  });
}

/** The event body: type, the event's time, and the data as it is now (then fixed for every retry). */
async function bodyOf(ctx: AppContext, d: Claimed): Promise<string> {
  let data: unknown;
  if (typeof d.subject.order_id === 'number') {
    const order = await findOrderById(ctx.db, d.account_id, d.subject.order_id);
    data = order ? (await presentOrders(ctx.db, [order]))[0] : null;
  } else if (typeof d.subject.checkin_id === 'number') {
    const c = await ctx.db
      .selectFrom('checkins as c')
      .innerJoin('tickets as t', 't.id', 'c.ticket_id')
      .innerJoin('orders as o', 'o.id', 't.order_id')
      .select(['c.id', 'c.created_at', 'c.online', 'c.checkin_list_id', 't.ref as ticket', 'o.ref as order'])
      .where('c.id', '=', d.subject.checkin_id)
      .executeTakeFirst();
    data = c
      ? {
          id: Number(c.id),
          created_at: iso(c.created_at),
          order: c.order,
          ticket: c.ticket,
          checkin_list: Number(c.checkin_list_id),
          online: c.online,
        }
      : null;
  } else {
    data = { message: 'A test event from admit: your endpoint is reachable and verifies signatures.' };
  }
  return JSON.stringify({ type: d.type, timestamp: iso(d.created_at), data });
}

export interface AttemptResult {
  status: number | null;
  error: string | null;
  body: string;
  retryAfterMs: number | null;
  durationMs: number;
}

/** The address to connect to: resolved once, refused unless public (or private receivers are allowed). */
async function vet(host: string, allowPrivate: boolean): Promise<{ address: string; family: 4 | 6 }> {
  const bare = host.replace(/^\[|\]$/g, '');
  const addrs = net.isIP(bare)
    ? [{ address: bare, family: net.isIP(bare) }]
    : await dns.promises.lookup(bare, { all: true, verbatim: true });
  if (!addrs.length) throw new Error(`${bare} does not resolve`);
  if (!allowPrivate) {
    for (const a of addrs) {
      const why = refusedAddress(a.address);
      if (why) throw new Error(`refused: ${bare} resolves to ${why} (${a.address})`);
    }
  }
  return { address: addrs[0]!.address, family: addrs[0]!.family === 6 ? 6 : 4 };
}

export async function post(
  target: string,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (r: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({
    ...r,
    durationMs: Math.round(performance.now() - started),
  });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return done({ status: null, error: 'the URL is not valid', body: '', retryAfterMs: null });
  }
  let vetted: { address: string; family: 4 | 6 };
  try {
    vetted = await vet(url.hostname, opts.allowPrivate);
  } catch (err) {
    return done({ status: null, error: (err as Error).message, body: '', retryAfterMs: null });
  }
  return new Promise((resolve) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
        // connect to the address vetted above: no second lookup a rebinding DNS could answer differently
        lookup: (_hostname, options, cb) => {
          if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [vetted]);
          else cb(null, vetted.address, vetted.family);
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < RESPONSE_CAP * 4) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          const raw = res.headers['retry-after'];
          let retryAfterMs: number | null = null;
          if (typeof raw === 'string') {
            if (/^\d+$/.test(raw.trim())) retryAfterMs = Number(raw.trim()) * 1000;
            else if (!Number.isNaN(Date.parse(raw))) retryAfterMs = Math.max(0, Date.parse(raw) - Date.now());
          }
          resolve(
            done({
              status: res.statusCode ?? null,
              error: null,
              body: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_CAP),
              retryAfterMs,
            }),
          );
        });
        res.on('error', (err) =>
          resolve(done({ status: res.statusCode ?? null, error: err.message, body: '', retryAfterMs: null })),
        );
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${opts.timeoutMs / 1000} s`)), opts.timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      resolve(done({ status: null, error: err.message, body: '', retryAfterMs: null }));
    });
    req.end(body);
  });
}

/** When the next attempt is due after failure number `attempts` (1-based), or null: give up. */
export function nextAttemptDelay(
  schedule: number[],
  attempts: number,
  retryAfterMs: number | null,
  random = Math.random,
): number | null {
  if (attempts > schedule.length) return null;
  if (retryAfterMs !== null) return Math.min(Math.max(retryAfterMs, 1000), 24 * 60 * 60 * 1000);
  const base = schedule[attempts - 1]! * 1000;
  return Math.round(base * (0.9 + 0.2 * random()));
}

async function attempt(ctx: AppContext, d: Claimed): Promise<void> {
  let body = d.body;
  if (body === null) {
    body = await bodyOf(ctx, d);
    // the first attempt fixes the body; a concurrent first attempt (after a lost lease) keeps the first
    const kept = await ctx.db
      .updateTable('webhook_deliveries')
      .set({ body: sql`coalesce(body, ${body})` })
      .where('id', '=', d.id)
      .returning('body')
      .executeTakeFirst();
    body = kept?.body ?? body;
  }
  const now = ctx.clock.now();
  const timestamp = Math.floor(now.getTime() / 1000);
  const secrets = [d.secret];
  if (d.previous_secret && d.previous_secret_until && new Date(d.previous_secret_until) > now) secrets.push(d.previous_secret);
  const id = webhookId(d.id);
  const result = await post(
    d.url,
    {
      'content-type': 'application/json',
      'user-agent': 'admit-webhooks/1',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, id, timestamp, body),
    },
    body,
    { timeoutMs: ctx.config.webhookTimeoutMs, allowPrivate: ctx.config.webhookAllowPrivate },
  );
  await record(ctx, d, result);
}

async function record(ctx: AppContext, d: Claimed, r: AttemptResult): Promise<void> {
  const now = ctx.clock.now();
  const ok = r.status !== null && r.status >= 200 && r.status < 300;
  const gone = r.status === 410;
  const delay = ok || gone ? null : nextAttemptDelay(ctx.config.webhookRetrySchedule, d.attempts, r.retryAfterMs);
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: d.id,
        at: now,
        status_code: r.status,
        duration_ms: r.durationMs,
        error: r.error,
        response_body: r.body || null,
      })
      .execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status: ok ? 'succeeded' : delay === null ? 'failed' : 'pending',
        last_status_code: r.status,
        next_attempt_at: delay === null ? now : new Date(now.getTime() + delay),
        updated_at: now,
      })
      .where('id', '=', d.id)
      .execute();
    if (ok) {
      await trx.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', d.endpoint_id).execute();
      return;
    }
    if (gone) {
      await trx
        .updateTable('webhook_endpoints')
        .set({ enabled: false, disabled_reason: 'the receiver answered 410 Gone', updated_at: now })
        .where('id', '=', d.endpoint_id)
        .execute();
      return;
    }
    const ep = await trx
      .updateTable('webhook_endpoints')
      .set({ failing_since: sql`coalesce(failing_since, ${now})` })
      .where('id', '=', d.endpoint_id)
      .returning(['failing_since', 'enabled', 'account_id'])
      .executeTakeFirst();
    if (ep?.enabled && ep.failing_since && now.getTime() - new Date(ep.failing_since).getTime() >= FAILING_DISABLE_MS) {
      await trx
        .updateTable('webhook_endpoints')
        .set({ enabled: false, disabled_reason: 'every delivery failed for five days', updated_at: now })
        .where('id', '=', d.endpoint_id)
        .execute();
      await enqueue(trx, {
        accountId: Number(ep.account_id),
        kind: 'mail.webhook_disabled',
        payload: { endpoint_id: d.endpoint_id },
      });
    }
  });
}

/**
 * One pass of up to about a second: claims what is due and starts the attempts, and claims again
 * whenever an attempt finishes and frees its endpoint's slot, so a busy endpoint is fed
 * continuously (PER_ENDPOINT at a time) while a hung one only ever holds its own slots.
 */
export async function deliverWebhooks(ctx: AppContext): Promise<number> {
  const state = stateOf(ctx);
  const deadline = performance.now() + 900;
  let total = 0;
  for (;;) {
    const claimed = await claimDue(ctx);
    total += claimed.length;
    for (const d of claimed) {
      state.perEndpoint.set(d.endpoint_id, (state.perEndpoint.get(d.endpoint_id) ?? 0) + 1);
      const p: Promise<void> = attempt(ctx, d)
        .catch((err: unknown) => ctx.log.error({ err, delivery: d.id }, 'webhook attempt failed to record'))
        .finally(() => {
          const left = (state.perEndpoint.get(d.endpoint_id) ?? 1) - 1;
          if (left <= 0) state.perEndpoint.delete(d.endpoint_id);
          else state.perEndpoint.set(d.endpoint_id, left);
          state.running.delete(p);
        });
      state.running.add(p);
    }
    const left = deadline - performance.now();
    if (left <= 0 || state.running.size === 0) break;
    // wait for a slot to free (or the pass to end), then look for more work
    await Promise.race([...state.running, new Promise((r) => setTimeout(r, left).unref())]);
    if (performance.now() >= deadline) break;
  }
  return total;
}

export const webhookJob: Job = { name: 'webhooks', every: 1_000, run: deliverWebhooks };
