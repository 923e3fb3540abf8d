import type { AppContext } from '../context.ts';

export interface Job {
  name: string;
  /** milliseconds between runs */
  every: number;
  run(ctx: AppContext): Promise<unknown>;
}

export interface JobRunner {
  /** Runs every job once now (tests use this instead of waiting). */
  runAll(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs each job on its own interval. Jobs must be safe with many instances running them at the
 * same time (they claim work with row locks / SKIP LOCKED), so no leader election is needed.
 */
export function startJobs(ctx: AppContext, registry: readonly Job[], opts: { timers?: boolean } = {}): JobRunner {
  const timers: NodeJS.Timeout[] = [];
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
      await Promise.allSettled([...running]);
    },
  };
}
