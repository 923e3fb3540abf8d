import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { percentile } from './lib.ts';

/**
 * The two designs the flash sale is compared with, straight against PostgreSQL through `pg`
 * with the same number of clients and no HTTP: (a) the interactive locked transaction on one
 * stock row, (b) one guarded statement per order.
 */
export async function setupBaselineTables(url: string, capacity: number): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`drop table if exists bl_orders; drop table if exists bl_stock;
    create table bl_stock (id int primary key, n int not null);
    create table bl_orders (id bigint generated always as identity primary key, stock_id int not null, email text not null, total_cents bigint not null, created_at timestamptz not null default now());
    insert into bl_stock values (1, ${capacity});`);
  await c.end();
}

/**
 * Lets the database settle before a measured run, so that no run pays for the one before it
 * (a baseline's hot row leaves dead versions for autovacuum, every run leaves dirty pages for
 * the checkpointer): vacuum and analyze every table, then a checkpoint.
 */
export async function settle(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('vacuum (analyze)');
    await c.query('checkpoint');
  } finally {
    await c.end();
  }
}

/**
 * What the database server does about vacuum: `on`, or `off` (some CI machines turn autovacuum off).
 * Printed with every run, since figures from a database that nothing vacuums drift with its dead
 * row versions (each order updates a few hot rows: its inventory row, the report counters).
 */
export async function autovacuumSetting(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ autovacuum: string }>('show autovacuum');
    return rows[0]!.autovacuum;
  } finally {
    await c.end();
  }
}

/**
 * With autovacuum off, does what it would have done by now: vacuums each table whose dead row
 * versions (or rows inserted since the last vacuum) passed its thresholds, and analyzes each whose
 * changes passed its analyze threshold, with the server's own settings. With autovacuum on it does
 * nothing. Called between a scenario's phases, so a long run measures a database kept the way a
 * production server keeps it, without the whole-database vacuum of `settle`. Returns the tables
 * it vacuumed or analyzed.
 */
export async function vacuumAsAutovacuumWould(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    if ((await c.query<{ autovacuum: string }>('show autovacuum')).rows[0]!.autovacuum === 'on') return [];
    const { rows } = await c.query<{ name: string; vacuum: boolean; analyze: boolean }>(
      `with s as (select name, setting::float8 v from pg_settings where name like 'autovacuum_%')
       select format('%I.%I', t.schemaname, t.relname) as name,
         t.n_dead_tup > (select v from s where name = 'autovacuum_vacuum_threshold')
             + (select v from s where name = 'autovacuum_vacuum_scale_factor') * greatest(c.reltuples, 0)
           or t.n_ins_since_vacuum > (select v from s where name = 'autovacuum_vacuum_insert_threshold')
             + (select v from s where name = 'autovacuum_vacuum_insert_scale_factor') * greatest(c.reltuples, 0)
           as vacuum,
         t.n_mod_since_analyze > (select v from s where name = 'autovacuum_analyze_threshold')
             + (select v from s where name = 'autovacuum_analyze_scale_factor') * greatest(c.reltuples, 0)
           as analyze
       from pg_stat_user_tables t join pg_class c on c.oid = t.relid`,
    );
    const done: string[] = [];
    for (const r of rows) {
      if (!r.vacuum && !r.analyze) continue;
      await c.query(r.vacuum ? `vacuum ${r.analyze ? '(analyze) ' : ''}${r.name}` : `analyze ${r.name}`);
      done.push(r.name.replace(/^public\./, ''));
    }
    return done;
  } finally {
    await c.end();
  }
}

export async function runBaseline(
  url: string,
  kind: 'a' | 'b',
  clients: number,
  seconds: number,
): Promise<{ perSecond: number; p50: number; p99: number; orders: number }> {
  // PostgreSQL allows ~100 connections here: beyond 70, clients queue for a connection, as they
  // would behind any pool.
  const pool = new pg.Pool({ connectionString: url, max: Math.min(clients, 70) });
  const latencies: number[] = [];
  let orders = 0;
  const until = Date.now() + seconds * 1000;
  const one = async () => {
    const c = await pool.connect();
    try {
      while (Date.now() < until) {
        const t0 = performance.now();
        if (kind === 'a') {
          await c.query('begin');
          const r = await c.query('select n from bl_stock where id = 1 for update');
          if (r.rows[0].n >= 1) {
            await c.query('insert into bl_orders (stock_id, email, total_cents) values (1, $1, 2500)', ['b@example.org']);
            await c.query('update bl_stock set n = n - 1 where id = 1');
            orders++;
          }
          await c.query('commit');
        } else {
          const r = await c.query(
            `with s as (update bl_stock set n = n - 1 where id = $1 and n >= 1 returning id)
             insert into bl_orders (stock_id, email, total_cents) select id, $2, 2500 from s returning id`,
            [1, 'b@example.org'],
          );
          orders += r.rowCount ?? 0;
        }
        latencies.push(performance.now() - t0);
      }
    } finally {
      c.release();
    }
  };
  const start = Date.now();
  await Promise.all(Array.from({ length: clients }, one));
  const elapsed = (Date.now() - start) / 1000;
  await pool.end();
  latencies.sort((x, y) => x - y);
  return { perSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), orders };
}

const PGBENCH_SCRIPTS = {
  // (a) the interactive locked transaction: read the stock under its row lock, then write
  a: `begin;
select n from bl_stock where id = 1 for update \\gset
\\if :n >= 1
insert into bl_orders (stock_id, email, total_cents) values (1, 'b@example.org', 2500);
update bl_stock set n = n - 1 where id = 1;
\\endif
commit;
`,
  // (b) one guarded statement per order
  b: `with s as (update bl_stock set n = n - 1 where id = 1 and n >= 1 returning id)
insert into bl_orders (stock_id, email, total_cents) select id, 'b@example.org', 2500 from s;
`,
};

/**
 * The same two designs measured by pgbench, PostgreSQL's own C client (`-j 2`, prepared
 * statements), so the baselines are what the database can do rather than what a Node client
 * can: transactions per second and latency percentiles from its per-transaction log. PostgreSQL
 * here allows about 100 connections: above 70 clients pgbench runs with 70 (the most a pool
 * would open), which the note says.
 */
export async function runPgbench(
  url: string,
  kind: 'a' | 'b' | { script: string },
  clients: number,
  seconds: number,
): Promise<{ perSecond: number; p50: number; p99: number; connections: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admit-pgbench-'));
  const script = path.join(dir, 'script.sql');
  fs.writeFileSync(script, typeof kind === 'string' ? PGBENCH_SCRIPTS[kind] : kind.script);
  const connections = Math.min(clients, 70);
  try {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        'pgbench',
        [
          '-n',
          '-M',
          'prepared',
          '-j',
          String(Math.min(2, connections)),
          '-c',
          String(connections),
          '-T',
          String(seconds),
          '-l',
          '--log-prefix',
          path.join(dir, 'log'),
          '-f',
          script,
          url,
        ],
        { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => (err ? reject(new Error(`pgbench failed: ${stderr || err.message}`)) : resolve(stdout)),
      ),
    );
    const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? NaN);
    // log lines: client_id transaction_no time_us script_no time_epoch time_us
    const latencies: number[] = [];
    for (const f of fs.readdirSync(dir).filter((n) => n.startsWith('log'))) {
      for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
        const us = Number(line.split(' ')[2]);
        if (Number.isFinite(us) && line) latencies.push(us / 1000);
      }
    }
    latencies.sort((x, y) => x - y);
    return { perSecond: tps, p50: percentile(latencies, 50), p99: percentile(latencies, 99), connections };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A secret as admit makes one for a unique index (indexedSecret in src/platform/secrets.ts): the
 * time first, then random, so that the inserts of a moment land on the same index pages, and 32
 * characters long, so that its index entries weigh what admit's do. Wholly random secrets here
 * made (d) pay for page reads and writes that admit's orders no longer do.
 */
const TIMED_SECRET = `lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') || left(md5(random()::text), 20)`;

/**
 * (d): the database's part of one admit order, as pgbench runs it: one statement that takes the
 * unit from the event's inventory row under its guard and writes a real order in admit's own
 * tables (every column, index, foreign key and counter trigger an order pays for), its line and
 * its log entry, copied from a template order of the same event with new ref and secrets. What
 * a single order costs PostgreSQL before HTTP, validation and pricing: the ceiling of any design
 * that writes what admit writes, one order per transaction.
 */
export async function orderStatementScript(url: string, templateOrderId: number): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const columns = async (table: string, skip: string[]) =>
      (
        await c.query<{ column_name: string }>(
          `select column_name from information_schema.columns
           where table_schema = 'public' and table_name = $1 and is_generated = 'NEVER' and identity_generation is null
           order by ordinal_position`,
          [table],
        )
      ).rows
        .map((r) => r.column_name)
        .filter((n) => !skip.includes(n));
    const orderCols = await columns('orders', ['ref', 'access_secret', 'qr_token', 'created_at']);
    const lineCols = await columns('order_lines', ['account_id', 'order_id', 'event_id']);
    const q = (names: string[], prefix: string) => names.map((n) => `${prefix}"${n}"`).join(', ');
    const [line] = (
      await c.query<{ inventory_id: string; quantity: number }>(
        'select inventory_id, quantity from order_lines where order_id = $1 and inventory_id is not null',
        [templateOrderId],
      )
    ).rows;
    if (!line) throw new Error(`order ${templateOrderId} has no line with stock`);
    return `with taken as (
  update inventory set taken = taken + ${line.quantity} where id = ${line.inventory_id} and capacity - taken >= ${line.quantity} returning id),
o as (
  insert into orders (${q(orderCols, '')}, ref, access_secret, qr_token, created_at)
  select ${q(orderCols, 't.')}, 'PGB-' || md5(random()::text), ${TIMED_SECRET}, ${TIMED_SECRET}, now()
  from orders t where t.id = ${templateOrderId} and exists (select from taken)
  returning id, account_id, event_id, created_at),
l as (
  insert into order_lines (account_id, order_id, event_id, ${q(lineCols, '')})
  select o.account_id, o.id, o.event_id, ${q(lineCols, 't.')} from o, order_lines t where t.order_id = ${templateOrderId}),
g as (
  insert into order_log (account_id, order_id, action, data, created_at)
  select o.account_id, o.id, 'created', t.data, o.created_at from o, order_log t where t.order_id = ${templateOrderId} and t.action = 'created')
select * from o;
`;
  } finally {
    await c.end();
  }
}

/** Whether pgbench is on the PATH (Debian's postgresql-contrib / postgresql-client ship it). */
export async function pgbenchAvailable(): Promise<boolean> {
  return new Promise((resolve) => execFile('pgbench', ['--version'], (err) => resolve(!err)));
}
