import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';

/** What every service needs from the platform. Built once per process in server.ts / tests. */
export interface AppContext {
  config: Config;
  db: Db;
  /**
   * Where reports read (DATABASE_READ_URL, a streaming replica); the primary when unset. Nothing
   * that decides (orders, refunds, check-ins, idempotency, jobs) reads here.
   */
  readDb?: Db;
  engine: 'postgres' | 'pglite';
  clock: Clock;
  log: Logger;
  /** the primary's connection pool, for the metrics (PostgreSQL only) */
  poolStats?: () => { total: number; idle: number; waiting: number };
}

/**
 * Runs a report's queries in one read-only snapshot on the read connection (the replica when
 * DATABASE_READ_URL is set): every figure of one report comes from the same moment, never part
 * from the primary and part from a replica replaying behind it.
 */
export function inReportSnapshot<T>(ctx: AppContext, fn: (db: Db) => Promise<T>): Promise<T> {
  return (ctx.readDb ?? ctx.db)
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute((trx) => fn(trx));
}
