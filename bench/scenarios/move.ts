import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { fmt, ROOT } from '../lib.ts';
import { seedOrdersWith } from '../seed.ts';
import type { ScenarioContext } from './context.ts';

/**
 * `admit move --to postgres://…` of an embedded database holding one event with 100,000 orders
 * (20,000 with --quick), as an operator runs it: its own process, the production build. Against
 * PostgreSQL's own tools moving the same rows in the same run: pg_dump of the moved database and
 * pg_restore into another empty one.
 */
export async function moveScenario(c: ScenarioContext): Promise<void> {
  const { url, add, quick } = c;
  const count = quick ? 20_000 : 100_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admit-bench-move-'));
  const env = { ...process.env, ADMIT_DATA_DIR: dir, NODE_ENV: 'production', LOG_LEVEL: 'warn' } as Record<string, string>;
  delete env.DATABASE_URL;
  const names = [`admit_bench_move_${process.pid}`, `admit_bench_restore_${process.pid}`];
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    // an embedded database with the account, through the CLI as an operator makes one
    const file = path.join(dir, 'account.json');
    fs.writeFileSync(file, JSON.stringify(accountFile()));
    const imported = spawnSync(process.execPath, ['bin/admit.mjs', 'import', file], { cwd: ROOT, env, encoding: 'utf8' });
    if (imported.status !== 0) throw new Error(`admit import failed: ${imported.stderr}`);
    // the orders straight into it, with the same set-based generator the other scenarios use
    const { PGlite } = await import('@electric-sql/pglite');
    const lite = new PGlite(path.join(dir, 'pglite'));
    const ids = (
      await lite.query<{ a: number; e: number; t: number; g: number; d: number; au: number; p: number }>(
        `select e.account_id a, e.id e, (select id from ticket_types where event_id = e.id) t, (select id from goods where event_id = e.id) g,
          (select id from donations where event_id = e.id) d, (select id from audiences where event_id = e.id) au,
          (select id from portals where event_id = e.id) p from events e where e.slug = 'moving'`,
      )
    ).rows[0]!;
    const seeded = await seedOrdersWith(
      async (text, params) => void (await lite.query(text, params as unknown[])),
      {
        accountId: ids.a,
        eventId: ids.e,
        gaId: ids.t,
        goodId: ids.g,
        donationId: ids.d,
        audienceId: ids.au,
        portalId: ids.p,
      },
      count,
    );
    await lite.close();

    for (const n of names) await admin.query(`drop database if exists ${n}`);
    await admin.query(`create database ${names[0]}`);
    const target = url.replace(/\/[^/?]*(\?|$)/, `/${names[0]}$1`);
    const t0 = performance.now();
    const child = spawn(process.execPath, ['bin/admit.mjs', 'move', '--to', target], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    const code = await new Promise<number>((r) => child.once('exit', (x) => r(x ?? 1)));
    const seconds = (performance.now() - t0) / 1000;
    if (code !== 0) throw new Error(`admit move failed: ${out}`);
    const rows = Number(/moved (\d+) rows/.exec(out)?.[1] ?? 0);

    // the baseline: the same rows moved by PostgreSQL's own dump and restore
    const dump = path.join(dir, 'moved.dump');
    await admin.query(`create database ${names[1]}`);
    const b0 = performance.now();
    const dumped = spawnSync('pg_dump', ['-Fc', '-Z', '0', '-f', dump, target], { stdio: 'ignore' });
    const restored =
      dumped.status === 0
        ? spawnSync('pg_restore', ['-d', url.replace(/\/[^/?]*(\?|$)/, `/${names[1]}$1`), dump], { stdio: 'ignore' })
        : dumped;
    const baseline = (performance.now() - b0) / 1000;
    add({
      scenario: `admit move, ${fmt(count)} orders (${fmt(rows)} rows)`,
      figure: 'seconds',
      admit: seconds,
      baseline: restored.status === 0 ? baseline : 0,
      baselineName: 'pg_dump + pg_restore of the moved database',
      note: `${fmt(rows / seconds)} rows/s; counts and report figures compared by the move; embedded seed ${fmt(seeded)} s`,
    });
  } finally {
    for (const n of names) await admin.query(`drop database if exists ${n} with (force)`).catch(() => undefined);
    await admin.end();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One account, one event with what the generated orders refer to (a good, a donation, an audience, a portal, a code). */
function accountFile() {
  return {
    account: { slug: 'mover', name: 'Mover', payments: { mode: 'sandbox' } },
    events: [
      {
        slug: 'moving',
        name: 'Moving',
        currency: 'eur',
        currencies: ['eur', 'gbp'],
        fx_rates: { gbp: 1.17 },
        timezone: 'Europe/Berlin',
        starts_at: '2027-06-01T18:00:00Z',
        ticket_types: [{ key: 'ga', name: 'General', price: 2500, capacity: 100_000_000, tax_rate_bp: 700 }],
        goods: [{ key: 'tote', name: 'Tote', price: 1200, capacity: 100_000_000, tax_rate_bp: 1900 }],
        donations: [{ key: 'fund', name: 'Fund' }],
        audiences: [{ key: 'crew', name: 'Crew' }],
        portals: [{ key: 'uni', name: 'Uni' }],
        discount_codes: [{ code: 'SPRING', amount_off: 250 }],
      },
    ],
  };
}
