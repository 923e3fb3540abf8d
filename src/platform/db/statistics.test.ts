import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase } from '../../../test/db.ts';
import { openDatabase } from './database.ts';
import { refreshGrownStatistics } from './statistics.ts';

const pagesOf = async (db: Parameters<typeof refreshGrownStatistics>[0]) =>
  (
    await sql<{
      relpages: number;
      reltuples: number;
    }>`select relpages, reltuples from pg_class where relname = 'stats_probe'`.execute(db)
  ).rows[0]!;

describe('planner statistics of growing tables', () => {
  it('analyses a table once it outgrows the figures taken while it was empty, then again at each fourfold growth', async () => {
    const testDb = await createTestDatabase();
    const d = await openDatabase({ databaseUrl: testDb.url, dataDir: null });
    try {
      await sql`create table stats_probe (id int primary key, pad text not null)`.execute(d.db);
      await sql`analyze stats_probe`.execute(d.db);
      const fill = (from: number, to: number) =>
        sql`insert into stats_probe select g, repeat('x', 200) from generate_series(${from}::int, ${to}::int) g`.execute(d.db);
      // below the floor of 8 pages: left alone
      await fill(1, 50);
      expect(await refreshGrownStatistics(d.db, ['stats_probe', 'no_such_table'])).toEqual([]);
      // grown past it from figures that say "empty": analysed, and the figures now say what is there
      await fill(51, 2_000);
      expect(await refreshGrownStatistics(d.db, ['stats_probe'])).toEqual(['stats_probe']);
      const after = await pagesOf(d.db);
      expect(after.reltuples).toBe(2_000);
      // not again until it is four times that size
      await fill(2_001, 3_000);
      expect(await refreshGrownStatistics(d.db, ['stats_probe'])).toEqual([]);
      await fill(3_001, 8_500);
      expect(await refreshGrownStatistics(d.db, ['stats_probe'])).toEqual(['stats_probe']);
      expect((await pagesOf(d.db)).relpages).toBeGreaterThanOrEqual(4 * after.relpages);
    } finally {
      await d.close();
      await testDb.drop();
    }
  });
});
