import { LruCache } from './lru.ts';

/** RFC 3339 in UTC, without a fractional part when it is zero. */
export function iso(d: Date | string): string;
export function iso(d: Date | string | null | undefined): string | null;
export function iso(d: Date | string | null | undefined): string | null {
  if (d === null || d === undefined) return null;
  return new Date(d).toISOString().replace('.000Z', 'Z');
}

/** Formatters by locale and options, the least recently used dropped past 1,000 of them. */
const formats = new LruCache<string, Intl.DateTimeFormat>(1_000);

/**
 * An `Intl.DateTimeFormat`, made once per locale and options and kept. Making one costs tens of
 * microseconds and memory outside the JavaScript heap that is given back late: a report that
 * made one per row (730 days of a dashboard, a quarter hour per CSV row) grew the process by
 * hundreds of megabytes. Bounded by count (each weighs 1): their memory is outside the heap, where
 * it cannot be estimated, and the combinations in use (languages, time zones) are few.
 */
export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}\u0000${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, options);
    formats.set(key, f, 1);
  }
  return f;
}
