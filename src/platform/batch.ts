import { perDb } from './cache.ts';
import type { Db } from './db/database.ts';

/**
 * Gathers loads of one key into loads of many (a DataLoader that waits for the database rather
 * than for a tick): a load goes at once while fewer than `concurrency` are running; one asked for
 * while they run waits, and every key waiting then goes in one statement when one ends. Alone, a
 * load waits for nothing; under load, many requests missing a cache at once (an instance just
 * started, meeting a thousand events in its first second) cost a few statements instead of one
 * each, and a statement costs the server and the database far more than a row.
 *
 * `loadMany` gets the keys (duplicates possible) and answers one value per key, in their order.
 * A failed statement fails every load in it; nothing is kept.
 */
export class Batcher<K, V> {
  private readonly waiting: Array<{ key: K; resolve: (v: V) => void; reject: (err: unknown) => void }> = [];
  private running = 0;

  constructor(
    private readonly loadMany: (keys: K[]) => Promise<V[]>,
    private readonly concurrency = 2,
    private readonly maxBatch = 256,
  ) {}

  load(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      this.waiting.push({ key, resolve, reject });
      if (this.running < this.concurrency) this.next();
    });
  }

  private next(): void {
    const batch = this.waiting.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    this.running++;
    Promise.resolve()
      .then(() => this.loadMany(batch.map((b) => b.key)))
      .then((values) => {
        if (values.length !== batch.length) throw new Error(`${batch.length} keys got ${values.length} values`);
        batch.forEach((b, i) => b.resolve(values[i]!));
      })
      .catch((err: unknown) => batch.forEach((b) => b.reject(err)))
      .finally(() => {
        this.running--;
        this.next();
      });
  }
}

/** The batcher kept in `store` for this database handle (one per process and database), made on first use. */
export function batcherOf<K, V>(
  store: WeakMap<Db, Batcher<K, V>>,
  db: Db,
  loadMany: (db: Db, keys: K[]) => Promise<V[]>,
): Batcher<K, V> {
  return perDb(store, db, () => new Batcher<K, V>((keys) => loadMany(db, keys)));
}
