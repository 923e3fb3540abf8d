import { createSign } from 'node:crypto';
import type { GoogleKeys } from './wallet-keys.ts';
import { localIso, passWords, type PassTicket } from './pass-content.ts';

/**
 * "Save to Google Wallet": a link https://pay.google.com/gp/v/save/<jwt> whose JWT (RS256, signed
 * with the account's service-account key) carries the event's class and the ticket's object, so
 * Google creates both on save without our calling its API. A link made for a voided ticket saves
 * an INACTIVE object; one saved before the void stays as it was: changing a saved object needs
 * the Wallet REST API, which admit does not call (docs/decisions/wallet-passes.md).
 */
export const GOOGLE_SAVE_URL = 'https://pay.google.com/gp/v/save/';

/** Google's ids are `<issuer id>.<suffix>`, the suffix of letters, digits, '.', '_' and '-'. */
const suffix = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');

export function googleObjects(keys: Pick<GoogleKeys, 'issuer_id'>, t: PassTicket) {
  const w = passWords(t.lang);
  const language = t.lang.toLowerCase().startsWith('de') ? 'de' : 'en';
  const text = (value: string) => ({ defaultValue: { language, value } });
  const classId = `${keys.issuer_id}.${suffix(`admit-${t.accountSlug}-${t.eventSlug}`)}`;
  const eventTicketClass = {
    id: classId,
    issuerName: t.accountName,
    eventName: text(t.eventName),
    reviewStatus: 'UNDER_REVIEW',
    dateTime: {
      start: localIso(t.startsAt, t.timezone),
      ...(t.endsAt ? { end: localIso(t.endsAt, t.timezone) } : {}),
    },
    ...(t.venue ? { venue: { name: text(t.venue.name), address: text(t.venue.address ?? t.venue.name) } } : {}),
    ...(t.colors ? { hexBackgroundColor: `#${t.colors.background.map((c) => c.toString(16).padStart(2, '0')).join('')}` } : {}),
  };
  const eventTicketObject = {
    id: `${keys.issuer_id}.${suffix(`admit-${t.ticketRef}`)}`,
    classId,
    state: t.voided ? 'INACTIVE' : 'ACTIVE',
    barcode: { type: 'QR_CODE', value: t.qr, alternateText: t.ticketRef },
    ticketNumber: t.ticketRef,
    ticketType: text(t.typeName),
    reservationInfo: { confirmationCode: t.orderRef },
    ...(t.attendee ? { ticketHolderName: t.attendee } : {}),
    ...(t.seat ? { seatInfo: { seat: text(t.seat) } } : {}),
    ...(t.voided ? { textModulesData: [{ id: 'void', header: w.void, body: w.voidNote }] } : {}),
  };
  return { eventTicketClass, eventTicketObject };
}

const b64url = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** The signed JWT of a save link; `origin` is the site the button is on (Google checks it). */
export function googleSaveJwt(keys: GoogleKeys, t: PassTicket, origin: string, now: Date): string {
  const { eventTicketClass, eventTicketObject } = googleObjects(keys, t);
  const claims = {
    iss: keys.service_account_email,
    aud: 'google',
    typ: 'savetowallet',
    iat: Math.floor(now.getTime() / 1000),
    origins: [origin],
    payload: { eventTicketClasses: [eventTicketClass], eventTicketObjects: [eventTicketObject] },
  };
  const signingInput = `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url(claims)}`;
  const signature = createSign('RSA-SHA256').update(signingInput).sign(keys.private_key_pem).toString('base64url');
  return `${signingInput}.${signature}`;
}

export function googleSaveUrl(keys: GoogleKeys, t: PassTicket, origin: string, now: Date): string {
  return GOOGLE_SAVE_URL + googleSaveJwt(keys, t, origin, now);
}
