import type { Db } from '../../platform/db/database.ts';
import { configConflict } from './event-config.errors.ts';
import { DEFAULT_OFFER_MINUTES, type EventDocument } from './event-document.ts';
import type { StoredEvent } from './event-document.repo.ts';
import { retireLeftOut, writeItems, type Written } from './event-items.repo.ts';
import { readPlan, seatCounts } from './seating-plan.ts';
import { refuseSeatChanges, writeSeating } from './seating.repo.ts';

export interface WrittenEvent {
  event: { id: number; starts_at: Date; payment_expires_at: Date | null };
  /** the document's items as written, by key: what the importer's orders refer to */
  items: Written;
}

/**
 * The one writer of an event's configuration. Onto a stored event (the config PUT): the
 * difference, refused (409) where existing orders forbid it; items left out are deleted when
 * nothing names them, else archived. With none, a new event (the config PUT of a new slug,
 * duplicate, and the importer, which then writes the event's orders): applying to nothing.
 * Call it in a transaction; with a stored event, one holding that event's row lock (eventRow).
 */
export async function writeEventDocument(
  trx: Db,
  now: Date,
  accountId: number,
  stored: StoredEvent | null,
  d: EventDocument,
): Promise<WrittenEvent> {
  const currencies = [...new Set([d.currency, ...(d.currencies ?? []).filter((c) => c !== d.currency)])];
  if (stored) await refuseWhatOrdersForbid(trx, stored, d, currencies);
  if (stored) await refuseSeatChanges(trx, stored.id, d.seating, now);
  // a new event can be checked in at once: without lists of its own it gets "All tickets"
  if (!stored && !d.checkin_lists?.length) d = { ...d, checkin_lists: [DOOR_LIST] };
  const event = await writeEventRow(trx, accountId, stored, d, currencies);
  const items = await writeItems(trx, { accountId, eventId: event.id, now }, withSeatCapacities(d), stored !== null);
  await writeSeating(trx, { accountId, eventId: event.id, now }, d.seating, items.written, stored !== null);
  await writeSavedReports(trx, { account_id: accountId, event_id: event.id }, d.saved_reports ?? [], stored === null);
  if (stored) await retireLeftOut(trx, now, items);
  return { event, items: items.written };
}

/** A seated type's capacity is its number of unblocked seats, whatever the document says. */
function withSeatCapacities(d: EventDocument): EventDocument {
  if (!d.seating) return d;
  const counts = seatCounts(d.seating, readPlan(d.seating.plan, '$.seating.plan').seats);
  return {
    ...d,
    ticket_types: (d.ticket_types ?? []).map((t) => (counts.has(t.key) ? { ...t, capacity: counts.get(t.key)! } : t)),
  };
}

/** The check-in list of an event whose document names none (contract section 11); every ticket type. */
export const DOOR_LIST = { key: 'all-tickets', name: 'All tickets' } as const;

async function refuseWhatOrdersForbid(trx: Db, event: StoredEvent, d: EventDocument, currencies: string[]): Promise<void> {
  const hasOrders = async () =>
    Boolean(await trx.selectFrom('orders').select('id').where('event_id', '=', event.id).limit(1).executeTakeFirst());
  if (d.currency !== event.currency && (await hasOrders())) {
    throw configConflict('$.currency', 'the event has orders; its currency cannot change');
  }
  // buyers hold orders and tickets of a published event: it is archived, not hidden as a draft
  if ((d.status ?? 'published') === 'draft' && event.status !== 'draft' && (await hasOrders())) {
    throw configConflict('$.status', 'the event has orders; it cannot go back to draft (archive it instead)');
  }
  const dropped = event.currencies.filter((c) => !currencies.includes(c));
  if (dropped.length) {
    const used = await trx
      .selectFrom('orders')
      .select('currency')
      .where('event_id', '=', event.id)
      .where('currency', 'in', dropped)
      .limit(1)
      .executeTakeFirst();
    if (used) throw configConflict('$.currencies', `orders were placed in ${used.currency}; it cannot be removed`);
  }
}

async function writeEventRow(trx: Db, accountId: number, stored: StoredEvent | null, d: EventDocument, currencies: string[]) {
  const seriesId = d.series
    ? (
        await trx
          .selectFrom('series')
          .select('id')
          .where('account_id', '=', accountId)
          .where('slug', '=', d.series)
          .executeTakeFirstOrThrow()
      ).id
    : null;
  const columns = {
    name: d.name,
    series_id: seriesId,
    currency: d.currency,
    currencies,
    fx_rates: JSON.stringify(Object.fromEntries(Object.entries(d.fx_rates ?? {}).map(([c, r]) => [c, String(r)]))),
    timezone: d.timezone,
    starts_at: d.starts_at,
    ends_at: d.ends_at ?? null,
    sales_end_at: d.sales_end_at ?? null,
    payment_expires_at: d.payment_expires_at ?? null,
    tax_mode: d.tax_mode ?? 'inclusive',
    description: d.description ?? null,
    venue: d.venue ? JSON.stringify(d.venue) : null,
    locale: d.locale ?? 'en',
    status: d.status ?? 'published',
    sales_start_at: d.sales_start_at ?? null,
    archived: d.archived ?? false,
    waiting_list_enabled: d.waiting_list?.enabled ?? false,
    waiting_list_offer_minutes: d.waiting_list?.offer_minutes ?? DEFAULT_OFFER_MINUTES,
    invoice_address: d.invoice_address ?? null,
    self_service: d.self_service ? JSON.stringify(d.self_service) : null,
    queue: d.queue ? JSON.stringify(d.queue) : null,
  };
  const returned = ['id', 'starts_at', 'payment_expires_at'] as const;
  if (stored)
    return trx.updateTable('events').set(columns).where('id', '=', stored.id).returning(returned).executeTakeFirstOrThrow();
  return trx
    .insertInto('events')
    .values({ account_id: accountId, slug: d.slug, ...columns })
    .returning(returned)
    .executeTakeFirstOrThrow();
}

/**
 * Saved reports have no key: matched by name. A new event takes them as given (a name given
 * twice makes two reports, as an account file always has); a stored one gets one per name.
 */
async function writeSavedReports(
  trx: Db,
  base: { account_id: number; event_id: number },
  given: NonNullable<EventDocument['saved_reports']>,
  creating: boolean,
): Promise<void> {
  const strip = (query: string) => query.replace(/^\?/, '');
  if (creating) {
    for (const r of given)
      await trx
        .insertInto('saved_reports')
        .values({ ...base, name: r.name, query: strip(r.query) })
        .execute();
    return;
  }
  const reports = await trx
    .selectFrom('saved_reports')
    .select(['id', 'name', 'query'])
    .where('event_id', '=', base.event_id)
    .execute();
  const wanted = new Map(given.map((r) => [r.name, strip(r.query)]));
  for (const r of reports) {
    if (!wanted.has(r.name)) await trx.deleteFrom('saved_reports').where('id', '=', r.id).execute();
    else if (wanted.get(r.name) !== r.query) {
      await trx
        .updateTable('saved_reports')
        .set({ query: wanted.get(r.name)! })
        .where('id', '=', r.id)
        .execute();
    }
  }
  const had = new Set(reports.map((r) => r.name));
  for (const [name, query] of wanted) {
    if (!had.has(name))
      await trx
        .insertInto('saved_reports')
        .values({ ...base, name, query })
        .execute();
  }
}

/**
 * Deletes an event that has no orders, with everything of it (its items, stock, check-in lists,
 * codes, saved reports and counters go with the row). Call it in a transaction; the event row is
 * locked first, so an order being written to it (its foreign key holds a share lock) either
 * commits before and is seen here, or waits and then finds no event.
 */
export async function deleteEventWithoutOrders(
  trx: Db,
  accountId: number,
  slug: string,
): Promise<'deleted' | 'missing' | 'has_orders'> {
  const event = await trx
    .selectFrom('events')
    .select('id')
    .where('account_id', '=', accountId)
    .where('slug', '=', slug)
    .forUpdate()
    .executeTakeFirst();
  if (!event) return 'missing';
  const order = await trx.selectFrom('orders').select('id').where('event_id', '=', event.id).limit(1).executeTakeFirst();
  if (order) return 'has_orders';
  await trx.deleteFrom('events').where('id', '=', event.id).execute();
  return 'deleted';
}
