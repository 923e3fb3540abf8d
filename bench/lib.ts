import { spawn, type ChildProcess } from 'node:child_process';
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
export function medianRound(rounds: LoadResult[]): LoadResult {
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
