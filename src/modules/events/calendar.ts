import type { EventVenue } from '../../platform/db/schema.ts';
import { descriptionText } from './description.ts';

/**
 * An event as an iCalendar file (RFC 5545) for "add to calendar": one VEVENT in UTC, so every
 * calendar program shows it at the right local time without a VTIMEZONE block. Text is escaped
 * (backslash, semicolon, comma, newlines) and lines are folded at 75 octets, never inside a
 * UTF-8 sequence.
 */
export interface CalendarEvent {
  /** stable across downloads, so importing twice updates instead of duplicating */
  uid: string;
  name: string;
  startsAt: Date;
  /** without an end, two hours: most calendar programs show an event without one as a point */
  endsAt: Date | null;
  venue: EventVenue | null;
  /** plain text (the Markdown source reads well as text) */
  description: string | null;
  url: string;
  /** the moment the file is made (DTSTAMP) */
  now: Date;
}

const DEFAULT_LENGTH_MS = 2 * 60 * 60 * 1000;

function stamp(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

export function escapeText(s: string): string {
  return s
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');
}

/** Folds one content line: at most 75 octets per physical line, continuation lines start with a space. */
export function foldLine(line: string): string {
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= 75) return line;
  const parts: string[] = [];
  let start = 0;
  let limit = 75;
  while (start < bytes.length) {
    let end = Math.min(start + limit, bytes.length);
    // never split a multi-byte character: back up to the start of one
    while (end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
    parts.push(bytes.subarray(start, end).toString('utf8'));
    start = end;
    limit = 74; // the leading space counts
  }
  return parts.join('\r\n ');
}

export function eventCalendar(e: CalendarEvent): string {
  const end = e.endsAt && e.endsAt > e.startsAt ? e.endsAt : new Date(e.startsAt.getTime() + DEFAULT_LENGTH_MS);
  const location = e.venue ? [e.venue.name, e.venue.address].filter(Boolean).join(', ') : null;
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//admit//tickets//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    'BEGIN:VEVENT',
    `UID:${e.uid}`,
    `DTSTAMP:${stamp(e.now)}`,
    `DTSTART:${stamp(e.startsAt)}`,
    `DTEND:${stamp(end)}`,
    `SUMMARY:${escapeText(e.name)}`,
    ...(location ? [`LOCATION:${escapeText(location)}`] : []),
    ...(e.description
      ? [`DESCRIPTION:${escapeText(`${e.description.trim()}\n\n${e.url}`)}`]
      : [`DESCRIPTION:${escapeText(e.url)}`]),
    `URL:${e.url}`,
    'END:VEVENT',
    'END:VCALENDAR',
  ];
  return lines.map(foldLine).join('\r\n') + '\r\n';
}

/** A file name for the download: the event's slug, safe in a Content-Disposition header. */
export function calendarFileName(slug: string): string {
  return `${slug.replace(/[^A-Za-z0-9._-]/g, '-') || 'event'}.ics`;
}

/** What the calendar entry of an event is made from, wherever it is served (page or mail). */
export interface CalendarSource {
  baseUrl: string;
  accountSlug: string;
  event: {
    id: number;
    slug: string;
    name: string;
    starts_at: Date | string;
    ends_at: Date | string | null;
    venue: EventVenue | null;
    description: string | null;
  };
  now: Date;
}

/** The event's .ics: the same UID and page URL from the page's link and the ticket mail's attachment. */
export function calendarOf(s: CalendarSource): string {
  const base = s.baseUrl.replace(/\/$/, '');
  return eventCalendar({
    uid: `event-${s.event.id}@${new URL(base).host}`,
    name: s.event.name,
    startsAt: new Date(s.event.starts_at),
    endsAt: s.event.ends_at ? new Date(s.event.ends_at) : null,
    venue: s.event.venue,
    // Markdown as words: calendars show DESCRIPTION as plain text
    description: descriptionText(s.event.description),
    url: `${base}/e/${encodeURIComponent(s.accountSlug)}/${encodeURIComponent(s.event.slug)}`,
    now: s.now,
  });
}
