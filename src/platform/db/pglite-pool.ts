import type { PGlite } from '@electric-sql/pglite';

/**
 * A pg-Pool look-alike over one embedded PGlite instance, so Kysely's PostgresDialect runs the
 * same SQL on both engines. PGlite is a single connection: a caller holds it exclusively from
 * connect() until release(), which keeps transactions from interleaving.
 */
export class PGlitePool {
  #db: PGlite;
  #queue: Array<() => void> = [];
  #busy = false;

  constructor(db: PGlite) {
    this.#db = db;
  }

  async connect(): Promise<PGliteClient> {
    if (this.#busy) await new Promise<void>((resolve) => this.#queue.push(resolve));
    this.#busy = true;
    return new PGliteClient(this.#db, () => this.#release());
  }

  #release(): void {
    const next = this.#queue.shift();
    if (next) next();
    else this.#busy = false;
  }

  async end(): Promise<void> {
    await this.#db.close();
  }
}

class PGliteClient {
  #db: PGlite;
  #onRelease: () => void;
  #released = false;

  constructor(db: PGlite, onRelease: () => void) {
    this.#db = db;
    this.#onRelease = onRelease;
  }

  async query(sql: string, params: unknown[] = []): Promise<{ command: string; rowCount: number; rows: unknown[] }> {
    const command = guessCommand(sql, (/^\s*(\w+)/.exec(sql)?.[1] ?? '').toUpperCase());
    if (params.length === 0 && /;\s*\S/.test(sql)) {
      // Several statements (a migration file): only the simple protocol accepts them.
      const results = await this.#db.exec(sql);
      const last = results[results.length - 1];
      return { command, rowCount: last?.affectedRows ?? 0, rows: last?.rows ?? [] };
    }
    const res = await this.#db.query(sql, params);
    return { command, rowCount: res.affectedRows ?? 0, rows: res.rows };
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#onRelease();
  }
}

const WRITE = ['INSERT', 'UPDATE', 'DELETE', 'MERGE'];

/** Kysely only needs the command to decide whether affected rows are meaningful. */
function guessCommand(sql: string, first: string): string {
  if (WRITE.includes(first)) return first;
  if (first !== 'WITH') return first;
  const m = /\b(insert|update|delete|merge)\b/i.exec(sql);
  return m ? m[1]!.toUpperCase() : first;
}
