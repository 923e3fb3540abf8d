import { sql } from 'kysely';
import { countWebhookDeliveries } from '../../platform/metrics.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import type { Job } from '../../platform/jobs/jobs.ts';
import { enqueue } from '../../platform/jobs/outbox.ts';
import { iso } from '../../platform/time.ts';
import { findOrdersByIds } from '../orders/orders.repo.ts';
import { presentOrders } from '../orders/orders.presenter.ts';
import { ticketSeatJson } from '../orders/orders.repo.ts';
import { signatureHeader } from './signing.ts';
import { nextAttemptDelay, post, type AttemptResult } from './webhook-post.ts';
import { webhookId } from './webhooks.service.ts';

/**
 * The delivery worker. Every instance runs it. Deliveries are claimed in batches with FOR UPDATE
 * SKIP LOCKED and a lease (attempts counted and leased_until set past the attempt's timeout
 * in the claiming transaction), so two workers never send one attempt at once and a worker that
 * dies mid-attempt leaves the delivery to be retried when the lease ends. Claimed deliveries wait
 * in a queue per endpoint and are sent at most PER_ENDPOINT at a time per endpoint, so one slow or
 * dead receiver never holds up the others; bodies are built for a whole batch at once and results
 * are recorded in batches, so a busy endpoint costs a few statements per batch, not per event.
 */
const PER_ENDPOINT = 4;
/** claimed and not yet sent, per endpoint */
const QUEUE_PER_ENDPOINT = 256;
const CLAIM_ROWS = 512;
/** between claims when there is no backlog */
const GATHER_MS = 250;
const LEASE_MS = 60_000;
const FAILING_DISABLE_MS = 5 * 24 * 60 * 60 * 1000;
const FLUSH_AT = 128;

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
  failing_since: Date | null;
  /** this instance's clock when it claimed the delivery: the lease ends LEASE_MS later */
  claimed_at: number;
}

interface Outcome {
  d: Claimed;
  at: Date;
  /** null: not sent (its lease ran short while queued); handed back untouched */
  result: AttemptResult | null;
}

interface State {
  queues: Map<number, Claimed[]>;
  inFlight: Map<number, number>;
  running: Set<Promise<void>>;
  outcomes: Outcome[];
  flushing: Promise<void> | null;
}
const states = new WeakMap<AppContext, State>();
function stateOf(ctx: AppContext): State {
  let s = states.get(ctx);
  if (!s) states.set(ctx, (s = { queues: new Map(), inFlight: new Map(), running: new Set(), outcomes: [], flushing: null }));
  return s;
}

/** Waits for every attempt this instance has claimed (tests, shutdown) and records the outcomes. */
export async function settleWebhooks(ctx: AppContext): Promise<void> {
  const state = stateOf(ctx);
  for (;;) {
    pump(ctx);
    if (state.running.size) await Promise.allSettled([...state.running]);
    await flush(ctx);
    if (!state.running.size && ![...state.queues.values()].some((q) => q.length)) return;
  }
}

/**
 * The worker's own bookkeeping (claims, outcomes) commits without waiting for the WAL flush, so it
 * never queues behind or in front of the orders' commits. A crash may forget the last few
 * milliseconds of it: a claim forgotten makes the delivery due again, an outcome forgotten sends it
 * again with the same webhook-id. Both are within "at least once"; nothing is ever lost, because
 * the delivery rows themselves are written, durably, by the change's own transaction.
 */
async function relaxedCommit(trx: Db): Promise<void> {
  await sql`set local synchronous_commit = off`.execute(trx);
}

/** Shutdown: waits for the attempts under way, hands the queued ones back unsent, records it all. */
export async function drainWebhooks(ctx: AppContext): Promise<void> {
  const state = stateOf(ctx);
  const now = ctx.clock.now();
  for (const queue of state.queues.values()) for (const d of queue.splice(0)) state.outcomes.push({ d, at: now, result: null });
  state.queues.clear();
  await Promise.allSettled([...state.running]);
  await flush(ctx);
}

/** Claims due deliveries, up to each endpoint's free queue room; counts the attempt and takes the lease. */
export async function claimDue(ctx: AppContext): Promise<Claimed[]> {
  const state = stateOf(ctx);
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    await relaxedCommit(trx);
    const rows = await sql<Omit<Claimed, 'claimed_at'>>`
      select d.id, d.endpoint_id, d.account_id, d.type, d.subject, d.body, d.attempts, d.created_at,
        e.url, e.secret, e.previous_secret, e.previous_secret_until, e.failing_since
      from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
      -- never tried: due at once (whatever clock wrote the row); tried: after its wait or lease
      where d.status = 'pending' and (d.attempts = 0 or d.next_attempt_at <= ${now})
        and (d.leased_until is null or d.leased_until <= ${now}) and e.enabled
      order by d.next_attempt_at, d.id
      limit ${CLAIM_ROWS}
      for update of d skip locked`.execute(trx);
    const taken: Claimed[] = [];
    const room = new Map<number, number>();
    for (const r of rows.rows) {
      const endpoint = Number(r.endpoint_id);
      const left =
        room.get(endpoint) ??
        QUEUE_PER_ENDPOINT - (state.queues.get(endpoint)?.length ?? 0) - (state.inFlight.get(endpoint) ?? 0);
      if (left <= 0) continue;
      room.set(endpoint, left - 1);
      taken.push({
        ...r,
        id: Number(r.id),
        endpoint_id: endpoint,
        account_id: Number(r.account_id),
        attempts: r.attempts + 1,
        claimed_at: now.getTime(),
      });
    }
    if (taken.length) {
      const bodies = await bodiesOf(trx, taken);
      const kept = await sql<{ id: string | number; body: string }>`
        update webhook_deliveries d set attempts = d.attempts + 1,
            leased_until = ${new Date(now.getTime() + LEASE_MS)}, body = coalesce(d.body, v.body)
        from unnest(${sql.val(taken.map((c) => c.id))}::bigint[], ${sql.val(bodies)}::text[]) as v(id, body)
        where d.id = v.id
        returning d.id, d.body`.execute(trx);
      const byId = new Map(kept.rows.map((r) => [Number(r.id), r.body]));
      for (const d of taken) d.body = byId.get(d.id) ?? null;
    }
    return taken;
  });
}

/**
 * The event body: type, the event's time, and the data as it is at the first attempt, then fixed
 * for every retry. Built for a whole batch: one read of the orders, one of the check-ins, one write.
 */
async function bodiesOf(db: Db, claimed: Claimed[]): Promise<Array<string | null>> {
  const fresh = claimed.filter((d) => d.body === null);
  if (!fresh.length) return claimed.map(() => null);
  const orderIds = new Map<number, Set<number>>();
  for (const d of fresh)
    if (typeof d.subject.order_id === 'number') {
      const ids = orderIds.get(d.account_id) ?? new Set<number>();
      orderIds.set(d.account_id, ids.add(d.subject.order_id));
    }
  const checkinIds = [...new Set(fresh.map((d) => d.subject.checkin_id).filter((v): v is number => typeof v === 'number'))];
  const orders = new Map<number, unknown>();
  for (const [accountId, ids] of orderIds) {
    const records = await findOrdersByIds(db, accountId, [...ids]);
    const views = await presentOrders(db, records);
    records.forEach((o, i) => orders.set(o.id, views[i]));
  }
  const checkins = new Map<number, unknown>();
  if (checkinIds.length) {
    const rows = await db
      .selectFrom('checkins as c')
      .innerJoin('tickets as t', 't.id', 'c.ticket_id')
      .innerJoin('orders as o', 'o.id', 't.order_id')
      .select([
        'c.id',
        'c.created_at',
        'c.online',
        'c.checkin_list_id',
        't.ref as ticket',
        'o.ref as order',
        ticketSeatJson('t').as('seat'),
      ])
      .where('c.id', 'in', checkinIds)
      .execute();
    for (const c of rows)
      checkins.set(Number(c.id), {
        id: Number(c.id),
        created_at: iso(c.created_at),
        order: c.order,
        ticket: c.ticket,
        // the seat the ticket admits to (null at general admission), as check-in reads show it
        seat: c.seat ?? null,
        checkin_list: Number(c.checkin_list_id),
        online: c.online,
      });
  }
  return claimed.map((d) => {
    if (d.body !== null) return null;
    const data =
      typeof d.subject.order_id === 'number'
        ? (orders.get(d.subject.order_id) ?? null)
        : typeof d.subject.checkin_id === 'number'
          ? (checkins.get(d.subject.checkin_id) ?? null)
          : { message: 'A test event from admit: your endpoint is reachable and verifies signatures.' };
    return JSON.stringify({ type: d.type, timestamp: iso(d.created_at), data });
  });
}

async function send(ctx: AppContext, d: Claimed): Promise<AttemptResult> {
  const body = d.body!;
  const now = ctx.clock.now();
  const timestamp = Math.floor(now.getTime() / 1000);
  const secrets = [d.secret];
  if (d.previous_secret && d.previous_secret_until && new Date(d.previous_secret_until) > now) secrets.push(d.previous_secret);
  const id = webhookId(d.id);
  return post(
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
}

/**
 * Starts queued deliveries on every endpoint with a free slot. A delivery whose lease would end
 * before its attempt could time out is not sent: it is handed back, for whichever worker claims it next.
 */
function pump(ctx: AppContext): void {
  const state = stateOf(ctx);
  const now = ctx.clock.now().getTime();
  for (const [endpoint, queue] of state.queues) {
    while (queue.length && (state.inFlight.get(endpoint) ?? 0) < PER_ENDPOINT) {
      const d = queue.shift()!;
      if (now - d.claimed_at > LEASE_MS - ctx.config.webhookTimeoutMs - 5_000) {
        state.outcomes.push({ d, at: ctx.clock.now(), result: null });
        continue;
      }
      state.inFlight.set(endpoint, (state.inFlight.get(endpoint) ?? 0) + 1);
      const p: Promise<void> = send(ctx, d)
        .then((result) => {
          state.outcomes.push({ d, at: ctx.clock.now(), result });
        })
        .catch((err: unknown) => ctx.log.error({ err, delivery: d.id }, 'webhook attempt failed'))
        .finally(() => {
          const left = (state.inFlight.get(endpoint) ?? 1) - 1;
          if (left <= 0) state.inFlight.delete(endpoint);
          else state.inFlight.set(endpoint, left);
          state.running.delete(p);
          pump(ctx);
          if (state.outcomes.length >= FLUSH_AT) void flush(ctx).catch(() => undefined);
        });
      state.running.add(p);
    }
    if (!queue.length && !state.inFlight.get(endpoint)) state.queues.delete(endpoint);
  }
}

/** Records the outcomes gathered so far: a few statements for the whole batch. */
async function flush(ctx: AppContext): Promise<void> {
  const state = stateOf(ctx);
  while (state.flushing) await state.flushing;
  if (!state.outcomes.length) return;
  const batch = state.outcomes.splice(0);
  state.flushing = record(ctx, batch)
    .catch((err: unknown) => {
      // not recorded: the leases end and the deliveries are tried again (at least once)
      ctx.log.error({ err, deliveries: batch.length }, 'webhook outcomes not recorded');
    })
    .finally(() => (state.flushing = null));
  await state.flushing;
}

async function record(ctx: AppContext, outcomes: Outcome[]): Promise<void> {
  const sent = outcomes.filter((o): o is Outcome & { result: AttemptResult } => o.result !== null);
  const unsent = outcomes.filter((o) => o.result === null);
  const rows = sent.map(({ d, at, result: r }) => {
    const ok = r.status !== null && r.status >= 200 && r.status < 300;
    const gone = r.status === 410;
    const delay = ok || gone ? null : nextAttemptDelay(ctx.config.webhookRetrySchedule, d.attempts, r.retryAfterMs);
    return {
      d,
      at,
      r,
      ok,
      gone,
      status: ok ? 'succeeded' : delay === null ? 'failed' : 'pending',
      next: delay === null ? at : new Date(at.getTime() + delay),
    };
  });
  await ctx.db.transaction().execute(async (trx) => {
    await relaxedCommit(trx);
    if (unsent.length) {
      // handed back as if never claimed by this worker: the attempt was not made
      await sql`update webhook_deliveries set attempts = attempts - 1, leased_until = null
        from unnest(${sql.val(unsent.map((o) => o.d.id))}::bigint[], ${sql.val(unsent.map((o) => o.d.attempts))}::int[]) as v(id, attempts)
        where webhook_deliveries.id = v.id and webhook_deliveries.attempts = v.attempts`.execute(trx);
    }
    if (!rows.length) return;
    // the attempts and the deliveries' new state in one statement
    await sql`with attempts as (
      insert into webhook_attempts (delivery_id, at, status_code, duration_ms, error, response_body)
      select * from unnest(${sql.val(rows.map((x) => x.d.id))}::bigint[], ${sql.val(rows.map((x) => x.at))}::timestamptz[],
        ${sql.val(rows.map((x) => x.r.status))}::int[], ${sql.val(rows.map((x) => x.r.durationMs))}::int[],
        ${sql.val(rows.map((x) => x.r.error))}::text[], ${sql.val(rows.map((x) => x.r.body || null))}::text[])
    )
    update webhook_deliveries d set status = v.status, last_status_code = v.code, updated_at = v.at, leased_until = null,
      next_attempt_at = case when v.status = 'pending' then v.next else d.next_attempt_at end
    from unnest(${sql.val(rows.map((x) => x.d.id))}::bigint[], ${sql.val(rows.map((x) => x.status))}::text[],
      ${sql.val(rows.map((x) => x.r.status))}::int[], ${sql.val(rows.map((x) => x.next))}::timestamptz[],
      ${sql.val(rows.map((x) => x.at))}::timestamptz[]) as v(id, status, code, next, at)
    where d.id = v.id`.execute(trx);
  });
  if (!rows.length) return;
  for (const result of ['succeeded', 'retrying', 'failed'] as const) {
    const status = result === 'retrying' ? 'pending' : result;
    countWebhookDeliveries(result, rows.filter((x) => x.status === status).length);
  }
  const succeeded = new Set(rows.filter((x) => x.ok).map((x) => x.d.endpoint_id));
  const healed = [...new Set(rows.filter((x) => x.ok && x.d.failing_since !== null).map((x) => x.d.endpoint_id))];
  const gone = [...new Set(rows.filter((x) => x.gone).map((x) => x.d.endpoint_id))];
  // an endpoint with only failures in this batch is failing (since its first failure)
  const failing = [
    ...new Set(rows.filter((x) => !x.ok && !x.gone && !succeeded.has(x.d.endpoint_id)).map((x) => x.d.endpoint_id)),
  ];
  if (!healed.length && !gone.length && !failing.length) return;
  await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    if (healed.length)
      await trx.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', 'in', healed).execute();
    if (gone.length)
      await trx
        .updateTable('webhook_endpoints')
        .set({ enabled: false, disabled_reason: 'the receiver answered 410 Gone', updated_at: now })
        .where('id', 'in', gone)
        .execute();
    for (const endpoint of failing) {
      const ep = await trx
        .updateTable('webhook_endpoints')
        .set({ failing_since: sql`coalesce(failing_since, ${now})` })
        .where('id', '=', endpoint)
        .returning(['failing_since', 'enabled', 'account_id'])
        .executeTakeFirst();
      if (ep?.enabled && ep.failing_since && now.getTime() - new Date(ep.failing_since).getTime() >= FAILING_DISABLE_MS) {
        await trx
          .updateTable('webhook_endpoints')
          .set({ enabled: false, disabled_reason: 'every delivery failed for five days', updated_at: now })
          .where('id', '=', endpoint)
          .execute();
        await enqueue(trx, {
          accountId: Number(ep.account_id),
          kind: 'mail.webhook_disabled',
          payload: { endpoint_id: endpoint },
        });
      }
    }
  });
}

/**
 * One pass of up to about a second: claims what is due into the endpoints' queues, sends, and
 * claims again as the queues run low, so a busy endpoint is fed continuously (PER_ENDPOINT at a
 * time) while a hung one only ever holds its own slots. Outcomes are recorded in batches.
 * Answers how many deliveries it claimed.
 */
export async function deliverWebhooks(ctx: AppContext): Promise<number> {
  const state = stateOf(ctx);
  const deadline = performance.now() + 900;
  let total = 0;
  for (;;) {
    const claimed = await claimDue(ctx);
    total += claimed.length;
    for (const d of claimed) {
      const q = state.queues.get(d.endpoint_id);
      if (q) q.push(d);
      else state.queues.set(d.endpoint_id, [d]);
    }
    pump(ctx);
    await flush(ctx);
    if (performance.now() >= deadline || (state.running.size === 0 && claimed.length === 0)) break;
    // A backlog (the claim was full): claim again as soon as the queues have drained to half.
    // Otherwise new events trickle in: gather them for a while, so claims stay few and large
    // while orders are being written.
    const backlog = claimed.length >= CLAIM_ROWS / 2;
    const until = Math.min(deadline, performance.now() + (backlog ? 5_000 : GATHER_MS));
    while (performance.now() < until) {
      const queued = [...state.queues.values()].reduce((n, q) => n + q.length, 0);
      if (backlog && queued <= QUEUE_PER_ENDPOINT / 2) break;
      await Promise.race([
        ...state.running,
        new Promise((r) => setTimeout(r, Math.max(1, Math.min(until - performance.now(), 50))).unref()),
      ]);
    }
    if (performance.now() >= deadline) break;
  }
  await flush(ctx);
  return total;
}

export const webhookJob: Job = {
  name: 'webhooks',
  every: 1_000,
  run: deliverWebhooks,
  // sends never share the event loop serving buyers (on PostgreSQL)
  thread: { module: import.meta.url, exportName: 'webhookJob', nice: 19, drain: drainWebhooks },
};
