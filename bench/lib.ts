import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function dbUrl(name: string): string {
  const u = new URL(PG_BASE);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function adminQuery(sqlText: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_BASE });
  await c.connect();
  try {
    await c.query(sqlText);
  } finally {
    await c.end();
  }
}

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

export async function waitFor(url: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > until) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Starts `node <args>` with env, returns the child; output is kept for error reports. */
export function startProcess(args: string[], env: Record<string, string>): ChildProcess & { output: string[] } {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { output: string[] };
  child.output = [];
  child.stdout?.on('data', (d) => child.output.push(String(d)));
  child.stderr?.on('data', (d) => child.output.push(String(d)));
  return child;
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface LoadResult {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  /** slowest answer, ms */
  max: number;
  /** per status: ms from the start to its first and its last answer */
  span: Record<string, [number, number]>;
  /** wall time from the first request to the last answer, measured by the load process */
  elapsedSeconds: number;
  /** CPU seconds the load generator used */
  cpuSeconds: number;
}

/** Runs autocannon in its own process, so the load generator never shares the server's CPU loop. */
export async function autocannon(opts: {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  method?: string;
  body?: string;
  bodies?: string[];
  headers?: Record<string, string>;
  cookies?: string[];
  overallRate?: number;
}): Promise<LoadResult> {
  // one argument holds at most 128 KiB (Linux): many bodies go through a file
  const json = JSON.stringify(opts);
  const file = json.length > 64_000 ? path.join(os.tmpdir(), `admit-load-${process.pid}-${Date.now()}.json`) : null;
  if (file) fs.writeFileSync(file, json);
  const child = startProcess(['--import', 'tsx', path.join(ROOT, 'bench/load.ts'), file ? `@${file}` : json], {});
  const code = await new Promise<number>((r) => child.once('exit', (c) => r(c ?? 1)));
  if (file) fs.rmSync(file, { force: true });
  const out = child.output.join('');
  if (code !== 0) throw new Error(`load generator failed: ${out}`);
  return JSON.parse(out.trim().split('\n').pop()!) as LoadResult;
}

/** The round with the median throughput (its latencies come with it). */
export function medianRound<T extends { perSecond: number }>(rounds: T[]): T {
  const sorted = [...rounds].sort((a, b) => a.perSecond - b.perSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** CPU time (user + system) of a process so far, in ms, from /proc (Linux); 0 where it cannot be read. */
export function cpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** One request of a wrk request file (bench/amount.lua, bench/request-list.lua): tab-separated. */
export function requestLine(
  method: string,
  path: string,
  authorization: string | null,
  body = '',
  cookie: string | null = null,
): string {
  if (/[\t\n]/.test(body)) throw new Error('a request body in a wrk request file holds no tab or newline');
  return [method, path, authorization ?? '-', cookie ?? '-', body].join('\t');
}

/** wrk on the machine, installed from Debian's packages when it is not. */
export function ensureWrk(): void {
  if (!spawnSync('wrk', ['--version']).error) return;
  spawnSync('sh', ['-c', 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null 2>&1'], { stdio: 'ignore' });
  if (spawnSync('wrk', ['--version']).error) throw new Error('wrk is not installed (apt-get install wrk)');
}

/**
 * Sends each request of `lines` once (requestLine) over `connections` keep-alive connections from
 * wrk, a C client in its own process (bench/amount.lua), and waits for every answer: a rush of a
 * fixed size. Elapsed is from the first request sent to the last answer, as wrk's thread saw them.
 */
export async function wrkAmount(base: string, lines: string[], connections: number): Promise<LoadResult> {
  // one thread: a rush of a few thousand orders is far below what one wrk thread sends, and one
  // thread keeps every connection busy until the last request (threads would split the list)
  const threads = 1;
  const file = path.join(os.tmpdir(), `admit-wrk-${process.pid}-${Date.now()}.txt`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const child = spawnWrk([
    `-t${threads}`,
    `-c${connections}`,
    '-d600s',
    '--latency',
    '-s',
    'amount.lua',
    base,
    '--',
    file,
    String(threads),
  ]);
  let out = '';
  let cpuSeconds = 0;
  const reports: Array<{
    first: number;
    last: number;
    answered: number;
    statuses: Record<string, number>;
    spans: Record<string, [number, number]>;
  }> = [];
  // a thread reports every 100 answers: silence means answers were lost (wrk does not resend a
  // request whose connection failed), and the load is stopped and reported as failed
  let heard = performance.now();
  const watch = setInterval(() => {
    if (performance.now() - heard > 15_000) child.kill('SIGINT');
  }, 1000);
  child.stdout.on('data', (d) => {
    heard = performance.now();
    out += String(d);
    const done = out.split('\n').filter((l) => l.startsWith('{"thread"'));
    if (done.length === threads && reports.length === 0) {
      reports.push(...done.map((l) => JSON.parse(l)));
      cpuSeconds = cpuMs(child.pid!) / 1000;
      child.kill('SIGINT');
    }
  });
  child.stderr.on('data', (d) => (out += String(d)));
  const code = await new Promise<number>((r) => child.once('exit', (x) => r(x ?? 1)));
  clearInterval(watch);
  fs.rmSync(file, { force: true });
  const summary = out.split('\n').find((l) => l.startsWith('{"requests"'));
  if (code !== 0 || !summary || reports.length !== threads) throw new Error(`wrk failed: ${out}`);
  const s = JSON.parse(summary) as { requests: number; p50: number; p99: number; max: number };
  const statuses: Record<string, number> = {};
  for (const r of reports) for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  const requests = reports.reduce((n, r) => n + r.answered, 0);
  const start = Math.min(...reports.map((r) => r.first));
  const elapsedSeconds = (Math.max(...reports.map((r) => r.last)) - start) / 1000;
  // per status, ms from the first request sent
  const span: Record<string, [number, number]> = {};
  for (const r of reports)
    for (const [k, [from, to]] of Object.entries(r.spans)) {
      const t = (span[k] ??= [from - start, to - start]);
      t[0] = Math.min(t[0], from - start);
      t[1] = Math.max(t[1], to - start);
    }
  return {
    requests,
    perSecond: requests / elapsedSeconds,
    elapsedSeconds,
    p50: s.p50,
    p99: s.p99,
    max: s.max,
    statuses,
    span,
    cpuSeconds,
  };
}

/**
 * Requests of a list (bench/request-list.lua: a file of requestLine lines, or the lines) from wrk,
 * a C client in its own process, for `seconds`; `rate` requests a second over all connections, 0
 * for as fast as answered.
 */
export async function wrkList(
  base: string,
  list: string | string[],
  o: { rate: number; connections: number; seconds: number; threads?: number },
): Promise<{ p50: number; p99: number; max: number; n: number; requests: number; perSecond: number; bad: number }> {
  const threads = o.threads ?? 2;
  const file = typeof list === 'string' ? list : path.join(os.tmpdir(), `admit-wrk-${process.pid}-${Date.now()}.txt`);
  if (typeof list !== 'string') fs.writeFileSync(file, list.join('\n') + '\n');
  const out = await wrkOutput([
    `-t${threads}`,
    `-c${o.connections}`,
    `-d${o.seconds}s`,
    '--latency',
    '-s',
    'request-list.lua',
    base,
    '--',
    file,
    String(o.rate),
    String(o.connections),
    String(threads),
  ]);
  if (typeof list !== 'string') fs.rmSync(file, { force: true });
  const r = JSON.parse(out) as WrkSummary;
  return {
    p50: r.p50,
    p99: r.p99,
    max: r.max,
    n: r.requests,
    requests: r.requests,
    perSecond: r.requests / r.seconds,
    bad: r.non2xx + r.errors,
  };
}

/** wrk with its scripts' directory as its own, so they find bench/request-file.lua by require(). */
function spawnWrk(args: string[]) {
  ensureWrk();
  return spawn('wrk', args, { cwd: path.join(ROOT, 'bench'), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** What request-list.lua and paced-polls.lua print when wrk ends (latencies in ms). */
export interface WrkSummary {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
}

/** Runs wrk to its end and returns the JSON line its script's done() printed. */
export async function wrkOutput(args: string[]): Promise<string> {
  const child = spawnWrk(args);
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  const code = await new Promise<number>((r) => child.once('exit', (x) => r(x ?? 1)));
  const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
  if (code !== 0 || !line) throw new Error(`wrk failed: ${out}`);
  return line;
}
