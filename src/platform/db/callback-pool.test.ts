import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/db.ts';
import { openDatabase } from './database.ts';

// Kysely over pg with each query in pg's callback form (PostgreSQL only; PGlite has its own pool)
describe.skipIf(!process.env.DATABASE_URL)('the callback-form pg pool', () => {
  it('returns rows and counts, rejects with the server error, and keeps transactions on one connection', async () => {
    const testDb = await createTestDatabase();
    const d = await openDatabase({ databaseUrl: testDb.url, dataDir: null, poolSize: 2 });
    try {
      const rows = (await sql<{ n: number }>`select generate_series(1, 3)::int as n`.execute(d.db)).rows;
      expect(rows.map((r) => r.n)).toEqual([1, 2, 3]);
      await sql`create table callback_pool_probe (id int primary key)`.execute(d.db);
      const inserted = await d.db
        .insertInto('callback_pool_probe' as never)
        .values([{ id: 1 }, { id: 2 }] as never)
        .executeTakeFirst();
      expect(inserted.numInsertedOrUpdatedRows).toBe(2n);
      const failed = await sql`select * from no_such_table`.execute(d.db).catch((e: unknown) => e);
      expect(failed).toMatchObject({ code: '42P01' });
      // a failed statement inside a transaction rolls it back; the pool still serves afterwards
      await expect(
        d.db.transaction().execute(async (trx) => {
          await sql`insert into callback_pool_probe values (3)`.execute(trx);
          const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
          expect((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid).toBe(pid);
          await sql`insert into callback_pool_probe values (1)`.execute(trx);
        }),
      ).rejects.toMatchObject({ code: '23505' });
      const ids = (await sql<{ id: number }>`select id from callback_pool_probe order by id`.execute(d.db)).rows;
      expect(ids.map((r) => r.id)).toEqual([1, 2]);
    } finally {
      await d.close();
      await testDb.drop();
    }
  });
});
