import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { openDatabase } from '../db/database.ts';
import { createLogger } from '../logger.ts';
import type { Job } from './jobs.ts';
import type { JobThreadData } from './job-thread.ts';

/** Inside the worker thread: runs the job every `every` ms until told to stop, then drains. */
const data = workerData as JobThreadData;
const log = createLogger(data.config.logLevel).child({ thread: data.name });
const database = await openDatabase({ databaseUrl: data.config.databaseUrl, dataDir: null, poolSize: 4 });
const ctx: AppContext = { config: data.config, db: database.db, engine: database.engine, clock: systemClock, log };
const job = ((await import(data.module)) as Record<string, Job>)[data.exportName];
if (!job) throw new Error(`${data.module} exports no job named ${data.exportName}`);

if (job.thread?.nice) {
  try {
    // pid 0 is the calling thread on Linux: only this thread yields, not the server
    os.setPriority(0, job.thread.nice);
  } catch (err) {
    log.warn({ err }, 'could not lower the job thread priority');
  }
}

let stopping = false;
let wake: (() => void) | null = null;
parentPort!.on('message', (m) => {
  if (m === 'stop') {
    stopping = true;
    wake?.();
  }
});
while (!stopping) {
  const started = Date.now();
  try {
    await job.run(ctx);
  } catch (err) {
    log.error({ err, job: data.name }, 'job failed');
  }
  const wait = Math.max(0, data.every - (Date.now() - started));
  if (!stopping && wait) await new Promise<void>((r) => ((wake = r), setTimeout(r, wait)));
}
try {
  await job.thread?.drain?.(ctx);
} finally {
  await database.close();
  process.exit(0);
}
