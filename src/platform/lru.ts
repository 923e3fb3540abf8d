/**
 * A map that keeps at most `maxBytes` of values, dropping the least recently used first. What a
 * process caches per event, account or token grows with everything it was ever asked for: on a
 * platform of 100,000 events a cache bounded by its number of entries holds either too few pages
 * to help or enough to run the process out of memory, depending on how big each one is. Bounded by
 * bytes, it holds as many as fit.
 *
 * Each entry's size is given by the caller, and may be given later (`resize`): a cache of
 * promises knows the size of a value only once it has loaded. A Map keeps insertion order, so the
 * least recently used entry is the first one: a hit moves its entry to the end.
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, { value: V; bytes: number }>();
  #bytes = 0;

  constructor(readonly maxBytes: number) {}

  /** The number of entries held. */
  get size(): number {
    return this.#entries.size;
  }

  /** The sum of the held entries' sizes. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The value, which becomes the most recently used. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** The value, leaving the order of use as it is. */
  peek(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /**
   * Keeps the value as the most recently used, then drops the least recently used entries until
   * the whole fits. A value larger than the whole budget is not kept (nor is what the key held).
   */
  set(key: K, value: V, bytes: number): void {
    this.delete(key);
    if (!(bytes <= this.maxBytes)) return;
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    this.#evict();
  }

  /** Gives an entry its size once known (a loaded value); it keeps its place in the order of use. */
  resize(key: K, bytes: number): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    if (!(bytes <= this.maxBytes)) {
      this.delete(key);
      return;
    }
    this.#bytes += bytes - entry.bytes;
    entry.bytes = bytes;
    this.#evict(key);
  }

  delete(key: K): boolean {
    const entry = this.#entries.get(key);
    if (!entry) return false;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    return true;
  }

  /** The keys, least recently used first. */
  keys(): IterableIterator<K> {
    return this.#entries.keys();
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  /** Drops the least recently used entries (never `keep`, the one just sized) until the whole fits. */
  #evict(keep?: K): void {
    if (this.#bytes <= this.maxBytes) return;
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) return;
      if (key === keep) continue;
      this.#entries.delete(key);
      this.#bytes -= entry.bytes;
    }
  }
}

/**
 * About how many bytes of heap a value holds, counting what it references (each object once):
 * database rows, their lists and maps, strings, buffers. An estimate of V8's layout on 64-bit
 * (pointers compressed or not, headers of 16-24 bytes), not a measurement: it is there to weigh
 * cache entries against each other and against a budget, within a factor of about two.
 */
export function approximateBytes(value: unknown): number {
  const seen = new Set<object>();
  let total = 0;
  const stack: unknown[] = [value];
  // enough for a hall of 100,000 seats; a pathological graph is cut off rather than walked for long
  let budget = 2_000_000;
  while (stack.length && budget-- > 0) {
    const v = stack.pop();
    switch (typeof v) {
      case 'string':
        // one byte a character while the text is Latin-1, two otherwise
        total += 16 + (/[^\u0000-\u00ff]/.test(v) ? 2 * v.length : v.length);
        continue;
      case 'number':
      case 'bigint':
        total += 8;
        continue;
      case 'function':
        total += 64;
        continue;
      case 'object':
        break;
      default:
        continue;
    }
    if (v === null || seen.has(v as object)) continue;
    seen.add(v as object);
    if (ArrayBuffer.isView(v)) {
      total += 96 + v.byteLength;
    } else if (v instanceof ArrayBuffer) {
      total += 64 + v.byteLength;
    } else if (v instanceof Date) {
      total += 32;
    } else if (Array.isArray(v)) {
      total += 16 + 8 * v.length;
      for (const x of v) stack.push(x);
    } else if (v instanceof Map) {
      total += 32 + 24 * v.size;
      for (const [k, x] of v) stack.push(k, x);
    } else if (v instanceof Set) {
      total += 32 + 16 * v.size;
      for (const x of v) stack.push(x);
    } else if (v instanceof Promise) {
      total += 48;
    } else {
      const keys = Object.keys(v as object);
      total += 24 + 16 * keys.length;
      for (const k of keys) stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return total;
}
