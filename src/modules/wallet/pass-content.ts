/**
 * What a wallet pass says about one ticket, in the order's language; shared by the Apple pass and
 * the Google object so both show the same event, date, venue, attendee and seat.
 */
export interface PassTicket {
  accountName: string;
  accountSlug: string;
  eventSlug: string;
  eventName: string;
  startsAt: Date;
  endsAt: Date | null;
  timezone: string;
  venue: { name: string; address?: string; latitude?: number; longitude?: number } | null;
  attendee: string | null;
  seat: string | null;
  typeName: string;
  orderRef: string;
  ticketRef: string;
  /** what the ticket's QR code encodes (its QR token, as on the PDF and the order page) */
  qr: string;
  voided: boolean;
  /** 'en' or 'de' (anything else: English) */
  lang: string;
  /** the account theme's accent colour and its contrast, when it has one */
  colors?: { background: [number, number, number]; foreground: [number, number, number] };
}

const WORDS = {
  en: {
    event: 'Event',
    date: 'Date',
    venue: 'Venue',
    attendee: 'Attendee',
    seat: 'Seat',
    ticket: 'Ticket',
    order: 'Order',
    type: 'Ticket type',
    void: 'VOID',
    voidNote: 'This ticket is no longer valid.',
    status: 'Status',
  },
  de: {
    event: 'Veranstaltung',
    date: 'Datum',
    venue: 'Ort',
    attendee: 'Gast',
    seat: 'Platz',
    ticket: 'Ticket',
    order: 'Bestellung',
    type: 'Ticketart',
    void: 'UNGÜLTIG',
    voidNote: 'Dieses Ticket ist nicht mehr gültig.',
    status: 'Status',
  },
} as const;

export const passWords = (lang: string) => (lang.toLowerCase().startsWith('de') ? WORDS.de : WORDS.en);

/** "+01:00" for the zone at that moment, so a pass shows the event's local time wherever the phone is. */
export function zoneOffset(at: Date, timezone: string): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  const m = /GMT([+-]\d{2}):?(\d{2})?/.exec(name ?? '');
  return m ? `${m[1]}:${m[2] ?? '00'}` : '+00:00';
}

/** ISO 8601 in the event's zone, seconds precision: "2026-12-01T20:00:00+01:00". */
export function localIso(at: Date, timezone: string): string {
  const offset = zoneOffset(at, timezone);
  const sign = offset.startsWith('-') ? -1 : 1;
  const [h, m] = offset.slice(1).split(':').map(Number);
  const local = new Date(at.getTime() + sign * ((h ?? 0) * 60 + (m ?? 0)) * 60_000);
  return `${local.toISOString().slice(0, 19)}${offset}`;
}

/** "#1a2b3c" → [26, 43, 60]; null for anything else. */
export function hexRgb(hex: string | undefined): [number, number, number] | null {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex?.trim() ?? '');
  return m ? [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)] : null;
}
