import { sql } from 'kysely';
import type { Db } from './database.ts';

/**
 * Keeps the planner's figures for fast-growing tables from going stale while they are small.
 *
 * PostgreSQL keeps some plans per connection: a PL/pgSQL statement without parameters is planned
 * once; a foreign-key check settles on one generic plan after a few runs. Made while a table was
 * (nearly) empty, as on a new database or after a VACUUM ANALYZE of one, such a plan scans the
 * whole table for every row, and the scans grow with the table. A flash sale on a fresh database
 * ran at a third of its speed that way until autovacuum's ANALYZE, up to a minute later, replaced
 * the figures (and with them every cached plan). This analyses each listed table that has
 * `minRows` committed live rows and four times the rows its figures say: within seconds of a sale
 * starting, then only at each fourfold growth. Committed rows (the statistics system's count), not
 * the table's size on disk: an ANALYZE that ran while a bulk insert was still uncommitted records
 * a large table with no rows, and the size alone would never call for another, leaving every
 * later statement planned for an empty table. Returns the tables analysed.
 */
export async function refreshGrownStatistics(db: Db, tables: readonly string[], minRows = 200): Promise<string[]> {
  const grown = await sql<{ relname: string }>`
    select c.relname from pg_class c join pg_stat_user_tables s on s.relid = c.oid
    where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r' and c.relname = any(${[...tables]}::text[])
      and s.n_live_tup >= greatest(${minRows}::bigint, 4 * greatest(c.reltuples, 1))
    order by c.relname`.execute(db);
  const done: string[] = [];
  for (const { relname } of grown.rows) {
    // SKIP_LOCKED: another instance analysing the same table is enough
    await sql`analyze (skip_locked) ${sql.table(relname)}`.execute(db);
    done.push(relname);
  }
  return done;
}
