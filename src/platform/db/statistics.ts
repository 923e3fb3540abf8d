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
 * the figures (and with them every cached plan). This analyses each listed table that has grown
 * to `minPages` pages and to four times the pages its figures were taken at: within seconds of
 * a sale starting, then only at each fourfold growth. Returns the tables analysed.
 */
export async function refreshGrownStatistics(db: Db, tables: readonly string[], minPages = 8): Promise<string[]> {
  const grown = await sql<{ relname: string }>`
    select c.relname from pg_class c
    where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r' and c.relname = any(${[...tables]}::text[])
      and pg_relation_size(c.oid) / current_setting('block_size')::int >= greatest(${minPages}::int, 4 * greatest(c.relpages, 1))
    order by c.relname`.execute(db);
  const done: string[] = [];
  for (const { relname } of grown.rows) {
    // SKIP_LOCKED: another instance analysing the same table is enough
    await sql`analyze (skip_locked) ${sql.table(relname)}`.execute(db);
    done.push(relname);
  }
  return done;
}
