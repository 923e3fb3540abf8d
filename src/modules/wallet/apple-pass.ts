import { PKPass } from 'passkit-generator';
import type { AppleKeys } from './wallet-keys.ts';
import { passImages } from './pass-images.ts';
import { localIso, passWords, type PassTicket } from './pass-content.ts';

/**
 * One ticket as an Apple Wallet `eventTicket` (.pkpass): pass.json, images, manifest.json (SHA-1
 * of every file) and `signature`, a detached PKCS#7 over the manifest by the account's Pass Type
 * ID certificate with Apple's WWDR intermediate; passkit-generator writes the last two.
 *
 * A voided ticket's pass carries `voided: true` and a VOID field. Without Apple's push service
 * (no webServiceURL / authenticationToken: we register no devices) a pass already in a wallet
 * is not updated: only a pass downloaded after the void says so (docs/decisions/wallet-passes.md).
 */
const DEFAULT_BACKGROUND: [number, number, number] = [32, 33, 36];
const DEFAULT_FOREGROUND: [number, number, number] = [255, 255, 255];
const rgb = ([r, g, b]: [number, number, number]) => `rgb(${r}, ${g}, ${b})`;

export function passJson(keys: Pick<AppleKeys, 'pass_type_id' | 'team_id'>, t: PassTicket): Record<string, unknown> {
  const w = passWords(t.lang);
  const background = t.colors?.background ?? DEFAULT_BACKGROUND;
  const foreground = t.colors?.foreground ?? DEFAULT_FOREGROUND;
  const when = localIso(t.startsAt, t.timezone);
  const field = (key: string, label: string, value: string, extra: Record<string, unknown> = {}) => ({
    key,
    label,
    value,
    ...extra,
  });
  const venueLine = t.venue ? [t.venue.name, t.venue.address].filter(Boolean).join(', ') : '';
  const located = t.venue && Number.isFinite(t.venue.latitude) && Number.isFinite(t.venue.longitude);
  return {
    formatVersion: 1,
    passTypeIdentifier: keys.pass_type_id,
    teamIdentifier: keys.team_id,
    serialNumber: t.ticketRef,
    organizationName: t.accountName,
    description: `${w.ticket}: ${t.eventName}`,
    backgroundColor: rgb(background),
    foregroundColor: rgb(foreground),
    labelColor: rgb(foreground),
    relevantDate: when,
    ...(t.voided ? { voided: true } : {}),
    ...(located
      ? { locations: [{ latitude: t.venue!.latitude, longitude: t.venue!.longitude, relevantText: t.venue!.name }] }
      : {}),
    barcodes: [{ format: 'PKBarcodeFormatQR', message: t.qr, messageEncoding: 'iso-8859-1', altText: t.ticketRef }],
    eventTicket: {
      headerFields: t.voided
        ? [field('status', w.status, w.void)]
        : [field('date', w.date, when, { dateStyle: 'PKDateStyleShort', ignoresTimeZone: true })],
      primaryFields: [field('event', w.event, t.eventName)],
      secondaryFields: [
        field('when', w.date, when, { dateStyle: 'PKDateStyleMedium', timeStyle: 'PKDateStyleShort', ignoresTimeZone: true }),
        ...(t.venue ? [field('venue', w.venue, t.venue.name)] : []),
      ],
      auxiliaryFields: [
        ...(t.attendee ? [field('attendee', w.attendee, t.attendee)] : []),
        ...(t.seat ? [field('seat', w.seat, t.seat)] : []),
        field('type', w.type, t.typeName),
      ],
      backFields: [
        ...(t.voided ? [field('void', w.void, w.voidNote)] : []),
        field('ticket', w.ticket, t.ticketRef),
        field('order', w.order, t.orderRef),
        ...(venueLine ? [field('address', w.venue, venueLine)] : []),
      ],
    },
  };
}

/** The signed .pkpass archive. */
export function applePass(keys: AppleKeys, t: PassTicket): Buffer {
  const json = passJson(keys, t);
  const pass = new PKPass(
    { 'pass.json': Buffer.from(JSON.stringify(json)), ...passImages(t.colors?.background ?? DEFAULT_BACKGROUND) },
    { wwdr: keys.wwdr_pem, signerCert: keys.certificate_pem, signerKey: keys.key_pem },
  );
  return pass.getAsBuffer();
}
