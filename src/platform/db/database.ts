import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';
import { CallbackQueryPool } from './callback-pool.ts';
import { PGlitePool } from './pglite-pool.ts';

export type Db = Kysely<DB>;

export interface Database {
  db: Db;
  engine: 'postgres' | 'pglite';
  close(): Promise<void>;
  /** the connection pool's state, for the metrics (PostgreSQL; the embedded database has one connection) */
  poolStats?: () => { total: number; idle: number; waiting: number };
}

// int8 (counts, sums cast to bigint, money) fits comfortably in a double for our ranges.
pg.types.setTypeParser(20, (v) => Number(v));
// int8[] (ticket_type_ids and the like) as numbers too.
pg.types.setTypeParser(1016 as never, (v: string) => (pg.types.getTypeParser(1007 as never) as (s: string) => number[])(v));

export interface DatabaseOptions {
  databaseUrl: string | null;
  /** Directory for the embedded database; null keeps it in memory (tests). */
  dataDir: string | null;
  poolSize?: number;
  /**
   * An in-memory embedded database starts as a copy of this dump (PGlite's dumpDataDir) instead of
   * an empty cluster: tests start from a migrated one in half a second, not five.
   */
  pgliteTemplate?: Blob;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 20,
      idleTimeoutMillis: 30_000,
      // A statement that waits on a lock longer than this fails fast and is retried by the caller.
      // JIT compilation costs more than it saves on these short queries (hundreds of ms on reports).
      options: '-c lock_timeout=5000 -c statement_timeout=30000 -c TimeZone=UTC -c jit=off',
    });
    pool.on('error', () => {
      // An idle client died (e.g. the server restarted); the pool replaces it on next use.
    });
    pool.on('connect', (client) => {
      // A connection killed while checked out (failover, pg_terminate_backend) must not crash the
      // process: its pending query rejects, the transaction is rolled back by the server.
      client.on('error', () => undefined);
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new CallbackQueryPool(pool) as never }) });
    return {
      db,
      engine: 'postgres',
      close: () => db.destroy(),
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  let dir: string | undefined;
  if (opts.dataDir) {
    dir = path.join(opts.dataDir, 'pglite');
    fs.mkdirSync(dir, { recursive: true });
  }
  const lite = new PGlite(dir, {
    parsers: { 20: (v: string) => Number(v) },
    ...(!dir && opts.pgliteTemplate ? { loadDataDir: opts.pgliteTemplate } : {}),
  });
  await lite.waitReady;
  await lite.exec(`SET TimeZone = 'UTC'`);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new PGlitePool(lite) as never }) });
  return { db, engine: 'pglite', close: () => db.destroy() };
}

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
