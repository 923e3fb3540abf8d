import { describe, expect, it } from 'vitest';
import {
  CATALOGUES,
  CONSOLE_CATALOGUES,
  CONSOLE_PARTS,
  decimalString,
  localeOf,
  negotiate,
  parseAcceptLanguage,
} from './i18n.ts';
import { en } from './messages.en.ts';
import { consoleScannerEn } from './console-scanner.en.ts';

describe('Accept-Language', () => {
  it('orders tags by q, then by position; drops q=0, wildcards and malformed tags', () => {
    expect(parseAcceptLanguage('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5')).toEqual(['fr-CH', 'fr', 'en', 'de']);
    expect(parseAcceptLanguage('de;q=0.5, en;q=0')).toEqual(['de']);
    expect(parseAcceptLanguage('en-us, DE-at;q=0.9')).toEqual(['en-US', 'de-AT']);
    expect(parseAcceptLanguage('!!, de')).toEqual(['de']);
    expect(parseAcceptLanguage(undefined)).toEqual([]);
    expect(parseAcceptLanguage('')).toEqual([]);
  });
});

describe('negotiate', () => {
  it('takes an explicit choice, then the browser among the catalogues, then the event, then English', () => {
    expect(negotiate({ choice: 'de', acceptLanguage: 'en', fallback: 'en' }).tag).toBe('de');
    expect(negotiate({ choice: 'xx', acceptLanguage: 'ja, de-CH;q=0.5', fallback: 'en' }).tag).toBe('de-CH');
    expect(negotiate({ acceptLanguage: 'ja, fr', fallback: 'de' }).tag).toBe('de');
    expect(negotiate({ acceptLanguage: 'ja', fallback: 'fr' }).tag).toBe('en');
    expect(negotiate({}).lang).toBe('en');
    expect(negotiate({ choice: 'not a tag!' }).lang).toBe('en');
  });

  it('formats money and dates for the full tag, with the catalogue of its language', () => {
    const at = localeOf('de-AT');
    expect(at.lang).toBe('de');
    expect(at.m).toBe(CATALOGUES.de);
    expect(at.money(2500, 'eur')).toBe('€\u00a025,00');
    expect(localeOf('de').money(123456, 'eur')).toBe('1.234,56\u00a0€');
    expect(localeOf('en-GB').money(123456, 'gbp')).toBe('£1,234.56');
    expect(localeOf('en').money(1200, 'jpy')).toBe('¥1,200');
    expect(localeOf('de').money(1250, 'kwd')).toBe('1,250\u00a0KWD');
    expect(localeOf('de').dateTime('2027-05-01T16:00:00Z', 'Europe/Berlin')).toBe('Sa., 1. Mai 2027, 18:00 (Europe/Berlin)');
    expect(localeOf('en-GB').dateTime('2027-05-01T16:00:00Z', 'Europe/London')).toBe('Sat, 1 May 2027, 17:00 (Europe/London)');
  });

  it('keeps amounts exact beyond what a binary fraction holds', () => {
    expect(decimalString(900719925474099, 2)).toBe('9007199254740.99');
    expect(localeOf('en').money(900719925474099, 'usd')).toBe('$9,007,199,254,740.99');
    expect(decimalString(5, 2)).toBe('0.05');
    expect(decimalString(-5, 2)).toBe('-0.05');
    expect(decimalString(7, 0)).toBe('7');
    expect(decimalString(1250, 3)).toBe('1.250');
  });
});

describe('catalogues', () => {
  it('every catalogue has every message of the English one, of the same kind, and none is left in English by mistake', () => {
    for (const [lang, messages] of Object.entries(CATALOGUES)) {
      expect(Object.keys(messages).sort(), lang).toEqual(Object.keys(en).sort());
      for (const [key, value] of Object.entries(en)) {
        const other = (messages as Record<string, unknown>)[key];
        expect(typeof other, `${lang}.${key}`).toBe(typeof value);
        if (typeof value === 'string') expect((other as string).length, `${lang}.${key}`).toBeGreaterThan(0);
      }
    }
    // words that are the same in German and English; anything else equal to the English is a miss
    const same = new Set(['name', 'tickets', 'extras', 'pdfTicket']);
    for (const [key, value] of Object.entries(en))
      if (typeof value === 'string' && !same.has(key)) expect(CATALOGUES.de[key as keyof typeof en], key).not.toBe(value);
  });
});

describe('console catalogues', () => {
  it('every language has every console message of the English one, of the same kind, none left in English by mistake', () => {
    const enConsole = CONSOLE_CATALOGUES.en;
    for (const [lang, messages] of Object.entries(CONSOLE_CATALOGUES)) {
      expect(Object.keys(messages).sort(), lang).toEqual(Object.keys(enConsole).sort());
      for (const [key, value] of Object.entries(enConsole)) {
        const other = (messages as Record<string, unknown>)[key];
        expect(typeof other, `${lang}.${key}`).toBe(typeof value);
        if (typeof value === 'string') expect((other as string).length, `${lang}.${key}`).toBeGreaterThan(0);
        // a message with parts takes as many in every language
        if (typeof value === 'function')
          expect((other as (...a: unknown[]) => string).length, `${lang}.${key}`).toBe(value.length);
      }
    }
    // words that are the same in German and English; anything else equal to the English is a miss
    const same = new Set([
      ...['navTeam', 'navWebhooks', 'code', 'name', 'tabDetails', 'status', 'colTickets', 'compName', 'tickets', 'ticket'],
      ...['optional', 'scanner', 'online', 'onlineDevice', 'team', 'person', 'tokenName', 'ticketField'],
      ...['swOnline', 'swOffline'],
    ]);
    for (const [key, value] of Object.entries(enConsole))
      if (typeof value === 'string' && !same.has(key))
        expect(CONSOLE_CATALOGUES.de[key as keyof typeof enConsole], key).not.toBe(value);
  });

  it("gives the scanner's words the same {placeholders} in every language", () => {
    const holes = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const [key, value] of Object.entries(consoleScannerEn))
      for (const [lang, messages] of Object.entries(CONSOLE_CATALOGUES))
        expect(holes(messages[key as keyof typeof consoleScannerEn]), `${lang}.${key}`).toEqual(holes(value));
  });

  it('keeps the parts of a catalogue apart: no key in two parts', () => {
    for (const [lang, parts] of Object.entries(CONSOLE_PARTS)) {
      const keys = parts.flatMap((p) => Object.keys(p));
      expect(keys.length, lang).toBe(new Set(keys).size);
    }
  });
});
