import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/db.ts';
import { loadConfig } from '../../platform/config.ts';
import { moveDatabase, MoveError } from '../../platform/db/move.ts';
import { createRuntime } from '../../server.ts';
import { importAccount } from '../import/import.service.ts';
import { exportAccount } from './account-export.service.ts';

// admit move: an embedded database on disk copied into an empty PostgreSQL database, or nothing.

const demo = JSON.parse(fs.readFileSync(new URL('../../../demo/demo-account.json', import.meta.url), 'utf8'));

async function exportOf(config: ReturnType<typeof loadConfig>): Promise<string> {
  const runtime = await createRuntime({ config });
  try {
    let out = '';
    await exportAccount(runtime.ctx, demo.account.slug, (c) => {
      out += c;
    });
    return out;
  } finally {
    await runtime.close();
  }
}

async function relations(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const r = await c.query<{ n: number }>(
    `select count(*)::int as n from pg_class k join pg_namespace s on s.oid = k.relnamespace where s.nspname = 'public'`,
  );
  await c.end();
  return r.rows[0]!.n;
}

describe.skipIf(!process.env.DATABASE_URL)('admit move', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'admit-move-'));
  const base = { ...loadConfig({ NODE_ENV: 'test' }), dataDir };
  const embedded = { ...base, databaseUrl: null };
  const targets: Array<Awaited<ReturnType<typeof createTestDatabase>>> = [];
  const target = async () => {
    const t = await createTestDatabase();
    targets.push(t);
    return t.url!;
  };

  beforeAll(async () => {
    const runtime = await createRuntime({ config: embedded });
    try {
      await importAccount(runtime.ctx, structuredClone(demo));
    } finally {
      await runtime.close();
    }
  }, 240_000);
  afterAll(async () => {
    for (const t of targets) await t.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('copies everything: the same account file comes out of both, and the copy takes new rows', async () => {
    const url = await target();
    const report = await moveDatabase(dataDir, url);
    expect(report.rows).toBeGreaterThan(0);
    expect(Number(report.figures.orders_total)).toBeGreaterThan(0);
    const moved = { ...base, databaseUrl: url };
    expect(await exportOf(moved)).toBe(await exportOf(embedded));
    // sequences were set past the copied ids: a new row gets a new id, the door sync sees the tickets
    const runtime = await createRuntime({ config: moved });
    try {
      const account = await runtime.ctx.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
      const series = await runtime.ctx.db
        .insertInto('series')
        .values({ account_id: account.id, slug: 'after-the-move', name: 'After the move' })
        .returning('id')
        .executeTakeFirstOrThrow();
      const before = await runtime.ctx.db
        .selectFrom('series')
        .select((e) => e.fn.max('id').as('m'))
        .where('slug', '<>', 'after-the-move')
        .executeTakeFirst();
      expect(Number(series.id)).toBeGreaterThan(Number(before?.m ?? 0));
      const visible = await runtime.ctx.db
        .selectFrom('tickets')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where(sql<boolean>`sync_xid < pg_current_xact_id()`)
        .executeTakeFirstOrThrow();
      const all = await runtime.ctx.db
        .selectFrom('tickets')
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(visible.n)).toBe(Number(all.n));
    } finally {
      await runtime.close();
    }
  }, 240_000);

  it('refuses a database that is not empty, and leaves it as it was', async () => {
    const url = await target();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('create table keep_me (id int)');
    await c.end();
    await expect(moveDatabase(dataDir, url)).rejects.toBeInstanceOf(MoveError);
    expect(await relations(url)).toBe(1);
  });

  it('leaves nothing behind when the copy fails half way', async () => {
    const url = await target();
    // the progress line after the orders table is where a full disk or a lost connection would strike
    const failing = moveDatabase(dataDir, url, (line) => {
      if (line.startsWith('orders:')) throw new Error('the connection was lost');
    });
    await expect(failing).rejects.toThrow('the connection was lost');
    expect(await relations(url)).toBe(0);
    // and the same target takes the move afterwards
    await moveDatabase(dataDir, url);
    expect(await relations(url)).toBeGreaterThan(40);
  }, 240_000);
});
