import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../net.ts';

/**
 * A small production-shaped cluster on loopback, from Debian's packages: a PostgreSQL
 * primary and a streaming replica made with pg_basebackup, PgBouncer in transaction pooling mode
 * in front of the primary, any number of admit instances (writes through PgBouncer, reports from
 * the replica) and HAProxy balancing them with /readyz health checks. Nothing is installed here:
 * `missingTools()` says what is absent. PostgreSQL and PgBouncer refuse to run as root, so they
 * run as the `postgres` user when the harness is root.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

function pgBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return null;
  const versions = fs.readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (fs.existsSync(path.join(base, v, 'bin', 'initdb'))) return path.join(base, v, 'bin');
  return null;
}

const which = (cmd: string) => {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
};

/** The tools the cluster needs that this machine lacks (empty: all there). */
export function missingTools(): string[] {
  const missing: string[] = [];
  if (!pgBin()) missing.push('postgresql (initdb, pg_ctl, pg_basebackup)');
  if (!which('pgbouncer')) missing.push('pgbouncer');
  if (!which('haproxy')) missing.push('haproxy');
  return missing;
}

const asRoot = process.getuid?.() === 0;
/** Runs a PostgreSQL/PgBouncer command as `postgres` when we are root. */
function pgCommand(cmd: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}
function run(cmd: string, args: string[]): string {
  const [c, a] = pgCommand(cmd, args);
  return execFileSync(c, a, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface Instance {
  port: number;
  child: ChildProcess & { output: string[] };
  name: string;
}

/** CPU seconds used so far by the cluster's parts (Linux /proc), to see where the time goes. */
export interface CpuSnapshot {
  at: number;
  instances: number;
  postgres: number;
  pgbouncer: number;
  haproxy: number;
  /** the whole machine's idle time (all cores) */
  idle: number;
}

export interface Cluster {
  dir: string;
  primaryUrl: string;
  replicaUrl: string;
  bouncerUrl: string;
  balancerUrl: string;
  instances: Instance[];
  /** starts admit instance `i` on its reserved port (the balancer sends it traffic once /readyz answers) */
  startInstance(i: number, env?: Record<string, string>): Promise<Instance>;
  stopInstance(i: number, signal?: NodeJS.Signals): Promise<void>;
  /** the replica has replayed everything the primary has written so far */
  replicaCaughtUp(): Promise<void>;
  psql(url: string, query: string): string;
  cpu(): CpuSnapshot;
  stop(): Promise<void>;
}

const TICK = 100; // USER_HZ on Linux
function procCpu(filter: (pid: number, comm: string) => boolean): number {
  let ticks = 0;
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      if (!filter(pid, comm)) continue;
      const fields = stat.slice(close + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // gone meanwhile
    }
  }
  return ticks / TICK;
}

async function waitFor(check: () => Promise<boolean> | boolean, what: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/**
 * Starts the cluster with `instances` admit instances behind the balancer (up to `slots`, whose
 * ports are reserved in HAProxy's configuration so later instances join by starting).
 */
type Options = { instances: number; slots?: number; env?: Record<string, string> };
interface Parts {
  dir: string | null;
  bin: string | null;
  children: ChildProcess[];
  instances: Instance[];
}

export async function startCluster(opts: Options): Promise<Cluster> {
  const parts: Parts = { dir: null, bin: null, children: [], instances: [] };
  try {
    return await build(opts, parts);
  } catch (err) {
    // a cluster that did not come up leaves nothing running
    await teardown(parts);
    throw err;
  }
}

/** Kills the instances, PgBouncer and HAProxy, stops both PostgreSQL servers, removes the files. */
async function teardown(parts: Parts): Promise<void> {
  await Promise.all(
    parts.instances.map(
      (inst) =>
        new Promise<void>((resolve) => {
          if (!inst || inst.child.exitCode !== null || inst.child.signalCode !== null) return resolve();
          inst.child.once('exit', () => resolve());
          inst.child.kill('SIGKILL');
        }),
    ),
  );
  for (const c of parts.children) c.kill('SIGTERM');
  if (!parts.dir) return;
  try {
    // runuser does not pass the signal on: PgBouncer by its pid file
    process.kill(Number(fs.readFileSync(path.join(parts.dir, 'pgbouncer.pid'), 'utf8').trim()), 'SIGTERM');
  } catch {
    // not started or gone
  }
  for (const d of ['replica', 'primary']) {
    try {
      if (parts.bin && fs.existsSync(path.join(parts.dir, d, 'postmaster.pid')))
        run(path.join(parts.bin, 'pg_ctl'), ['-D', path.join(parts.dir, d), '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already down
    }
  }
  fs.rmSync(parts.dir, { recursive: true, force: true });
}

async function build(opts: Options, parts: Parts): Promise<Cluster> {
  const missing = missingTools();
  if (missing.length) throw new Error(`missing ${missing.join(', ')}`);
  const bin = pgBin();
  if (!bin) throw new Error('PostgreSQL binaries not found');
  parts.bin = bin;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admit-scale-'));
  parts.dir = dir;
  fs.chmodSync(dir, 0o777);
  const [pPort, rPort, bPort, lbPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const slots = opts.slots ?? opts.instances;
  const appPorts: number[] = [];
  for (let i = 0; i < slots; i++) appPorts.push(await freePort());
  const children = parts.children;
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  const socketDir = path.join(dir, 'sock');
  fs.mkdirSync(socketDir);
  fs.chmodSync(socketDir, 0o777);
  const pgOptions = (port: number) =>
    `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;

  // primary, then a replica copied from it streaming WAL
  run(path.join(bin, 'initdb'), ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  run(path.join(bin, 'pg_ctl'), [
    '-D',
    primaryDir,
    '-o',
    `${pgOptions(pPort)} -c wal_level=replica -c max_wal_senders=5`,
    '-l',
    path.join(dir, 'primary.log'),
    '-w',
    'start',
  ]);
  run(path.join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(pPort), '-U', 'postgres', 'admit']);
  run(path.join(bin, 'pg_basebackup'), [
    '-h',
    '127.0.0.1',
    '-p',
    String(pPort),
    '-U',
    'postgres',
    '-D',
    replicaDir,
    '-R',
    '-X',
    'stream',
    // an immediate checkpoint: the default spread one makes the copy wait a minute and more
    '--checkpoint=fast',
  ]);
  run(path.join(bin, 'pg_ctl'), [
    '-D',
    replicaDir,
    '-o',
    `${pgOptions(rPort)} -c hot_standby=on`,
    '-l',
    path.join(dir, 'replica.log'),
    '-w',
    'start',
  ]);

  // PgBouncer, transaction pooling, in front of the primary
  const ini = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(path.join(dir, 'users.txt'), '"postgres" ""\n');
  fs.writeFileSync(
    ini,
    [
      '[databases]',
      `admit = host=127.0.0.1 port=${pPort} dbname=admit`,
      // any other database name (the test suite makes one per file) passes through as itself
      `* = host=127.0.0.1 port=${pPort}`,
      '[pgbouncer]',
      `listen_addr = 127.0.0.1`,
      `listen_port = ${bPort}`,
      `unix_socket_dir = ${socketDir}`,
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 40',
      // the pg driver sets these per connection; PgBouncer passes them on
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
    ].join('\n'),
  );
  const [bc, ba] = pgCommand(which('pgbouncer')!, [ini]);
  const bouncer = spawn(bc, ba, { stdio: 'ignore' });
  children.push(bouncer);

  const primaryUrl = `postgres://postgres@127.0.0.1:${pPort}/admit`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${rPort}/admit`;
  const bouncerUrl = `postgres://postgres@127.0.0.1:${bPort}/admit`;
  const balancerUrl = `http://127.0.0.1:${lbPort}`;
  const psql = (url: string, query: string) => run(path.join(bin, 'psql'), [url, '-Atq', '-c', query]).trim();
  await waitFor(() => psql(bouncerUrl, 'select 1') === '1', 'PgBouncer');

  // HAProxy: round robin over the instances, each checked on /readyz; a draining instance leaves
  const cfg = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      // a check may take this long before it counts as failed: with no setting HAProxy allows
      // `inter` (300 ms), which a loaded instance on two cores can miss, and three instances
      // marked down at once answer 503 for all of them
      '  timeout check 2s',
      '  retries 3',
      '  option redispatch',
      // the client's address for rate limits and logs (admit: ADMIT_TRUST_PROXY=1)
      '  option forwardfor',
      'frontend admit',
      `  bind 127.0.0.1:${lbPort}`,
      '  default_backend instances',
      'backend instances',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-reuse safe',
      // only a request that never reached an instance is sent again: an order POST is not idempotent
      '  retry-on conn-failure',
      ...appPorts.map((p, i) => `  server a${i} 127.0.0.1:${p} check inter 300ms fall 2 rise 2`),
    ].join('\n') + '\n',
  );
  const haproxy = spawn(which('haproxy')!, ['-f', cfg, '-db'], { stdio: 'ignore' });
  children.push(haproxy);

  const instances = parts.instances;
  const startInstance = async (i: number, env: Record<string, string> = {}): Promise<Instance> => {
    const port = appPorts[i]!;
    const child = spawn(process.execPath, ['bin/admit.mjs', 'serve'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: bouncerUrl,
        DATABASE_READ_URL: replicaUrl,
        PORT: String(port),
        BASE_URL: balancerUrl,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        ADMIT_TRUST_PROXY: '1',
        ...opts.env,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }) as ChildProcess & { output: string[] };
    child.output = [];
    child.stdout?.on('data', (d) => child.output.push(String(d)));
    child.stderr?.on('data', (d) => child.output.push(String(d)));
    const inst = { port, child, name: `a${i}` };
    instances[i] = inst;
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, `instance ${i}`, 60_000);
    } catch (err) {
      throw new Error(`${(err as Error).message}; it said: ${child.output.join('').slice(-2000)}`, { cause: err });
    }
    return inst;
  };
  const stopInstance = async (i: number, signal: NodeJS.Signals = 'SIGTERM') => {
    const inst = instances[i];
    if (!inst || inst.child.exitCode !== null || inst.child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      inst.child.once('exit', () => resolve());
      inst.child.kill(signal);
    });
  };

  // the first applies the migrations; the others find them applied
  for (let i = 0; i < opts.instances; i++) await startInstance(i);
  if (opts.instances > 0) await waitFor(async () => (await fetch(`${balancerUrl}/readyz`)).ok, 'the balancer');

  return {
    dir,
    primaryUrl,
    replicaUrl,
    bouncerUrl,
    balancerUrl,
    instances,
    startInstance,
    stopInstance,
    psql,
    async replicaCaughtUp() {
      // the insert position: with synchronous_commit off a commit that has answered may still sit
      // in the WAL buffers, past pg_current_wal_lsn() (the write position), until the WAL writer runs
      const lsn = psql(primaryUrl, 'select pg_current_wal_insert_lsn()');
      await waitFor(() => psql(replicaUrl, `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn`) === 't', 'the replica');
    },
    cpu() {
      const pids = new Set(
        instances.filter((i) => i && i.child.exitCode === null && i.child.signalCode === null).map((i) => i.child.pid),
      );
      const cpuLine = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
      return {
        at: performance.now(),
        instances: procCpu((pid) => pids.has(pid)),
        postgres: procCpu((_pid, comm) => comm === 'postgres'),
        pgbouncer: procCpu((_pid, comm) => comm === 'pgbouncer'),
        haproxy: procCpu((_pid, comm) => comm === 'haproxy'),
        idle: (Number(cpuLine[4]) + Number(cpuLine[5])) / TICK,
      };
    },
    stop: () => teardown(parts),
  };
}
