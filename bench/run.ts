import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/platform/db/database.ts';
import { migrate } from '../src/platform/db/migrate.ts';
import { createLogger } from '../src/platform/logger.ts';
import { systemClock } from '../src/platform/clock.ts';
import { loadConfig } from '../src/platform/config.ts';
import { importAccount } from '../src/modules/import/import.service.ts';
import { adminQuery, dbUrl, fmt, freePort, percentile, PG_BASE, ROOT, startProcess, stopProcess, waitFor } from './lib.ts';
import { autovacuumSetting } from './baselines.ts';
import { seedBigEvent } from './scenarios/big-seed.ts';
import { checkin } from './scenarios/checkin.ts';
import type { BigSeed, Row, ScenarioContext } from './scenarios/context.ts';
import { desk } from './scenarios/desk.ts';
import { flash } from './scenarios/flash.ts';
import { reads } from './scenarios/reads.ts';
import { reports } from './scenarios/reports.ts';
import { sellout } from './scenarios/sellout.ts';
import { webhooks } from './scenarios/webhooks.ts';
import { exportScenario } from './scenarios/export.ts';
import { moveScenario } from './scenarios/move.ts';
import { queueScenario } from './scenarios/queue.ts';
import { platform } from './scenarios/platform.ts';
import { HALL_ROWS, HALL_SEATS_PER_ROW, HALLS, MAP_EVENT, seats } from './scenarios/seats.ts';
import { hallPlan } from '../src/modules/events/seating.fixture.ts';

/**
 * npm run bench [-- --only flash,webhooks,sellout,reports,desk,reads,checkin,seats,export,move,queue,platform] [--quick] [--keep]
 * (env: BENCH_CLIENTS=16,64 flash sale client counts; BENCH_QUICK_SECONDS quick duration;
 * BENCH_DB_NAME a database of that name instead of a new one: reused when it exists, which with
 * --keep lets the platform scenario go on from the seed it left)
 * Every figure is printed next to a baseline measured in this same run, with the ratio.
 */
const args = process.argv.slice(2);
// `--only a,b` or `--only=a,b`; without it every scenario runs (not the next flag read as a list)
const onlyAt = args.indexOf('--only');
const only = (args.find((a) => a.startsWith('--only='))?.slice(7) ?? (onlyAt >= 0 ? args[onlyAt + 1] : undefined) ?? '')
  .split(',')
  .filter(Boolean);
const quick = args.includes('--quick');
const keep = args.includes('--keep');
const want = (s: string) => only.length === 0 || only.includes(s);
const TOKEN = 'adm_bench_all_capabilities_0123456789abcdef';
const HOOK_TOKEN = 'adm_bench_hooked_account_0123456789abcdef';
const DOOR_TOKEN = 'adm_bench_door_account_0123456789abcdefgh';
const DURATION = quick ? Number(process.env.BENCH_QUICK_SECONDS ?? 4) : 10;
const ORDERS_1M = quick ? 100_000 : 1_000_000;
const CONSOLE_USER = { email: 'bench@example.org', password: 'bench console password' };

const rows: Row[] = [];
const add = (r: Omit<Row, 'ratio'>) => rows.push({ ...r, ratio: r.baseline ? r.admit / r.baseline : 0 });

const event = (slug: string, capacity: number, extra: object = {}) => ({
  slug,
  name: slug,
  currency: 'eur',
  currencies: ['eur', 'gbp'],
  fx_rates: { gbp: 1.17 },
  timezone: 'Europe/Berlin',
  starts_at: '2030-06-01T18:00:00Z',
  ticket_types: [{ key: 'hot', name: 'Hot', price: 2500, capacity, tax_rate_bp: 700 }],
  ...extra,
});

/** A seated event: one ticket type whose seats are the plan's (the seats scenario). */
const seated = (slug: string, rows: number, perRow: number) => ({
  ...event(slug, 1),
  ticket_types: [{ key: 'seat', name: 'Seat', price: 4500, tax_rate_bp: 700 }],
  seating: { plan: hallPlan(rows, perRow), categories: { Hall: 'seat' } },
});

/** The scenarios in the order they run, each under the name `--only` picks it by. */
const scenarios: Array<[string, (c: ScenarioContext) => Promise<void>]> = [
  ['flash', flash],
  ['webhooks', webhooks],
  ['checkin', checkin],
  ['sellout', sellout],
  ['reports', reports],
  ['desk', desk],
  ['reads', reads],
  ['seats', seats],
  ['export', exportScenario],
  ['move', moveScenario],
  ['queue', queueScenario],
  ['platform', platform],
];

async function main(): Promise<void> {
  const dbName = process.env.BENCH_DB_NAME ?? `admit_bench_${Date.now()}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(dbName)) throw new Error(`BENCH_DB_NAME: ${dbName} is not a plain database name`);
  const reused = await databaseExists(dbName);
  if (!reused) await adminQuery(`create database ${dbName}`);
  const url = dbUrl(dbName);
  const autovacuum = await autovacuumSetting(url);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let server: ReturnType<typeof startProcess> | null = null;
  let serverPeakRssMb: number | undefined;
  const peaksMb: Array<[string, number]> = [];
  try {
    const database = await openDatabase({ databaseUrl: url, dataDir: null });
    await migrate(database.db);
    const ctx = {
      config: { ...loadConfig({}), databaseUrl: url },
      db: database.db,
      engine: 'postgres' as const,
      clock: systemClock,
      log: createLogger('silent'),
    };
    // a reused database (BENCH_DB_NAME) has the accounts below already
    const seeded =
      reused && (await database.db.selectFrom('accounts').select('id').where('slug', '=', 'bench').executeTakeFirst());
    if (!seeded) await seedAccounts(ctx);
    const ids = async (slug: string) => {
      const r = await database.db
        .selectFrom('events as e')
        .innerJoin('ticket_types as t', 't.event_id', 'e.id')
        .select(['e.id as eventId', 'e.account_id as accountId', 't.id as typeId'])
        .where('e.slug', '=', slug)
        .executeTakeFirstOrThrow();
      return r;
    };

    // the server as `npm start` runs it: the compiled build
    execFileSync(process.execPath, ['bin/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    const serve = () =>
      startProcess([...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'bin/admit.mjs', 'serve'], {
        DATABASE_URL: url,
        PORT: String(port),
        BASE_URL: base,
        NODE_ENV: 'production',
        ADMIT_RATE_LIMIT_PER_MIN: '0',
        ADMIT_WEBHOOK_ALLOW_PRIVATE: '1',
        LOG_LEVEL: 'warn',
      });
    server = serve();
    await waitFor(`${base}/healthz`);
    // the server's peak resident memory per scenario: VmHWM read at each scenario's end, then reset
    // (writing 5 to clear_refs, Linux 4.0+) so the next scenario's peak is its own
    const status = () => fs.readFileSync(`/proc/${server!.pid}/status`, 'utf8');
    let scenario = 'start';
    const mark = (next: string) => {
      peaksMb.push([scenario, Number(/VmHWM:\s+(\d+)/.exec(status())?.[1] ?? 0) / 1024]);
      try {
        fs.writeFileSync(`/proc/${server!.pid}/clear_refs`, '5');
      } catch {
        // an older kernel: the peaks that follow include the ones before
      }
      scenario = next;
    };
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const q = async <T>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as T[];
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

    let bigSeed: Promise<BigSeed> | null = null;
    const c: ScenarioContext = {
      url,
      base,
      serverPid: () => server!.pid!,
      // a new server process, so nothing is cached in it; the old one's peak is kept under this scenario
      restartServer: async () => {
        peaksMb.push([`${scenario} (before a restart)`, Number(/VmHWM:\s+(\d+)/.exec(status())?.[1] ?? 0) / 1024]);
        await stopProcess(server!);
        server = serve();
        await waitFor(`${base}/healthz`);
      },
      pool,
      q,
      ids,
      headers,
      tokens: { hook: HOOK_TOKEN, door: DOOR_TOKEN },
      consoleUser: CONSOLE_USER,
      quick,
      duration: DURATION,
      bigOrders: ORDERS_1M,
      // the big event's million orders, seeded once for the scenarios that read them
      seedBig: () => (bigSeed ??= seedBigEvent(c)),
      time: async (fn, n = quick ? 10 : 50) => {
        const ts: number[] = [];
        for (let i = 0; i < n; i++) {
          const t0 = performance.now();
          await fn();
          ts.push(performance.now() - t0);
        }
        ts.sort((x, y) => x - y);
        return { p50: percentile(ts, 50), p99: percentile(ts, 99) };
      },
      add,
    };
    for (const [name, run] of scenarios) {
      if (!want(name)) continue;
      mark(name);
      await run(c);
    }
    await pool.end();
    await database.close();
    // the server's resident memory at its highest, over everything it served in this run
    mark('end');
    serverPeakRssMb = Math.max(...peaksMb.map(([, mb]) => mb));
  } catch (err) {
    if (server) console.error(server.output.join('').slice(-4000));
    throw err;
  } finally {
    if (server) await stopProcess(server);
    if (!keep) await adminQuery(`drop database if exists ${dbName} with (force)`);
  }

  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, PostgreSQL autovacuum ${autovacuum}${autovacuum === 'on' ? '' : ' (the bench vacuums between rounds and phases as it would)'}`;
  const header = `| scenario | figure | admit | baseline | value | ratio | notes |\n|---|---|---|---|---|---|---|`;
  const table = rows.map(
    (r) =>
      `| ${r.scenario} | ${r.figure} | ${fmt(r.admit, 1)} | ${r.baselineName} | ${fmt(r.baseline, 1)} | ${fmt(r.ratio, 2)}x | ${r.note ?? ''} |`,
  );
  console.log(`\nadmit benchmark (${quick ? 'quick' : 'full'}) on ${machine}\n`);
  console.log([header, ...table].join('\n'));
  if (serverPeakRssMb) {
    console.log(`\nserver peak RSS (VmHWM) over the whole run: ${fmt(serverPeakRssMb, 1)} MB`);
    console.log(`by scenario: ${peaksMb.map(([name, mb]) => `${name} ${fmt(mb, 1)} MB`).join(', ')}`);
  }
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  fs.writeFileSync(
    path.join(ROOT, 'bench/results/latest.json'),
    JSON.stringify({ at: new Date().toISOString(), machine, quick, rows, serverPeakRssMb, peaksMb }, null, 2),
  );
}

/** The scenarios' accounts and events, through the importer (a new database only). */
async function seedAccounts(ctx: Parameters<typeof importAccount>[0]): Promise<void> {
  await importAccount(ctx, {
    account: { slug: 'bench', name: 'Bench', payments: { mode: 'sandbox' } },
    users: [{ email: CONSOLE_USER.email, role: 'owner', password: CONSOLE_USER.password }],
    tokens: [
      {
        name: 'bench',
        secret: TOKEN,
        capabilities: ['events.view', 'orders.view', 'orders.manage', 'refund'],
        scopes: ['invitations.view'],
      },
    ],
    events: [
      event('flash', 50_000_000),
      event('sellout', 1000),
      // the queue scenario sets its sales start and queue when it runs
      event('onsale', 1_000_000, { sales_start_at: '2030-01-01T09:00:00Z' }),
      event('big', 100_000_000, {
        goods: [{ key: 'tote', name: 'Tote', price: 1200, capacity: 100_000_000, tax_rate_bp: 1900 }],
        donations: [{ key: 'fund', name: 'Fund' }],
        audiences: [{ key: 'crew', name: 'Crew' }],
        portals: [{ key: 'uni', name: 'Uni' }],
        discount_codes: [{ code: 'SPRING', amount_off: 250 }],
      }),
      ...(want('seats')
        ? [...HALLS(quick).map((h) => seated(h, HALL_ROWS, HALL_SEATS_PER_ROW)), seated(MAP_EVENT, 100, 200)]
        : []),
    ],
  });
  // a second account, the same sale, with a webhook endpoint attached (the webhooks scenario)
  await importAccount(ctx, {
    account: { slug: 'hooked', name: 'Hooked', payments: { mode: 'sandbox' } },
    tokens: [
      {
        name: 'bench',
        secret: HOOK_TOKEN,
        capabilities: ['events.view', 'orders.view', 'orders.manage', 'webhooks.manage'],
      },
    ],
    events: [event('hookflash', 50_000_000)],
  });
  // the door of a big event: offline check-in (sync and upload)
  await importAccount(ctx, {
    account: { slug: 'doors', name: 'Doors', payments: { mode: 'sandbox' } },
    tokens: [{ name: 'bench', secret: DOOR_TOKEN, capabilities: ['events.view'] }],
    events: [
      event('door', 100_000_000, {
        goods: [{ key: 'tote', name: 'Tote', price: 1200, capacity: 100_000_000, tax_rate_bp: 1900 }],
        donations: [{ key: 'fund', name: 'Fund' }],
        audiences: [{ key: 'crew', name: 'Crew' }],
        portals: [{ key: 'uni', name: 'Uni' }],
        checkin_lists: [{ key: 'main', name: 'Main door' }],
      }),
    ],
  });
}

async function databaseExists(name: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: PG_BASE });
  await c.connect();
  try {
    return (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await c.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
