import type { AppContext } from '../context.ts';
import type { Job } from './job.ts';
import { startJobThread, type JobThread } from './job-thread.ts';

export type { Job } from './job.ts';

export interface JobRunner {
  /** Runs every job once now (tests use this instead of waiting). */
  runAll(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs each job on its own interval. Jobs must be safe with many instances running them at the
 * same time (they claim work with row locks / SKIP LOCKED), so no leader election is needed.
 */
export function startJobs(
  ctx: AppContext,
  registry: readonly Job[],
  opts: { timers?: boolean; threads?: boolean } = {},
): JobRunner {
  const timers: NodeJS.Timeout[] = [];
  const threads: JobThread[] = [];
  const running = new Set<Promise<unknown>>();
  let stopped = false;
  const runJob = (job: Job): Promise<void> => {
    if (stopped) return Promise.resolve();
    const p = job.run(ctx).catch((err: unknown) => ctx.log.error({ err, job: job.name }, 'job failed'));
    running.add(p);
    return p.finally(() => running.delete(p)).then(() => undefined);
  };
  if (opts.timers !== false) {
    for (const job of registry) {
      if (opts.threads && job.thread && ctx.engine === 'postgres') {
        threads.push(startJobThread(ctx, job));
        continue;
      }
      let busy = false;
      const t = setInterval(() => {
        if (busy) return;
        busy = true;
        void runJob(job).finally(() => (busy = false));
      }, job.every);
      t.unref();
      timers.push(t);
    }
  }
  return {
    async runAll() {
      for (const job of registry) await runJob(job);
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearInterval(t);
      await Promise.allSettled([...running, ...threads.map((t) => t.stop())]);
    },
  };
}
