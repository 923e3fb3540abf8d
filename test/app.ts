import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../src/platform/config.ts';
import { TestClock } from '../src/platform/clock.ts';
import type { AppContext } from '../src/platform/context.ts';
import { buildApp } from '../src/app.ts';
import { createLogger } from '../src/platform/logger.ts';
import { startJobs, type JobRunner } from '../src/platform/jobs/jobs.ts';
import { allJobs } from '../src/jobs.ts';
import { createRuntime } from '../src/server.ts';
import type { Logger } from 'pino';
import { createTestDatabase } from './db.ts';
import { pgliteTemplate } from './pglite-template.ts';

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  clock: TestClock;
  /** Runs every background job once (outbox, sweeper, ...), instead of waiting for timers. */
  jobs: JobRunner;
  close(): Promise<void>;
  /** app.inject with a bearer token. */
  call(token: string | null, opts: InjectOptions): Promise<LightMyRequestResponse>;
}

export interface TestAppOptions {
  now?: string;
  config?: Partial<Config>;
  /** Log destination (default: silent pino). */
  log?: Logger;
  /** Extra routes for a test, registered before the app is ready. */
  beforeReady?: (app: FastifyInstance) => void;
  /** A second instance on another app's PostgreSQL database (its own pool, queues and caches). */
  sameDatabaseAs?: TestApp;
}

/** A fresh app on a fresh database (PGlite in memory, or a new database on DATABASE_URL). */
export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const shared = opts.sameDatabaseAs?.ctx.config.databaseUrl;
  if (opts.sameDatabaseAs && !shared) throw new Error('sameDatabaseAs needs DATABASE_URL (PGlite here is in memory)');
  const testDb = shared ? { url: shared, drop: async () => undefined } : await createTestDatabase();
  const config: Config = {
    ...loadConfig({ NODE_ENV: 'test' }),
    baseUrl: 'http://admit.test',
    databaseUrl: testDb.url,
    rateLimitPerMin: 0,
    tokenCacheMs: 0,
    catalogueCacheMs: 0,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...opts.config,
  };
  const clock = new TestClock(opts.now ?? '2026-11-22T12:00:00Z');
  const runtime = await createRuntime({
    config,
    clock,
    log: opts.log ?? createLogger(config.logLevel),
    inMemory: true,
    // on the embedded database, a copy of a migrated one (test/pglite-template.ts)
    ...(config.databaseUrl ? {} : { pgliteTemplate: await pgliteTemplate() }),
  });
  const app = await buildApp(runtime.ctx, { extend: opts.beforeReady });
  await app.ready();
  const jobs = startJobs(runtime.ctx, allJobs, { timers: false });
  return {
    app,
    ctx: runtime.ctx,
    clock,
    jobs,
    async close() {
      await app.close();
      await jobs.stop();
      await runtime.close();
      await testDb.drop();
    },
    call(token, injectOpts) {
      const headers = { ...(injectOpts.headers ?? {}) } as Record<string, string>;
      if (token) headers.authorization = `Bearer ${token}`;
      return app.inject({ ...injectOpts, headers });
    },
  };
}
