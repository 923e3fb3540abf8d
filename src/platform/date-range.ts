import { dateTimeFormat } from './time.ts';

/**
 * The report window shared by the income and orders reports (spec 4.1, query table). Pure: the
 * clock and the event's timezone come in, UTC instants go out. Nothing here ever errors: every
 * value clamps.
 */
export type RangeName = '30d' | '7d' | '24h' | 'month' | 'all' | 'custom';

export interface ResolvedRange {
  /** the range that ran, after clamping */
  range: RangeName;
  /** `YYYY-MM-DD`, empty unless custom */
  from: string;
  to: string;
  /** inclusive start; null: from the first record */
  start: Date | null;
  /** exclusive end; null: no end */
  end: Date | null;
}

const HOUR = 3_600_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date `YYYY-MM-DD`, or null. */
export function parseDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = DATE.exec(value);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d || y < 1970 || y > 9999) return null;
  return value;
}

/** Offset of `tz` from UTC at instant `t`, in ms (positive east of Greenwich). */
export function tzOffset(t: number, tz: string): number {
  const parts = dateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(t));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return local - Math.floor(t / 1000) * 1000;
}

/** The instant local midnight starts `date` (YYYY-MM-DD) in `tz`; exact across DST changes. */
export function zonedMidnight(date: string, tz: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d);
  let guess = wall - tzOffset(wall, tz);
  // A second pass settles days whose offset differs from the first guess's (DST change nearby).
  guess = wall - tzOffset(guess, tz);
  return new Date(guess);
}

/** `YYYY-MM-DD` of instant `t` in `tz`. */
export function localDate(t: Date, tz: string): string {
  return dateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(t);
}

export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

export function resolveRange(query: { range?: unknown; from?: unknown; to?: unknown }, now: Date, tz: string): ResolvedRange {
  const name = typeof query.range === 'string' ? query.range : '';
  const rolling = (range: RangeName, ms: number): ResolvedRange => ({
    range,
    from: '',
    to: '',
    start: new Date(now.getTime() - ms),
    end: null,
  });
  switch (name) {
    case '7d':
      return rolling('7d', 7 * 24 * HOUR);
    case '24h':
      return rolling('24h', 24 * HOUR);
    case 'month': {
      const first = `${localDate(now, tz).slice(0, 7)}-01`;
      return { range: 'month', from: '', to: '', start: zonedMidnight(first, tz), end: null };
    }
    case 'all':
      return { range: 'all', from: '', to: '', start: null, end: null };
    case 'custom': {
      let from = parseDate(query.from);
      let to = parseDate(query.to);
      if (!from && !to) break;
      if (from && to && from > to) [from, to] = [to, from];
      return {
        range: 'custom',
        from: from ?? '',
        to: to ?? '',
        start: from ? zonedMidnight(from, tz) : null,
        end: to ? zonedMidnight(addDays(to, 1), tz) : null,
      };
    }
  }
  return rolling('30d', 30 * 24 * HOUR);
}
