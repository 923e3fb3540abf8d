import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { createTestDatabase } from '../../../test/db.ts';
import { openDatabase } from './database.ts';
import { refreshGrownStatistics } from './statistics.ts';

type Db = Parameters<typeof refreshGrownStatistics>[0];

const figuresOf = async (db: Db) =>
  (await sql<{ reltuples: number }>`select reltuples from pg_class where relname = 'stats_probe'`.execute(db)).rows[0]!;

// Autovacuum is off for the probe table: its own ANALYZE, due after about a tenth of a table's
// rows change, would otherwise take the figures between two steps and leave nothing to refresh.

/**
 * The statistics system counts a transaction's rows when the backend reports them, which
 * PostgreSQL delays by up to a second after a commit: ask again until the answer settles.
 */
async function refreshedWithin(db: Db, ms = 5_000): Promise<string[]> {
  const until = Date.now() + ms;
  for (;;) {
    const done = await refreshGrownStatistics(db, ['stats_probe', 'no_such_table']);
    if (done.length || Date.now() > until) return done;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const fill = (db: Db | pg.Client, from: number, to: number) => {
  const text = `insert into stats_probe select g, repeat('x', 200) from generate_series(${from}, ${to}) g`;
  return db instanceof pg.Client ? db.query(text) : sql.raw(text).execute(db);
};

describe('planner statistics of growing tables', () => {
  it('analyses a table once it outgrows the figures taken while it was empty, then again at each fourfold growth', async () => {
    const testDb = await createTestDatabase();
    const d = await openDatabase({ databaseUrl: testDb.url, dataDir: null });
    try {
      await sql`create table stats_probe (id int primary key, pad text not null) with (autovacuum_enabled = false)`.execute(d.db);
      await sql`analyze stats_probe`.execute(d.db);
      // below the floor of 200 rows: left alone
      await fill(d.db, 1, 50);
      expect(await refreshedWithin(d.db, 1_500)).toEqual([]);
      // grown past it from figures that say "empty": analysed, and the figures now say what is there
      await fill(d.db, 51, 2_000);
      expect(await refreshedWithin(d.db)).toEqual(['stats_probe']);
      expect((await figuresOf(d.db)).reltuples).toBe(2_000);
      // not again until it holds four times that
      await fill(d.db, 2_001, 3_000);
      expect(await refreshedWithin(d.db, 1_500)).toEqual([]);
      await fill(d.db, 3_001, 8_500);
      expect(await refreshedWithin(d.db)).toEqual(['stats_probe']);
      expect((await figuresOf(d.db)).reltuples).toBe(8_500);
    } finally {
      await d.close();
      await testDb.drop();
    }
  });

  it.runIf(process.env.DATABASE_URL)(
    'analyses again after a bulk insert that was still uncommitted when the figures were taken',
    async () => {
      const testDb = await createTestDatabase();
      const d = await openDatabase({ databaseUrl: testDb.url, dataDir: null });
      const loader = new pg.Client({ connectionString: testDb.url! });
      await loader.connect();
      try {
        await sql`create table stats_probe (id int primary key, pad text not null) with (autovacuum_enabled = false)`.execute(
          d.db,
        );
        await fill(d.db, 1, 1_000);
        expect(await refreshedWithin(d.db)).toEqual(['stats_probe']);
        // a bulk load in flight: ANALYZE sees its pages but none of its rows
        await loader.query('begin');
        await fill(loader, 1_001, 60_000);
        await sql`analyze stats_probe`.execute(d.db);
        expect((await figuresOf(d.db)).reltuples).toBeLessThan(2_000);
        await loader.query('commit');
        // committed: the figures are four times too small, so they are taken again
        expect(await refreshedWithin(d.db)).toEqual(['stats_probe']);
        expect((await figuresOf(d.db)).reltuples).toBe(60_000);
      } finally {
        await loader.end();
        await d.close();
        await testDb.drop();
      }
    },
  );
});
