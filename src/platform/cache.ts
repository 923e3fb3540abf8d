import type { Db } from './db/database.ts';

/**
 * A small read-through cache with a time to live, per process. It holds only what the database
 * already says (tokens, event and catalogue rows), never state of its own: another instance, or
 * this one after the TTL, reads the database again. Concurrent misses for one key share one load.
 * A failed load is not kept.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    if (this.ttlMs <= 0) return load();
    const now = performance.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const entry = { value: load(), until: now + this.ttlMs };
    this.entries.set(key, entry);
    entry.value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.value;
  }

  clear(): void {
    this.entries.clear();
  }
}

const registry = new WeakMap<Db, Map<string, TtlCache<unknown>>>();

/** The named cache of this database handle (one per process and database). */
export function cacheOf<V>(db: Db, name: string, ttlMs: number, maxEntries?: number): TtlCache<V> {
  let named = registry.get(db);
  if (!named) registry.set(db, (named = new Map()));
  const key = `${name}:${ttlMs}`;
  let cache = named.get(key);
  if (!cache) named.set(key, (cache = new TtlCache<unknown>(ttlMs, maxEntries)));
  return cache as TtlCache<V>;
}

/** Forgets everything cached for this database handle (after an import changed the catalogue). */
export function clearCaches(db: Db): void {
  for (const cache of registry.get(db)?.values() ?? []) cache.clear();
}
