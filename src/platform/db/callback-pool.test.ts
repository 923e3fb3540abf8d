import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/db.ts';
import { CallbackQueryPool, PREPARE } from './callback-pool.ts';
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

  it('prepares a marked statement once per connection, and runs it unnamed once the server refuses the name', async () => {
    const testDb = await createTestDatabase();
    const raw = new pg.Pool({ connectionString: testDb.url ?? undefined, max: 1 });
    // as openDatabase does: dropping the test database ends its connections, which must not
    // surface as an unhandled error of a client still closing
    raw.on('error', () => undefined);
    raw.on('connect', (client) => client.on('error', () => undefined));
    const pool = new CallbackQueryPool(raw);
    const db = new Kysely<never>({ dialect: new PostgresDialect({ pool: pool as never }) });
    const prepared = async () =>
      (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db)).rows.map((r) => r.name);
    const marked = (n: number) => sql<{ n: number }>`${sql.raw(PREPARE)}select ${n}::int + 1 as n`.execute(db);
    try {
      expect((await marked(1)).rows).toEqual([{ n: 2 }]);
      expect((await marked(41)).rows).toEqual([{ n: 42 }]);
      // unmarked statements stay unnamed; the marked one is held under one name
      await sql`select ${1}::int as n`.execute(db);
      const names = await prepared();
      expect(names).toHaveLength(1);
      expect(names[0]).toMatch(/^admit_[0-9a-f]{32}$/);
      expect(pool.preparing).toBe(true);
      // the statement disappears behind the client's back (a pooler's other server connection
      // looks like this to it): the next execution is refused with 26000 and runs again unnamed
      await sql.raw(`deallocate ${names[0]}`).execute(db);
      expect((await marked(9)).rows).toEqual([{ n: 10 }]);
      expect(pool.preparing).toBe(false);
      expect((await marked(10)).rows).toEqual([{ n: 11 }]);
      expect(await prepared()).toEqual([]);
      // a real error of a marked statement is still the caller's
      await expect(sql`${sql.raw(PREPARE)}select 1 / ${0}::int`.execute(db)).rejects.toMatchObject({ code: '22012' });
    } finally {
      await db.destroy();
      await testDb.drop();
    }
  });
});
