import type { EventDocument } from '../events/event-config.service.ts';
import { fromLocalInput } from './catalogue-form.ts';
import type { FieldErrors } from './console-layout.view.ts';

// The console's event form (the document's top level): read back from the form, errors placed by field.

export const TIMEZONES = Intl.supportedValuesOf('timeZone');

/** A new event's slug (and a duplicate's): it becomes part of the public address. */
export const EVENT_SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Fields of the event form (the document's top level) and where document errors land. */
const EVENT_FIELDS = [
  'slug',
  'name',
  'currency',
  'timezone',
  'starts_at',
  'ends_at',
  'sales_end_at',
  'locale',
  'description',
  'venue',
];

/** The document's validation errors (by JSON path) placed at the event form's fields; the rest under `_`. */
export function eventErrors(fields: Record<string, string[]>): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, msgs] of Object.entries(fields)) {
    const top = path.replace(/^\$\.?/, '').split(/[.[]/)[0] ?? '';
    const key =
      top === 'venue' ? (path.includes('address') ? 'venue_address' : 'venue_name') : EVENT_FIELDS.includes(top) ? top : '_';
    (out[key] ??= []).push(key === '_' ? `${path}: ${msgs.join(', ')}` : msgs.join(', '));
  }
  return out;
}

/** The event form's values over a document; errors for what cannot be read. */
export function readEventForm(
  form: Record<string, string>,
  doc: Partial<EventDocument>,
): { doc: Partial<EventDocument>; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const out: Partial<EventDocument> = { ...doc };
  const tz = form.timezone && TIMEZONES.includes(form.timezone) ? form.timezone : (doc.timezone ?? 'UTC');
  out.timezone = form.timezone ?? tz;
  if (form.slug !== undefined) out.slug = form.slug.trim();
  out.name = (form.name ?? '').trim();
  if (form.currency !== undefined) out.currency = form.currency.trim().toLowerCase();
  for (const k of ['starts_at', 'ends_at', 'sales_end_at'] as const) {
    const v = (form[k] ?? '').trim();
    if (v === '') {
      if (k === 'starts_at') errors[k] = ['is required'];
      delete out[k];
      continue;
    }
    const at = fromLocalInput(v, tz);
    if (!at) errors[k] = ['is not a date and time'];
    else out[k] = at;
  }
  out.locale = form.locale || 'en';
  const description = (form.description ?? '').replace(/\r\n/g, '\n');
  if (description.trim()) out.description = description;
  else delete out.description;
  const venueName = (form.venue_name ?? '').trim();
  const venueAddress = (form.venue_address ?? '').trim();
  if (venueName) out.venue = { ...(doc.venue ?? {}), name: venueName, ...(venueAddress ? { address: venueAddress } : {}) };
  else if (venueAddress) errors.venue_name = ['a venue with an address needs a name'];
  else delete out.venue;
  if (out.venue && !venueAddress) delete out.venue.address;
  if (form.ss_form) readSelfService(form, out, tz, errors);
  return { doc: out, errors };
}

/**
 * The self-service fieldset: any rule given turns self-service on (naming attendees comes with
 * it); nothing ticked or given turns it off.
 */
function readSelfService(form: Record<string, string>, out: Partial<EventDocument>, tz: string, errors: FieldErrors): void {
  const rules: NonNullable<EventDocument['self_service']> = {};
  for (const [k, key] of [
    ['ss_edit_until', 'edit_until'],
    ['ss_cancel_until', 'cancel_until'],
  ] as const) {
    const v = (form[k] ?? '').trim();
    if (!v) continue;
    const at = fromLocalInput(v, tz);
    if (at) rules[key] = at;
    else errors[k] = ['is not a date and time'];
  }
  const fee = (form.ss_cancel_fee ?? '').trim();
  if (fee) {
    const n = Number(fee);
    if (Number.isInteger(n) && n >= 0 && n <= 100) rules.cancel_fee_percent = n;
    else errors.ss_cancel_fee = ['must be a whole number from 0 to 100'];
  }
  if (form.ss_transfer === '1') rules.transfer = true;
  if (form.ss_names === '1' || Object.keys(rules).length) out.self_service = rules;
  else delete out.self_service;
}
