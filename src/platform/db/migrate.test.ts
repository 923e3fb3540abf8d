import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase } from '../../../test/db.ts';
import { openDatabase } from './database.ts';
import { migrate, readMigrations } from './migrate.ts';

describe('migrate', () => {
  it('applies every file once, even when several instances start at the same time', async () => {
    const testDb = await createTestDatabase();
    // PGlite is one process' private database; the race only exists on PostgreSQL.
    const instances = testDb.url ? 4 : 1;
    const dbs = await Promise.all(
      Array.from({ length: instances }, () => openDatabase({ databaseUrl: testDb.url, dataDir: null })),
    );
    try {
      const results = await Promise.all(dbs.map((d) => migrate(d.db)));
      const applied = results.flat();
      const files = readMigrations().map((f) => f.name);
      expect(applied.sort()).toEqual([...files].sort());
      expect(await migrate(dbs[0]!.db)).toEqual([]);
      const rows = await sql<{ n: number }>`select count(*)::int as n from schema_migrations`.execute(dbs[0]!.db);
      expect(rows.rows[0]!.n).toBe(files.length);
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
      await testDb.drop();
    }
  });
});
