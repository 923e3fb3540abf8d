import type { Db } from './db/database.ts';
import { approximateBytes, LruCache } from './lru.ts';

/** What one named cache may hold unless its user says otherwise. */
export const DEFAULT_CACHE_BYTES = 8 * 1024 * 1024;

/** What an entry weighs while its value is still loading (its key, the promise, the entry). */
const LOADING_BYTES = 128;

/**
 * A small read-through cache with a time to live, per process. It holds only what the database
 * already says (tokens, event and catalogue rows), never state of its own: another instance, or
 * this one after the TTL, reads the database again. Concurrent misses for one key share one load.
 * A failed load is not kept.
 *
 * Bounded by bytes, least recently used first (platform/lru.ts): on a platform with many
 * accounts and events a cache keeps what is asked for often and lets the long tail go, whatever
 * the number of keys. Entries past their TTL stay until read again or pushed out.
 */
export class TtlCache<V> {
  private readonly entries: LruCache<string, { value: Promise<V>; until: number }>;

  constructor(
    private readonly ttlMs: number,
    maxBytes = DEFAULT_CACHE_BYTES,
    private readonly sizeOf: (value: V) => number = approximateBytes,
  ) {
    this.entries = new LruCache(maxBytes);
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    if (this.ttlMs <= 0) return load();
    const now = performance.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    const entry = { value: load(), until: now + this.ttlMs };
    const keyBytes = 16 + key.length;
    this.entries.set(key, entry, keyBytes + LOADING_BYTES);
    entry.value.then(
      (value) => {
        if (this.entries.peek(key) === entry) this.entries.resize(key, keyBytes + LOADING_BYTES + this.sizeOf(value));
      },
      () => {
        if (this.entries.peek(key) === entry) this.entries.delete(key);
      },
    );
    return entry.value;
  }

  /** The number of entries and their bytes, as estimated (for tests and metrics). */
  get held(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.entries.bytes };
  }

  clear(): void {
    this.entries.clear();
  }
}

const registry = new WeakMap<Db, Map<string, TtlCache<unknown>>>();

/**
 * The named cache of this database handle (one per process and database), holding at most
 * `maxBytes` (DEFAULT_CACHE_BYTES unless given).
 */
export function cacheOf<V>(db: Db, name: string, ttlMs: number, maxBytes?: number): TtlCache<V> {
  let named = registry.get(db);
  if (!named) registry.set(db, (named = new Map()));
  const key = `${name}:${ttlMs}`;
  let cache = named.get(key);
  if (!cache) named.set(key, (cache = new TtlCache<unknown>(ttlMs, maxBytes)));
  return cache as TtlCache<V>;
}

/** Forgets everything cached for this database handle (after an import changed the catalogue). */
export function clearCaches(db: Db): void {
  for (const cache of registry.get(db)?.values() ?? []) cache.clear();
}
