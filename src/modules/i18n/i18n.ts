import { formatMoney, minorDigits } from '../../platform/money.ts';
import { LruCache } from '../../platform/lru.ts';
import { dateTimeFormat } from '../../platform/time.ts';
import { consoleAdminDe } from './console-admin.de.ts';
import { consoleAdminEn, type ConsoleAdmin } from './console-admin.en.ts';
import { consoleDoorDe } from './console-door.de.ts';
import { consoleDoorEn, type ConsoleDoor } from './console-door.en.ts';
import { consoleEventsDe } from './console-events.de.ts';
import { consoleEventsEn, type ConsoleEvents } from './console-events.en.ts';
import { consoleFrameDe } from './console-frame.de.ts';
import { consoleFrameEn, type ConsoleFrame } from './console-frame.en.ts';
import { consoleOrdersDe } from './console-orders.de.ts';
import { consoleOrdersEn, type ConsoleOrders } from './console-orders.en.ts';
import { consoleReportsDe } from './console-reports.de.ts';
import { consoleReportsEn, type ConsoleReports } from './console-reports.en.ts';
import { consoleWebhooksDe } from './console-webhooks.de.ts';
import { consoleWebhooksEn, type ConsoleWebhooks } from './console-webhooks.en.ts';
import { consoleWaitlistDe } from './console-waitlist.de.ts';
import { consoleWaitlistEn, type ConsoleWaitlist } from './console-waitlist.en.ts';
import { consoleInvoicesDe } from './console-invoices.de.ts';
import { consoleInvoicesEn, type ConsoleInvoices } from './console-invoices.en.ts';
import { consoleScannerDe } from './console-scanner.de.ts';
import { consoleScannerEn, type ConsoleScanner } from './console-scanner.en.ts';
import { consoleSeatingDe } from './console-seating.de.ts';
import { consoleSeatingEn, type ConsoleSeating } from './console-seating.en.ts';
import { consoleWalletDe } from './console-wallet.de.ts';
import { consoleWalletEn, type ConsoleWallet } from './console-wallet.en.ts';
import { consoleMessagesDe } from './console-messages.de.ts';
import { consoleMessagesEn, type ConsoleMessagesTab } from './console-messages.en.ts';
import { consoleEmptyDe } from './console-empty.de.ts';
import { consoleEmptyEn, type ConsoleEmpty } from './console-empty.en.ts';
import { de } from './messages.de.ts';
import { en, type Messages } from './messages.en.ts';

/**
 * The buyer side's languages. A page or mail speaks one catalogue language (`lang`) and formats
 * money and dates with `Intl` for a full tag (`tag`): a buyer whose browser asks for de-AT reads
 * the German catalogue with Austrian formats. The choice, first that applies:
 * 1. an explicit choice: `?lang=` on a page, or the language an order was bought in;
 * 2. the buyer's `Accept-Language`, in its order of preference, among the catalogues;
 * 3. the event's `locale` when a catalogue speaks it;
 * 4. English.
 */
export const CATALOGUES = { en, de } as const satisfies Record<string, Messages>;
export type Lang = keyof typeof CATALOGUES;
export const LANGS = Object.keys(CATALOGUES) as Lang[];

/**
 * The organiser console's messages, in the same languages as the buyer's (a catalogue per
 * language, in parts by area; the parts' keys never overlap, which the tests check).
 */
export type ConsoleMessages = ConsoleFrame &
  ConsoleEvents &
  ConsoleOrders &
  ConsoleDoor &
  ConsoleAdmin &
  ConsoleSeating &
  ConsoleWallet &
  ConsoleReports &
  ConsoleWebhooks &
  ConsoleWaitlist &
  ConsoleInvoices &
  ConsoleScanner &
  ConsoleMessagesTab &
  ConsoleEmpty;
export const CONSOLE_PARTS = {
  en: [
    ...[consoleFrameEn, consoleEventsEn, consoleOrdersEn, consoleDoorEn, consoleAdminEn, consoleSeatingEn, consoleWalletEn],
    ...[consoleScannerEn, consoleInvoicesEn, consoleWaitlistEn, consoleWebhooksEn, consoleReportsEn, consoleMessagesEn],
    consoleEmptyEn,
  ],
  de: [
    ...[consoleFrameDe, consoleEventsDe, consoleOrdersDe, consoleDoorDe, consoleAdminDe, consoleSeatingDe, consoleWalletDe],
    ...[consoleScannerDe, consoleInvoicesDe, consoleWaitlistDe, consoleWebhooksDe, consoleReportsDe, consoleMessagesDe],
    consoleEmptyDe,
  ],
} as const satisfies Record<Lang, readonly object[]>;
export const CONSOLE_CATALOGUES: Record<Lang, ConsoleMessages> = {
  en: {
    ...consoleFrameEn,
    ...consoleEventsEn,
    ...consoleOrdersEn,
    ...consoleDoorEn,
    ...consoleAdminEn,
    ...consoleSeatingEn,
    ...consoleWalletEn,
    ...consoleReportsEn,
    ...consoleWebhooksEn,
    ...consoleWaitlistEn,
    ...consoleInvoicesEn,
    ...consoleScannerEn,
    ...consoleMessagesEn,
    ...consoleEmptyEn,
  },
  de: {
    ...consoleFrameDe,
    ...consoleEventsDe,
    ...consoleOrdersDe,
    ...consoleDoorDe,
    ...consoleAdminDe,
    ...consoleSeatingDe,
    ...consoleWalletDe,
    ...consoleReportsDe,
    ...consoleWebhooksDe,
    ...consoleWaitlistDe,
    ...consoleInvoicesDe,
    ...consoleScannerDe,
    ...consoleMessagesDe,
    ...consoleEmptyDe,
  },
};

export interface Locale {
  lang: Lang;
  /** the BCP 47 tag `Intl` formats with */
  tag: string;
  m: Messages;
  money(amountMinor: number, currency: string): string;
  /** a moment in the event's timezone: "Sat, 19 Jun 2027, 18:00 (Europe/Berlin)" in en-GB */
  dateTime(at: Date | string, timezone: string): string;
}

/** The tag in canonical form, or null when it is not a well-formed BCP 47 tag. */
function canonical(tag: string): string | null {
  if (!tag || tag.length > 35 || tag === '*') return null;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

function langOf(tag: string): Lang | null {
  const primary = tag.split('-')[0]!.toLowerCase();
  return (LANGS as string[]).includes(primary) ? (primary as Lang) : null;
}

/** Accept-Language's tags, most preferred first (q=0 and malformed entries left out). */
export function parseAcceptLanguage(header: string | undefined): string[] {
  if (!header) return [];
  const entries: Array<{ tag: string; q: number; i: number }> = [];
  header
    .split(',')
    .slice(0, 32)
    .forEach((part, i) => {
      const [rawTag = '', ...params] = part.trim().split(';');
      let q = 1;
      for (const p of params) {
        const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(p);
        if (m) q = Number(m[1]);
      }
      const tag = canonical(rawTag.trim());
      if (tag && q > 0) entries.push({ tag, q, i });
    });
  return entries.sort((a, b) => b.q - a.q || a.i - b.i).map((e) => e.tag);
}

export interface LocaleChoice {
  /** `?lang=` or the order's recorded language */
  choice?: string | null | undefined;
  acceptLanguage?: string | undefined;
  /** the event's `locale` */
  fallback?: string | null | undefined;
}

/**
 * Negotiated locales by what they were chosen from. Every page view negotiates, and parsing the
 * Accept-Language header and canonicalising each tag through `Intl` was a few per cent of the
 * event page's time; a browser sends the same header with each request. Bounded by the keys'
 * length, since the header is the client's to make long.
 */
const negotiated = new LruCache<string, Locale>(256 * 1024);

export function negotiate(c: LocaleChoice): Locale {
  const key = `${c.choice ?? ''}\u0000${c.acceptLanguage ?? ''}\u0000${c.fallback ?? ''}`;
  const hit = negotiated.get(key);
  if (hit) return hit;
  const locale = negotiateAfresh(c);
  negotiated.set(key, locale, key.length + 64);
  return locale;
}

function negotiateAfresh(c: LocaleChoice): Locale {
  const explicit = c.choice ? canonical(c.choice) : null;
  if (explicit && langOf(explicit)) return localeOf(explicit);
  for (const tag of parseAcceptLanguage(c.acceptLanguage)) if (langOf(tag)) return localeOf(tag);
  const fallback = c.fallback ? canonical(c.fallback) : null;
  if (fallback && langOf(fallback)) return localeOf(fallback);
  return localeOf('en');
}

/** Locales by the tag asked for (browsers send many spellings), the least recently used dropped past 500. */
const locales = new LruCache<string, Locale>(500);

/** The locale of a tag (its catalogue by primary language, English when none); made once per tag. */
export function localeOf(tag: string): Locale {
  const hit = locales.get(tag);
  if (hit) return hit;
  const canon = canonical(tag) ?? 'en';
  const known = langOf(canon);
  // a tag no catalogue speaks is English throughout, its formats included
  const lang = known ?? 'en';
  const formatTag = known ? canon : 'en';
  const moneyFormats = new Map<string, { format: Intl.NumberFormat; digits: number } | null>();
  const locale: Locale = {
    lang,
    tag: formatTag,
    m: CATALOGUES[lang],
    money(amount, currency) {
      let f = moneyFormats.get(currency);
      if (f === undefined) {
        const digits = minorDigits(currency);
        try {
          const format = new Intl.NumberFormat(formatTag, {
            style: 'currency',
            currency: currency.toUpperCase(),
            minimumFractionDigits: digits,
            maximumFractionDigits: digits,
          });
          f = { format, digits };
        } catch {
          f = null;
        }
        moneyFormats.set(currency, f);
      }
      if (!f) return formatMoney(amount, currency);
      // an exact decimal string: no binary fraction between the integer and the text
      return f.format.format(decimalString(amount, f.digits) as unknown as number);
    },
    dateTime(at, timezone) {
      const f = dateTimeFormat(formatTag, {
        timeZone: timezone,
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
      });
      return `${f.format(new Date(at))} (${timezone})`;
    },
  };
  locales.set(tag, locale, 1);
  return locale;
}

/** 1250 with 2 digits -> "12.50"; -5 -> "-0.05". */
export function decimalString(amount: number, digits: number): string {
  const neg = amount < 0;
  const s = String(Math.abs(Math.trunc(amount))).padStart(digits + 1, '0');
  const body = digits ? `${s.slice(0, -digits)}.${s.slice(-digits)}` : s;
  return neg ? `-${body}` : body;
}

/** A link per catalogue language, the current one marked: the buyer pages' language switch. */
export function languageLinks(
  current: Locale,
  hrefFor: (lang: Lang) => string,
): Array<{ lang: Lang; name: string; href: string; current: boolean }> {
  return LANGS.map((lang) => ({
    lang,
    name: CATALOGUES[lang].languageName,
    href: hrefFor(lang),
    current: lang === current.lang,
  }));
}
