import { createHash } from 'node:crypto';
import type pg from 'pg';
import { observePoolWait } from '../metrics.ts';

interface KyselyClient {
  query(sql: string, params: unknown[]): Promise<pg.QueryResult>;
  release(destroy?: boolean | Error): void;
}

/**
 * Statements that begin with this comment are prepared once per connection and then only bound
 * and executed: PostgreSQL parses and plans an unnamed statement again on every execution, 1.3 to
 * 1.9 ms of the 3.6 to 4.3 ms the one-statement order write takes here at one client. Only for
 * statements of a fixed shape that run outside a transaction (a failed preparation is retried
 * unnamed, which inside a transaction would meet the transaction already aborted).
 */
export const PREPARE = '/* prepare */ ';

/** Distinct texts given a name at most; beyond it they run unnamed (each name lives per connection). */
const MAX_NAMES = 64;

/**
 * PostgreSQL's answers when a named statement cannot be used: it does not exist on this server
 * connection, or exists already (a transaction-mode pooler such as PgBouncer before 1.21 hands the
 * statement to another server connection than the one it was prepared on), or its cached plan no
 * longer fits the table (a migration changed a column while this process ran).
 */
function unusable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '26000' || e?.code === '42P05' || (e?.code === '0A000' && /cached plan/.test(e.message ?? ''));
}

/**
 * A pg Pool as Kysely's PostgresDialect uses it, whose clients run each query in pg's callback
 * form. pg's promise-returning `client.query` keeps result rows reachable longer: walking a
 * million orders in 2,000-row batches through Kysely (`node --trace-gc-nvp`) promoted 480 MB of
 * row data to the old generation with it, 30 MB in the callback form, and took 8.6 against 5.6 s.
 * Promoted rows are garbage only a full collection frees: the server's heap, and its resident
 * memory, grew by some 140 MB through a CSV export of that size.
 *
 * Statements marked with PREPARE run as named (prepared) statements, until PostgreSQL or a pooler
 * in front of it refuses one: then that statement runs again unnamed, and so does every marked
 * statement after it in this process.
 */
export class CallbackQueryPool {
  readonly #pool: pg.Pool;
  readonly #clients = new WeakMap<pg.PoolClient, KyselyClient>();
  readonly #names = new Map<string, string>();
  #prepare = true;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** False once a named statement was refused: marked statements then run unnamed. */
  get preparing(): boolean {
    return this.#prepare;
  }

  async connect(): Promise<KyselyClient> {
    const asked = performance.now();
    const client = await this.#pool.connect();
    observePoolWait((performance.now() - asked) / 1000);
    let wrapped = this.#clients.get(client);
    if (!wrapped) {
      const run = (config: pg.QueryConfig) =>
        new Promise<pg.QueryResult>((resolve, reject) =>
          client.query(config, (err: Error | null, res: pg.QueryResult) => (err ? reject(err) : resolve(res))),
        );
      wrapped = {
        query: (text, values) => {
          const name = this.#nameOf(text);
          if (!name) return run({ text, values });
          return run({ name, text, values }).catch((err: unknown) => {
            if (!unusable(err)) throw err;
            this.#prepare = false;
            return run({ text, values });
          });
        },
        release: (destroy) => client.release(destroy),
      };
      this.#clients.set(client, wrapped);
    }
    return wrapped;
  }

  #nameOf(text: string): string | undefined {
    if (!this.#prepare || !text.startsWith(PREPARE)) return undefined;
    let name = this.#names.get(text);
    if (name === undefined && this.#names.size < MAX_NAMES) {
      // the same text has the same name in every process, so a statement a pooler's server
      // connection already holds under this name is this very statement
      name = `admit_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
      this.#names.set(text, name);
    }
    return name;
  }

  end(): Promise<void> {
    return this.#pool.end();
  }
}
