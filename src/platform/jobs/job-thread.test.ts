import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { probeJob } from '../../../test/fixtures/thread-job.ts';
import { startJobs } from './jobs.ts';

describe.runIf(process.env.DATABASE_URL)('a job in its own thread (PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await sql`create table job_thread_probe (id serial primary key, what text not null, thread text not null)`.execute(t.ctx.db);
  });
  afterAll(() => t.close());

  it('runs the job off the main thread with its own connections, and drains it on stop', async () => {
    const runner = startJobs(t.ctx, [probeJob], { threads: true });
    const until = Date.now() + 20_000;
    let runs = 0;
    while (runs < 3 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      runs = (await sql<{ n: number }>`select count(*)::int n from job_thread_probe where what = 'run'`.execute(t.ctx.db))
        .rows[0]!.n;
    }
    expect(runs).toBeGreaterThanOrEqual(3);
    await runner.stop();
    const rows = (
      await sql<{ what: string; thread: string }>`select what, thread from job_thread_probe order by id`.execute(t.ctx.db)
    ).rows;
    // thread 0 is the main thread
    expect(rows.filter((r) => r.what === 'run').every((r) => r.thread !== '0')).toBe(true);
    expect(rows.at(-1)?.what).toBe('drained');
    // stopped: no run after the drain
    await new Promise((r) => setTimeout(r, 300));
    const after = (await sql<{ n: number }>`select count(*)::int n from job_thread_probe`.execute(t.ctx.db)).rows[0]!.n;
    expect(after).toBe(rows.length);
  });

  it('runs the job on the main loop when threads are not asked for', async () => {
    await sql`delete from job_thread_probe`.execute(t.ctx.db);
    const runner = startJobs(t.ctx, [probeJob], { timers: false, threads: false });
    await runner.runAll();
    await runner.stop();
    const rows = (await sql<{ thread: string }>`select thread from job_thread_probe`.execute(t.ctx.db)).rows;
    expect(rows).toEqual([{ thread: '0' }]);
  });
});
