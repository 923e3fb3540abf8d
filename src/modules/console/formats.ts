import { dateTimeFormat } from '../../platform/time.ts';
import { localeOf } from '../i18n/i18n.ts';

// The console's one way to write money, moments and counts, so an amount reads "€18.50" and a time
// "27 Nov 2026, 18:14" on every page, as buyers see them (not "18.50 EUR" beside "27/11/2026").

const LOCALE = 'en-GB';

/** An amount as buyers see it: "€18.50", "¥1,200", "KWD 1.250". */
export function money(cents: number, currency: string): string {
  return localeOf(LOCALE).money(cents, currency);
}

/** A moment in `tz`: "27 Nov 2026, 18:14"; '' for none. */
export function when(at: Date | string | null | undefined, tz: string): string {
  if (at === null || at === undefined || at === '') return '';
  return dateTimeFormat(LOCALE, { timeZone: tz, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at));
}

/** A moment in UTC, said so: "27 Nov 2026, 18:14 UTC" (for what belongs to no event: tokens, deliveries). */
export function whenUtc(at: Date | string | null | undefined): string {
  const s = when(at, 'UTC');
  return s && `${s} UTC`;
}

/** A count with thousands separated: "12,345". */
export function count(n: number): string {
  return n.toLocaleString(LOCALE);
}
