import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { PGlite } from '@electric-sql/pglite';
import { readMigrations } from './migrate.ts';

/**
 * Copies the embedded database into an empty PostgreSQL database (contract section 16): the schema
 * by the same migrations, the data table by table with COPY (CSV out of PGlite, CSV into
 * PostgreSQL), sequences set past the highest ids, then counts and money figures compared. All of
 * it in one transaction on the target: on any failure, a mismatch included, nothing is left there.
 * The source is only read.
 */

export interface MoveReport {
  tables: number;
  rows: number;
  figures: Record<string, string>;
}

export class MoveError extends Error {}

/** Rows per COPY out of PGlite: its COPY answers with one blob in memory, so big tables go in slices. */
const SLICE = 50_000;

export async function moveDatabase(
  dataDir: string,
  targetUrl: string,
  log: (line: string) => void = () => undefined,
): Promise<MoveReport> {
  const dir = path.join(dataDir, 'pglite');
  if (!fs.existsSync(dir)) throw new MoveError(`no embedded database at ${dir}`);
  const { PGlite } = await import('@electric-sql/pglite');
  const source: PGlite = new PGlite(dir);
  const target = new pg.Client({ connectionString: targetUrl });
  try {
    await source.waitReady;
    await source.exec(`SET TimeZone = 'UTC'`);
    const migrations = readMigrations();
    const applied = (await source.query<{ version: number }>('select version from schema_migrations order by version')).rows.map(
      (r) => Number(r.version),
    );
    const expected = migrations.map((m) => m.version);
    if (applied.join() !== expected.join()) {
      throw new MoveError('the embedded database is not at this version: run `admit migrate` (or start admit once) first');
    }
    await target.connect();
    await target.query(`SET TimeZone = 'UTC'`);
    const taken = await target.query<{ n: number }>(
      `select count(*)::int as n from pg_class c join pg_namespace s on s.oid = c.relnamespace
        where s.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'S')`,
    );
    if (taken.rows[0]!.n > 0) throw new MoveError('the target database is not empty: create a new one for the move');

    await target.query('BEGIN');
    try {
      await target.query(`create table schema_migrations (
        version integer primary key, name text not null, applied_at timestamptz not null default now())`);
      for (const m of migrations) {
        await target.query(m.sql);
        await target.query('insert into schema_migrations (version, name) values ($1, $2)', [m.version, m.name]);
      }
      log(`schema: ${migrations.length} migrations`);
      const tables = await copyOrder(target);
      // what migrations may have put in is replaced by the source's rows
      await target.query(`truncate ${tables.map(quote).join(', ')}`);
      let rows = 0;
      for (const t of tables) {
        // the counters the triggers keep are copied as they are, not counted again row by row
        await target.query(`alter table ${quote(t)} disable trigger user`);
        const n = await copyTable(source, target, t);
        await renumberTransactionIds(target, t);
        await target.query(`alter table ${quote(t)} enable trigger user`);
        rows += n;
        log(`${t}: ${n} rows`);
      }
      await setSequences(target);
      const figures = await compare(source, target, tables);
      await target.query('COMMIT');
      return { tables: tables.length, rows, figures };
    } catch (err) {
      await target.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    await target.end().catch(() => undefined);
    await source.close().catch(() => undefined);
  }
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The tables to copy, each after the tables its foreign keys point to. */
async function copyOrder(db: pg.Client): Promise<string[]> {
  const tables = (
    await db.query<{ t: string }>(
      `select table_name as t from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' and table_name <> 'schema_migrations' order by 1`,
    )
  ).rows.map((r) => r.t);
  const deps = await db.query<{ a: string; b: string }>(
    `select c.conrelid::regclass::text as a, c.confrelid::regclass::text as b from pg_constraint c
      join pg_namespace s on s.oid = c.connamespace where c.contype = 'f' and s.nspname = 'public'`,
  );
  const needs = new Map(tables.map((t) => [t, new Set<string>()]));
  for (const d of deps.rows) if (d.a !== d.b) needs.get(d.a.replace(/"/g, ''))?.add(d.b.replace(/"/g, ''));
  const out: string[] = [];
  const done = new Set<string>();
  while (out.length < tables.length) {
    const ready = tables.filter((t) => !done.has(t) && [...needs.get(t)!].every((n) => done.has(n)));
    if (!ready.length) throw new MoveError('the tables refer to each other in a circle; the move cannot order them');
    for (const t of ready) {
      done.add(t);
      out.push(t);
    }
  }
  return out;
}

async function copyTable(source: PGlite, target: pg.Client, table: string): Promise<number> {
  const columns = (
    await target.query<{ c: string }>(
      `select column_name as c from information_schema.columns where table_schema = 'public' and table_name = $1
        and is_generated = 'NEVER' order by ordinal_position`,
      [table],
    )
  ).rows.map((r) => quote(r.c));
  const list = columns.join(', ');
  const total = Number((await source.query<{ n: number }>(`select count(*)::int as n from ${quote(table)}`)).rows[0]!.n);
  if (!total) return 0;
  // a stable order to slice by: the rows' places (the source is only read, by this process alone)
  for (let offset = 0; offset < total; offset += SLICE) {
    const res = await source.query(
      `copy (select ${list} from ${quote(table)} order by ctid limit ${SLICE} offset ${offset})
        to '/dev/blob' with (format csv)`,
    );
    const blob = res.blob;
    if (!blob) throw new MoveError(`${table}: the embedded database gave no data`);
    const stream = target.query(copyFrom(`copy ${quote(table)} (${list}) from stdin with (format csv)`));
    await pipeline(Readable.from(Buffer.from(await blob.arrayBuffer())), stream);
  }
  return total;
}

/**
 * Transaction ids (`xid8`, the door sync's change marks) belong to the database that made them: the
 * source's would be in the target's future and hide rows from the sync until the target caught up.
 * They become the move's own transaction, before which nothing on the target happened.
 */
async function renumberTransactionIds(db: pg.Client, table: string): Promise<void> {
  const cols = await db.query<{ c: string }>(
    `select column_name as c from information_schema.columns
      where table_schema = 'public' and table_name = $1 and udt_name = 'xid8'`,
    [table],
  );
  for (const { c } of cols.rows) await db.query(`update ${quote(table)} set ${quote(c)} = pg_current_xact_id()`);
}

async function setSequences(db: pg.Client): Promise<void> {
  const seqs = await db.query<{ t: string; c: string; s: string }>(
    `select tc.relname as t, a.attname as c, pg_get_serial_sequence(quote_ident(tc.relname), a.attname) as s
       from pg_class tc join pg_namespace n on n.oid = tc.relnamespace
       join pg_attribute a on a.attrelid = tc.oid and a.attnum > 0 and not a.attisdropped
      where n.nspname = 'public' and tc.relkind = 'r' and pg_get_serial_sequence(quote_ident(tc.relname), a.attname) is not null`,
  );
  for (const { t, c, s } of seqs.rows) {
    await db.query(`select setval($1, coalesce((select max(${quote(c)}) from ${quote(t)}), 0) + 1, false)`, [s]);
  }
}

/** Rows per table and the money the reports add up, on both sides; any difference stops the move. */
async function compare(source: PGlite, target: pg.Client, tables: string[]): Promise<Record<string, string>> {
  const FIGURES = `select
      (select coalesce(sum(total_cents), 0) from orders)::text as orders_total,
      (select coalesce(sum(refunded_cents), 0) from orders)::text as orders_refunded,
      (select coalesce(sum(tax_cents), 0) from orders)::text as orders_tax,
      (select coalesce(sum(amount_cents), 0) from payments where status = 'succeeded')::text as payments_succeeded,
      (select coalesce(sum(amount_cents), 0) from refunds where status = 'succeeded')::text as refunds_succeeded,
      (select count(*) from tickets where status = 'valid')::text as valid_tickets,
      (select coalesce(sum(taken), 0) from inventory)::text as stock_taken`;
  const counts = tables.map((t) => `(select count(*) from ${quote(t)})::text as ${quote(t)}`).join(', ');
  const [a, b] = [
    {
      ...(await source.query<Record<string, string>>(FIGURES)).rows[0],
      ...(await source.query<Record<string, string>>(`select ${counts}`)).rows[0],
    },
    {
      ...(await target.query<Record<string, string>>(FIGURES)).rows[0],
      ...(await target.query<Record<string, string>>(`select ${counts}`)).rows[0],
    },
  ];
  const differ = Object.keys(a).filter((k) => String(a[k]) !== String(b[k]));
  if (differ.length) {
    throw new MoveError(
      `the copy differs from the source in ${differ.map((k) => `${k} (${a[k]} vs ${b[k]})`).join(', ')}; nothing was kept`,
    );
  }
  return Object.fromEntries(
    Object.entries(a)
      .filter(([k]) => !tables.includes(k))
      .map(([k, v]) => [k, String(v)]),
  );
}
