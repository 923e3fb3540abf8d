/** RFC 3339 in UTC, without a fractional part when it is zero. */
export function iso(d: Date | string): string;
export function iso(d: Date | string | null | undefined): string | null;
export function iso(d: Date | string | null | undefined): string | null {
  if (d === null || d === undefined) return null;
  return new Date(d).toISOString().replace('.000Z', 'Z');
}

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * An `Intl.DateTimeFormat`, made once per locale and options and kept. Making one costs tens of
 * microseconds and memory outside the JavaScript heap that is given back late: a report that
 * made one per row (730 days of a dashboard, a quarter hour per CSV row) grew the process by
 * hundreds of megabytes. Bounded: the cache starts over past 1,000 combinations.
 */
export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}\u0000${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (!f) {
    if (formats.size >= 1_000) formats.clear();
    f = new Intl.DateTimeFormat(locale, options);
    formats.set(key, f);
  }
  return f;
}
