import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Db } from './database.ts';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations');
// Any fixed number: all instances serialise their migration runs on it.
const MIGRATION_LOCK = 7_245_019_331;

export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f, sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

/**
 * Applies numbered SQL files in order, each in its own transaction. A transaction-scoped advisory
 * lock makes concurrent starts safe: the second instance waits, then sees the versions applied.
 */
export async function migrate(db: Db, files = readMigrations()): Promise<string[]> {
  const applied: string[] = [];
  await sql`create table if not exists schema_migrations (
    version integer primary key, name text not null, applied_at timestamptz not null default now())`
    .execute(db)
    .catch(async (err: unknown) => {
      // Two instances racing on the very first create: the loser sees a duplicate type error.
      if (!(await tableExists(db))) throw err;
    });
  for (const file of files) {
    await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
      const done = await trx
        .selectFrom('schema_migrations')
        .select('version')
        .where('version', '=', file.version)
        .executeTakeFirst();
      if (done) return;
      await sql.raw(file.sql).execute(trx);
      await trx.insertInto('schema_migrations').values({ version: file.version, name: file.name }).execute();
      applied.push(file.name);
    });
  }
  return applied;
}

async function tableExists(db: Db): Promise<boolean> {
  const r = await sql<{ ok: boolean }>`select to_regclass('schema_migrations') is not null as ok`.execute(db);
  return r.rows[0]?.ok === true;
}
