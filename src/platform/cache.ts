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
  private readonly entries: LruCache<string, { value: Promise<V>; at: number }>;

  constructor(
    private readonly ttlMs: number,
    maxBytes = DEFAULT_CACHE_BYTES,
    private readonly sizeOf: (value: V) => number = approximateBytes,
    /** while this feed is live, entries are kept for its longer time (see followedCacheOf) */
    private readonly feed?: ChangeFeed,
  ) {
    this.entries = new LruCache(maxBytes);
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    if (this.ttlMs <= 0) return load();
    const now = performance.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < (this.feed && this.feed.liveUntil > now ? FOLLOWED_MS : this.ttlMs)) return hit.value;
    const entry = { value: load(), at: now };
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

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Keeps a value loaded elsewhere, as if `get` had just loaded it. */
  put(key: string, value: V): void {
    if (this.ttlMs <= 0) return;
    const bytes = 16 + key.length + LOADING_BYTES + this.sizeOf(value);
    this.entries.set(key, { value: Promise.resolve(value), at: performance.now() }, bytes);
  }

  /** Forgets the entries whose keys start with one of these prefixes. */
  forget(prefixes: Set<string>): void {
    const gone: string[] = [];
    for (const key of this.entries.keys()) {
      const slash = key.indexOf('/');
      if (slash > 0 && prefixes.has(key.slice(0, slash + 1))) gone.push(key);
    }
    for (const key of gone) this.entries.delete(key);
  }
}

/**
 * How long a followed cache keeps an entry while its change feed is live: long, because the feed
 * forgets an account's entries when its catalogue changes; bounded, so that a change the feed
 * somehow missed is not kept for ever.
 */
export const FOLLOWED_MS = 5 * 60_000;

/** A live feed's polls: each successful one keeps it live this long (a few missed polls). */
export const FEED_GRACE_MS = 2_000;

/**
 * What an instance knows of the catalogue's changes (platform/cache-feed.ts polls for them): the
 * oldest transaction it may not have seen yet, and until when its last poll vouches for the
 * followed caches (performance.now() time; 0 before the first poll, or after a failed one).
 */
export interface ChangeFeed {
  xmin: string | null;
  liveUntil: number;
  /** the change last forgotten per account, while it is still in the polls' range */
  seen: Map<string, string>;
  /**
   * How many times the followed caches forgot something: a value loaded outside them may be kept
   * in one only if this did not move while it loaded (no change it might predate was forgotten).
   */
  forgets: number;
}

const registry = new WeakMap<Db, Map<string, TtlCache<unknown>>>();
const followed = new WeakMap<Db, Map<string, TtlCache<unknown>>>();
const feeds = new WeakMap<Db, ChangeFeed>();

/** The change feed of this database handle, made on first use (not live until polled). */
export function changeFeedOf(db: Db): ChangeFeed {
  return perDb(feeds, db, () => ({ xmin: null, liveUntil: 0, seen: new Map(), forgets: 0 }));
}

/**
 * The named cache of this database handle (one per process and database), holding at most
 * `maxBytes` (DEFAULT_CACHE_BYTES unless given).
 */
export function cacheOf<V>(db: Db, name: string, ttlMs: number, maxBytes?: number): TtlCache<V> {
  return namedCache<V>(registry, db, `${name}:${ttlMs}`, () => new TtlCache<unknown>(ttlMs, maxBytes));
}

/** What `store` holds for this database handle (one per process and database), made on first use. */
export function perDb<T>(store: WeakMap<Db, T>, db: Db, make: () => T): T {
  let value = store.get(db);
  if (value === undefined) store.set(db, (value = make()));
  return value;
}

/** The cache `key` of this handle in one of the registries above, made by `make` on first use. */
function namedCache<V>(
  caches: WeakMap<Db, Map<string, TtlCache<unknown>>>,
  db: Db,
  key: string,
  make: () => TtlCache<unknown>,
): TtlCache<V> {
  const named = perDb(caches, db, () => new Map<string, TtlCache<unknown>>());
  let cache = named.get(key);
  if (!cache) named.set(key, (cache = make()));
  return cache as TtlCache<V>;
}

/**
 * A named cache of what an account's catalogue or tokens say (the event rows, ticket types, goods,
 * sessions and donations of migration 0037's triggers, the API tokens of 0038's): keys start with
 * `<account id>/`. It keeps an entry `ttlMs` like any other, and FOLLOWED_MS while the change feed
 * is live: the feed forgets an account's entries when another transaction changed them.
 */
export function followedCacheOf<V>(db: Db, name: string, ttlMs: number): TtlCache<V> {
  return namedCache<V>(
    followed,
    db,
    name,
    () => new TtlCache<unknown>(ttlMs, DEFAULT_CACHE_BYTES, approximateBytes, changeFeedOf(db)),
  );
}

/** Forgets what the followed caches hold of these accounts (their catalogue changed). */
export function forgetAccounts(db: Db, accountIds: Iterable<number | string>): void {
  const prefixes = new Set([...accountIds].map((id) => `${id}/`));
  if (prefixes.size === 0) return;
  changeFeedOf(db).forgets++;
  for (const cache of followed.get(db)?.values() ?? []) cache.forget(prefixes);
}

/** Forgets everything the followed caches hold. */
export function clearFollowedCaches(db: Db): void {
  changeFeedOf(db).forgets++;
  for (const cache of followed.get(db)?.values() ?? []) cache.clear();
}

/** Forgets everything cached for this database handle (after an import changed the catalogue). */
export function clearCaches(db: Db): void {
  for (const cache of registry.get(db)?.values() ?? []) cache.clear();
  clearFollowedCaches(db);
}
