import { describe, expect, it } from 'vitest';
import { calendarFileName, escapeText, eventCalendar, foldLine } from './calendar.ts';

const base = {
  uid: 'event-7@admit.test',
  name: 'Summer Night, Live; Vol. 2',
  startsAt: new Date('2027-07-01T18:30:00Z'),
  endsAt: null,
  venue: { name: 'Halle Süd', address: 'Hafenstraße 12, 20457 Hamburg' },
  description: 'Doors **19:00**.\nBring a friend.',
  url: 'https://tickets.example/e/acme/summer',
  now: new Date('2026-11-22T12:00:00Z'),
};

/** Unfolds and splits the file into its content lines, as a calendar program reads it. */
const contentLines = (ics: string) => ics.replace(/\r\n /g, '').split('\r\n');

describe('the event as an iCalendar file', () => {
  it('has one event in UTC with an end two hours later when the event names none', () => {
    const ics = eventCalendar(base);
    const lines = contentLines(ics);
    expect(lines.slice(0, 2)).toEqual(['BEGIN:VCALENDAR', 'VERSION:2.0']);
    expect(lines).toContain('DTSTART:20270701T183000Z');
    expect(lines).toContain('DTEND:20270701T203000Z');
    expect(lines).toContain('DTSTAMP:20261122T120000Z');
    expect(lines).toContain('UID:event-7@admit.test');
    expect(lines.filter((l) => l === 'BEGIN:VEVENT')).toHaveLength(1);
    expect(ics.endsWith('END:VCALENDAR\r\n')).toBe(true);
  });

  it('uses the end the event names', () => {
    const lines = contentLines(eventCalendar({ ...base, endsAt: new Date('2027-07-02T01:00:00Z') }));
    expect(lines).toContain('DTEND:20270702T010000Z');
  });

  it('escapes text and puts the venue in LOCATION and the page in URL and DESCRIPTION', () => {
    const lines = contentLines(eventCalendar(base));
    expect(lines).toContain('SUMMARY:Summer Night\\, Live\\; Vol. 2');
    expect(lines).toContain('LOCATION:Halle Süd\\, Hafenstraße 12\\, 20457 Hamburg');
    expect(lines).toContain('URL:https://tickets.example/e/acme/summer');
    expect(lines).toContain('DESCRIPTION:Doors **19:00**.\\nBring a friend.\\n\\nhttps://tickets.example/e/acme/summer');
    expect(escapeText('a\\b')).toBe('a\\\\b');
  });

  it('folds long lines at 75 octets without splitting a character', () => {
    const long = `DESCRIPTION:${'Ü'.repeat(100)}`;
    const folded = foldLine(long);
    for (const physical of folded.split('\r\n')) expect(Buffer.byteLength(physical, 'utf8')).toBeLessThanOrEqual(75);
    expect(folded.replace(/\r\n /g, '')).toBe(long);
    expect(folded).not.toContain('\uFFFD');
    const ics = eventCalendar({ ...base, description: 'x'.repeat(500) });
    for (const physical of ics.split('\r\n')) expect(Buffer.byteLength(physical, 'utf8')).toBeLessThanOrEqual(75);
  });

  it('names the file after the slug', () => {
    expect(calendarFileName('summer-2027')).toBe('summer-2027.ics');
    expect(calendarFileName('a"b')).toBe('a-b.ics');
  });
});
