import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/** Child process: runs one autocannon load and prints its figures as one JSON line. */
const arg = process.argv[2] ?? '{}';
const opts = JSON.parse(arg.startsWith('@') ? readFileSync(arg.slice(1), 'utf8') : arg) as {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  method?: 'GET' | 'POST';
  body?: string;
  /** bodies sent in turn, one a request (the seats scenario: each buyer wants other seats) */
  bodies?: string[];
  headers?: Record<string, string>;
  /** cookie headers sent in turn, one a request (the queue scenario: each browser polls its own place) */
  cookies?: string[];
  /** requests a second over all connections (browsers polling at their own pace), else as fast as answered */
  overallRate?: number;
};

const statuses: Record<string, number> = {};
let turn = 0;
const nextBody = () => opts.bodies![turn++ % opts.bodies!.length]!;
const nextCookie = () => opts.cookies![turn++ % opts.cookies!.length]!;
// from the first request to the last answer, without this process's start-up; autocannon's own
// duration is no use for a fixed amount: it notices the last answer only at its next one-second
// tick, so a 1.4 s sell-out reported 2.0 s
const started = performance.now();
let lastAnswer = started;
// when each status was first and last answered (ms from the start): where a fixed amount's time went
const span: Record<string, [number, number]> = {};
const instance = autocannon(
  {
    url: opts.url,
    connections: opts.connections,
    pipelining: 1,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.duration ?? 10 }),
    method: opts.method ?? 'GET',
    ...(opts.body ? { body: opts.body } : {}),
    ...(opts.bodies?.length ? { requests: [{ setupRequest: (req: object) => ({ ...req, body: nextBody() }) }] } : {}),
    ...(opts.cookies?.length
      ? {
          requests: [
            {
              setupRequest: (req: object) => ({
                ...req,
                headers: { ...((req as { headers?: Record<string, string> }).headers ?? {}), cookie: nextCookie() },
              }),
            },
          ],
        }
      : {}),
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
    headers: opts.headers ?? {},
    timeout: 30,
  },
  (err, result) => {
    if (err) {
      console.error(err);
      process.exit(1);
    }
    const seconds = result.duration || 1;
    const total = Object.values(statuses).reduce((s, n) => s + n, 0);
    console.log(
      JSON.stringify({
        requests: total,
        perSecond: total / seconds,
        elapsedSeconds: (lastAnswer - started) / 1000,
        p50: result.latency.p50,
        p99: result.latency.p99,
        max: result.latency.max,
        statuses,
        span,
        // this process's CPU time (s): what generating the load cost
        cpuSeconds: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
      }),
    );
  },
);
instance.on('response', (_client, statusCode) => {
  statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  lastAnswer = performance.now();
  const at = Math.round(lastAnswer - started);
  const s = (span[statusCode] ??= [at, at]);
  s[1] = at;
});
