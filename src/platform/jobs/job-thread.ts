import { Worker } from 'node:worker_threads';
import type { AppContext } from '../context.ts';
import { applyForwardedMetric } from '../metrics.ts';
import type { Job } from './job.ts';

export interface JobThread {
  /** Asks the thread to finish its run and drain, then waits for it (killed after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

export interface JobThreadData {
  config: AppContext['config'];
  module: string;
  exportName: string;
  name: string;
  every: number;
}

/**
 * Runs a job in a worker thread: its own event loop and its own small connection pool, so the
 * job's CPU work never delays a request on the main loop. A thread that dies is started again.
 */
export function startJobThread(ctx: AppContext, job: Job): JobThread {
  const data: JobThreadData = {
    config: ctx.config,
    module: job.thread!.module,
    exportName: job.thread!.exportName,
    name: job.name,
    every: job.every,
  };
  let worker: Worker;
  let stopping = false;
  const start = () => {
    worker = new Worker(new URL('./job-thread-boot.mjs', import.meta.url), { workerData: data });
    worker.on('error', (err) => ctx.log.error({ err, job: job.name }, 'job thread failed'));
    worker.on('message', applyForwardedMetric);
    worker.on('exit', (code) => {
      if (stopping) return;
      ctx.log.error({ code, job: job.name }, 'job thread exited; starting it again');
      setTimeout(start, 1_000).unref();
    });
    worker.unref();
  };
  start();
  return {
    async stop(graceMs = 10_000) {
      stopping = true;
      const w = worker;
      const exited = new Promise<void>((r) => w.once('exit', () => r()));
      w.postMessage('stop');
      const timer = setTimeout(() => void w.terminate(), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
