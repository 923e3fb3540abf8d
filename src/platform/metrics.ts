import { isMainThread, parentPort } from 'node:worker_threads';
import { sql, type QueryExecutorProvider } from 'kysely';
import client from 'prom-client';

/**
 * What an operator watches, in the Prometheus text format (GET /metrics, contract section 16).
 * One registry per process; job threads (webhook delivery) forward their counts to the main
 * thread's registry, so one scrape of an instance sees all of its work. Figures that are the
 * same for every instance (outbox depth and age) are read from the database at scrape time.
 */
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

const httpDuration = new client.Histogram({
  name: 'admit_http_request_duration_seconds',
  help: 'HTTP request durations by route pattern, method and status class',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
  registers: [registry],
});

const ordersWritten = new client.Counter({
  name: 'admit_orders_written_total',
  help: 'Orders written by the checkout (API, shop, order desk)',
  registers: [registry],
});

const batchSize = new client.Histogram({
  name: 'admit_order_batch_size',
  help: 'Orders per group-commit batch of the checkout writer',
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
  registers: [registry],
});

const seatedBatches = new client.Counter({
  name: 'admit_seated_batches_total',
  help: 'Batches of seated orders by how they were written: one guarded statement, or a transaction under the row lock',
  labelNames: ['path'] as const,
  registers: [registry],
});

const webhookDeliveries = new client.Counter({
  name: 'admit_webhook_deliveries_total',
  help: 'Webhook delivery attempts by result (succeeded, retrying, failed: given up)',
  labelNames: ['result'] as const,
  registers: [registry],
});

const poolWait = new client.Histogram({
  name: 'admit_db_pool_wait_seconds',
  help: 'Time a query waited for a database connection from this instance pool',
  buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
  registers: [registry],
});

export type WebhookResult = 'succeeded' | 'retrying' | 'failed';

/** A request answered: `route` is the route's pattern (bounded), never the raw URL. */
export function observeRequest(method: string, route: string, status: number, seconds: number): void {
  httpDuration.observe({ method, route, status: `${Math.floor(status / 100)}xx` }, seconds);
}

export function observeOrderBatch(orders: number): void {
  if (orders <= 0) return;
  batchSize.observe(orders);
  ordersWritten.inc(orders);
}

/** A batch of seated orders written: by the one guarded statement, or by the transaction. */
export function countSeatedBatch(path: 'statement' | 'transaction'): void {
  seatedBatches.inc({ path });
}

/** The seated batches counted so far by path (tests and the bench read it). */
export async function seatedBatchCounts(): Promise<Record<'statement' | 'transaction', number>> {
  const { values } = await seatedBatches.get();
  const of = (path: string) => values.find((v) => v.labels.path === path)?.value ?? 0;
  return { statement: of('statement'), transaction: of('transaction') };
}

export function observePoolWait(seconds: number): void {
  poolWait.observe(seconds);
}

interface Forwarded {
  admitMetric: 'webhook';
  result: WebhookResult;
  n: number;
}

export function countWebhookDeliveries(result: WebhookResult, n = 1): void {
  if (n <= 0) return;
  if (isMainThread || !parentPort) webhookDeliveries.inc({ result }, n);
  else parentPort.postMessage({ admitMetric: 'webhook', result, n } satisfies Forwarded);
}

/** The main thread's side of a job thread: counts the thread forwarded. Returns false for other messages. */
export function applyForwardedMetric(message: unknown): boolean {
  const m = message as Partial<Forwarded> | null;
  if (m?.admitMetric !== 'webhook' || typeof m.n !== 'number') return false;
  if (m.result === 'succeeded' || m.result === 'retrying' || m.result === 'failed')
    webhookDeliveries.inc({ result: m.result }, m.n);
  return true;
}

type PoolStats = () => { total: number; idle: number; waiting: number };

/** What the scrape-time gauges read: the latest app's database (one per process, but tests make several). */
let source: { db: QueryExecutorProvider; pool: PoolStats | undefined } | null = null;
let pending: Promise<{ depth: number; age: number }> | null = null;

/**
 * Outbox depth and the age of its oldest pending message, read at scrape time (the partial index
 * outbox_due holds exactly the pending rows, so this stays cheap however much was ever sent), and
 * this instance's connection pool, when the driver has one.
 */
export function registerScrapeGauges(db: QueryExecutorProvider, pool?: PoolStats): void {
  source = { db, pool };
}

function readOutbox(): Promise<{ depth: number; age: number }> {
  if (!source) return Promise.resolve({ depth: 0, age: 0 });
  // both outbox gauges share one query per scrape
  return (pending ??= sql<{ depth: number; age: number | null }>`
    select count(*)::int as depth, coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as age
    from outbox where status = 'pending'`
    .execute(source.db)
    .then((r) => ({ depth: r.rows[0]?.depth ?? 0, age: Math.max(0, r.rows[0]?.age ?? 0) })));
}

new client.Gauge({
  name: 'admit_outbox_depth',
  help: 'Outbox messages waiting to be sent (all instances)',
  registers: [registry],
  async collect() {
    this.set((await readOutbox()).depth);
  },
});

new client.Gauge({
  name: 'admit_outbox_oldest_age_seconds',
  help: 'Age of the oldest pending outbox message (0 when none)',
  registers: [registry],
  async collect() {
    this.set((await readOutbox()).age);
  },
});

new client.Gauge({
  name: 'admit_db_pool_connections',
  help: 'This instance database pool: connections by state, and queries waiting for one (PostgreSQL)',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    const p = source?.pool?.();
    if (!p) return;
    this.set({ state: 'total' }, p.total);
    this.set({ state: 'idle' }, p.idle);
    this.set({ state: 'waiting' }, p.waiting);
  },
});

export function scrape(): Promise<string> {
  pending = null; // each scrape reads the outbox once, for both of its gauges
  return registry.metrics();
}

export const METRICS_CONTENT_TYPE = registry.contentType;
