import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import { PGlitePool } from '../src/platform/db/pglite-pool.ts';
import { migrate } from '../src/platform/db/migrate.ts';
import type { DB } from '../src/platform/db/schema.ts';

/**
 * A migrated, empty embedded database as a dump, for tests on PGlite: a new PGlite cluster takes
 * about five seconds to initialise, loading this dump half a second. Kept in the system's temp
 * directory under a hash of the migrations and PGlite's version, so every test file and worker
 * shares one and a changed migration makes a new one. Written to a temporary name and renamed,
 * so a worker never reads another's half-written file.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function key(): string {
  const h = createHash('sha256');
  const dir = path.join(ROOT, 'migrations');
  for (const f of fs.readdirSync(dir).sort()) h.update(f).update(fs.readFileSync(path.join(dir, f)));
  h.update(JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version);
  h.update(fs.readFileSync(path.join(ROOT, 'src/platform/db/migrate.ts')));
  return h.digest('hex').slice(0, 16);
}

let template: Promise<Blob> | undefined;

export function pgliteTemplate(): Promise<Blob> {
  template ??= load();
  return template;
}

async function load(): Promise<Blob> {
  const file = path.join(os.tmpdir(), `admit-pglite-template-${key()}.tar`);
  if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)]);
  const lite = new PGlite(undefined, { parsers: { 20: (v: string) => Number(v) } });
  await lite.waitReady;
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new PGlitePool(lite) as never }) });
  await migrate(db);
  const dump = await lite.dumpDataDir('none');
  await db.destroy();
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(tmp, file);
  return dump;
}
