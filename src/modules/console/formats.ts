import { dateTimeFormat } from '../../platform/time.ts';
import { localeOf } from '../i18n/i18n.ts';
import { formatTag } from './console-lang.ts';

// The console's one way to write money, moments and counts, so an amount reads "€18.50" and a time
// "27 Nov 2026, 18:14" on every page, as buyers see them (not "18.50 EUR" beside "27/11/2026");
// in German "18,50 €" and "27. Nov. 2026, 18:14".

/** An amount as buyers see it: "€18.50", "¥1,200", "KWD 1.250" ("18,50 €" in German). */
export function money(cents: number, currency: string): string {
  return localeOf(formatTag()).money(cents, currency);
}

/** A moment in `tz`: "27 Nov 2026, 18:14"; '' for none. */
export function when(at: Date | string | null | undefined, tz: string): string {
  if (at === null || at === undefined || at === '') return '';
  return dateTimeFormat(formatTag(), {
    timeZone: tz,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  }).format(new Date(at));
}

/** The day of a moment in `tz`: "27 Nov 2026" ("27. Nov. 2026" in German); '' for none. */
export function day(at: Date | string | null | undefined, tz: string): string {
  if (at === null || at === undefined || at === '') return '';
  return dateTimeFormat(formatTag(), { timeZone: tz, day: 'numeric', month: 'short', year: 'numeric' }).format(new Date(at));
}

/** A moment in UTC, said so: "27 Nov 2026, 18:14 UTC" (for what belongs to no event: tokens, deliveries). */
export function whenUtc(at: Date | string | null | undefined): string {
  const s = when(at, 'UTC');
  return s && `${s} UTC`;
}

/** A count with thousands separated: "12,345" ("12.345" in German). */
export function count(n: number): string {
  return n.toLocaleString(formatTag());
}
