import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * With DATABASE_URL set, every test file gets its own fresh database on that server (created
 * here, dropped at the end) so files run in parallel without seeing each other's rows.
 * Without it, tests use an in-memory PGlite.
 */
export async function createTestDatabase(): Promise<{ url: string | null; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { url: null, drop: async () => undefined };
  const name = `admit_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
