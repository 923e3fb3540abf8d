import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { loadConfig, type Config } from './platform/config.ts';
import type { AppContext } from './platform/context.ts';
import { systemClock, type Clock } from './platform/clock.ts';
import { openDatabase, type Database } from './platform/db/database.ts';
import { migrate } from './platform/db/migrate.ts';
import { buildApp } from './app.ts';
import { createLogger } from './platform/logger.ts';
import { startJobs, type JobRunner } from './platform/jobs/jobs.ts';
import { allJobs } from './jobs.ts';

export interface Runtime {
  ctx: AppContext;
  database: Database;
  close(): Promise<void>;
}

/** Opens the database, applies migrations and assembles the context every module uses. */
export async function createRuntime(
  opts: { config?: Config; clock?: Clock; log?: Logger; inMemory?: boolean; pgliteTemplate?: Blob } = {},
): Promise<Runtime> {
  const config = opts.config ?? loadConfig();
  const log = opts.log ?? createLogger(config.logLevel);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: opts.inMemory ? null : config.dataDir,
    ...(opts.pgliteTemplate ? { pgliteTemplate: opts.pgliteTemplate } : {}),
  });
  const applied = await migrate(database.db);
  if (applied.length) log.info({ applied }, 'migrations applied');
  // reports read from a replica when there is one (never migrated: it follows the primary)
  const reads = config.databaseReadUrl
    ? await openDatabase({ databaseUrl: config.databaseReadUrl, dataDir: null, poolSize: 10 })
    : null;
  const ctx: AppContext = {
    config,
    db: database.db,
    ...(reads ? { readDb: reads.db } : {}),
    engine: database.engine,
    clock: opts.clock ?? systemClock,
    log,
    ...(database.poolStats ? { poolStats: database.poolStats } : {}),
  };
  return {
    ctx,
    database,
    close: async () => {
      await reads?.close();
      await database.close();
    },
  };
}

export interface RunningServer {
  app: FastifyInstance;
  jobs: JobRunner;
  /** Drains (see Config.drainMs; `drainMs` overrides it), then closes HTTP, the jobs and the database. */
  stop(opts?: { drainMs?: number }): Promise<void>;
}

/** Serves HTTP and runs the background jobs; SIGTERM/SIGINT drain both before exit. */
export async function serve(runtime: Runtime): Promise<RunningServer> {
  const { ctx } = runtime;
  const app = await buildApp(ctx);
  const jobs = startJobs(ctx, allJobs, { threads: true });
  await app.listen({ port: ctx.config.port, host: ctx.config.host });
  let stopping: Promise<void> | null = null;
  const stop = (opts: { drainMs?: number } = {}) =>
    (stopping ??= (async () => {
      // not ready any more, still serving: the balancer's health check sees it and sends the
      // traffic elsewhere; keep-alive connections are closed as their responses go out
      app.draining.active = true;
      const drainMs = opts.drainMs ?? ctx.config.drainMs;
      if (drainMs > 0) await new Promise((resolve) => setTimeout(resolve, drainMs));
      await app.close();
      await jobs.stop();
      await runtime.close();
    })());
  return { app, jobs, stop };
}
