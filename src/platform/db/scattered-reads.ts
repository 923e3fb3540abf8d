import { sql } from 'kysely';
import type { Db } from './database.ts';

/**
 * Runs `read` in a transaction planned for rows scattered over many pages that may not be in
 * memory: bitmap scans, whose heap reads PostgreSQL prefetches (effective_io_concurrency reads in
 * flight), instead of index scans, which read one page at a time and wait for each.
 *
 * What it is for: an overview of many things at once, each with a few rows of its own written
 * at different times (an account's events with their sales counters: about 1,300 counter rows,
 * each on its own page). Read cold from the disk, one page at a time, that was 95-200 ms; with the
 * pages prefetched 25 ms; in memory the two plans cost alike (2.4 and 2.7 ms). The planner does not
 * weigh prefetching in its costs (PostgreSQL 15-17), so it is told. A server that cannot prefetch
 * (effective_io_concurrency 0, the default where posix_fadvise is missing) keeps its own plan.
 */
export function readScattered<T>(db: Db, read: (trx: Db) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('enable_indexscan', 'off', true),
        set_config('effective_io_concurrency', greatest(current_setting('effective_io_concurrency')::int, ${PREFETCH}::int)::text, true)
      where current_setting('effective_io_concurrency')::int > 0`.execute(trx);
    return read(trx);
  });
}

/** Pages read ahead at once: more than a fast disk needs to stay busy, far under the 1,000 allowed. */
const PREFETCH = 64;
