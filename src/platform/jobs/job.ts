import type { AppContext } from '../context.ts';

/** A background job: what it does and how often (run by jobs.ts, on a thread by job-thread.ts). */
export interface Job {
  name: string;
  /** milliseconds between runs */
  every: number;
  run(ctx: AppContext): Promise<unknown>;
  /**
   * Work that should not share the event loop serving requests (sending webhooks): on PostgreSQL
   * the server runs it in a worker thread with its own connections. `module` is the URL of the
   * module exporting the job as `exportName`; `drain` finishes what a run left under way; `nice`
   * lowers the thread's CPU priority (Linux), so under saturation requests come first.
   */
  thread?: { module: string; exportName: string; nice?: number; drain?(ctx: AppContext): Promise<void> };
}
