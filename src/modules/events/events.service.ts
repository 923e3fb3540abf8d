import { batcherOf, type Batcher } from '../../platform/batch.ts';
import { followedCacheOf } from '../../platform/cache.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { notFound } from '../../platform/errors.ts';
import { canSeeEvent, type Principal } from '../../platform/http/auth.ts';
import { iso } from '../../platform/time.ts';

export { SEAT_STATUSES, type SeatStatus } from './seat-map.repo.ts';
import { findAccountById } from '../accounts/accounts.repo.ts';
import {
  eventHasOrders,
  findEventsBySlugs,
  findEventId,
  listEventSlugs,
  listEventSummaries,
  listEvents,
  listSeries,
  listTicketTypes,
  type EventRow,
  type EventSummaryRow,
  type TicketTypeRow,
} from './events.repo.ts';

export interface EventView {
  slug: string;
  name: string;
  series: string | null;
  currency: string;
  currencies: string[];
  timezone: string;
  starts_at: string;
  ends_at: string | null;
  sales_end_at: string | null;
  tax_mode: 'inclusive' | 'exclusive';
  url: string;
  description: string | null;
  venue: { name: string; address: string | null; map_url: string | null } | null;
  locale: string;
}

export interface TicketTypeView {
  id: number;
  slug: string;
  name: string;
  price_cents: number;
  currency: string;
  capacity: number | null;
  max_per_order: number | null;
  on_sale: boolean;
  position: number;
}

export function eventPageUrl(ctx: AppContext, accountSlug: string, eventSlug: string): string {
  return `${ctx.config.baseUrl}/e/${encodeURIComponent(accountSlug)}/${encodeURIComponent(eventSlug)}`;
}

export function presentEvent(ctx: AppContext, accountSlug: string, e: EventRow): EventView {
  return {
    slug: e.slug,
    name: e.name,
    series: e.series_slug,
    currency: e.currency,
    currencies: e.currencies,
    timezone: e.timezone,
    starts_at: iso(e.starts_at),
    ends_at: iso(e.ends_at),
    sales_end_at: iso(e.sales_end_at),
    tax_mode: e.tax_mode,
    url: eventPageUrl(ctx, accountSlug, e.slug),
    description: e.description,
    venue: e.venue ? { name: e.venue.name, address: e.venue.address ?? null, map_url: e.venue.map_url ?? null } : null,
    locale: e.locale,
  };
}

export function presentTicketType(t: TicketTypeRow, currency: string): TicketTypeView {
  return {
    id: t.id,
    slug: t.key,
    name: t.name,
    price_cents: t.price_cents,
    currency,
    capacity: t.capacity,
    max_per_order: t.max_per_order,
    on_sale: t.on_sale,
    position: t.position,
  };
}

/**
 * An event by slug through the catalogue cache (followedCacheOf): kept while no transaction
 * changed the account's catalogue, or `catalogueCacheMs` when the change feed is not live.
 */
export function findEventCached(ctx: AppContext, accountId: number, slug: string): Promise<EventRow | undefined> {
  return followedCacheOf<EventRow | undefined>(ctx.db, 'events', ctx.config.catalogueCacheMs).get(`${accountId}/${slug}`, () =>
    batcherOf(eventBatchers, ctx.db, findEventsBySlugs).load({ accountId, slug }),
  );
}

/** Concurrent misses of the cache above, read together (platform/batch.ts). */
const eventBatchers = new WeakMap<Db, Batcher<{ accountId: number; slug: string }, EventRow | undefined>>();

/** The event behind a path slug, or 404 when unknown or outside an event-limited token's list. */
export async function loadVisibleEvent(ctx: AppContext, p: Principal, slug: string): Promise<EventRow> {
  const event = canSeeEvent(p, slug) ? await findEventCached(ctx, p.accountId, slug) : undefined;
  if (!event) throw notFound(`No event with slug "${slug}"`);
  return event;
}

export async function getEvents(ctx: AppContext, p: Principal): Promise<EventView[]> {
  const rows = await listEvents(ctx.db, p.accountId, p.eventSlugs ? [...p.eventSlugs] : null);
  return rows.map((e) => presentEvent(ctx, p.accountSlug, e));
}

// A cached row (findEventCached, the ticket-type cache) is the same object until it expires, so
// its view is built once per row rather than once per request.
const eventViews = new WeakMap<EventRow, EventView>();
const typeViews = new WeakMap<TicketTypeRow[], TicketTypeView[]>();

export async function getEvent(ctx: AppContext, p: Principal, slug: string): Promise<EventView> {
  const row = await loadVisibleEvent(ctx, p, slug);
  let view = eventViews.get(row);
  if (!view) eventViews.set(row, (view = presentEvent(ctx, p.accountSlug, row)));
  return view;
}

export async function getSeries(ctx: AppContext, p: Principal): Promise<Array<{ slug: string; name: string }>> {
  return listSeries(ctx.db, p.accountId);
}

/** Spec: `[]` with 200 for an unknown slug (and for an event the token may not see). */
export async function getTicketTypes(ctx: AppContext, p: Principal, slug: string): Promise<TicketTypeView[]> {
  if (!canSeeEvent(p, slug)) return [];
  const event = await findEventCached(ctx, p.accountId, slug);
  if (!event) return [];
  const types = await followedCacheOf<TicketTypeRow[]>(ctx.db, 'ticket-types', ctx.config.catalogueCacheMs).get(
    `${p.accountId}/${event.id}`,
    () => listTicketTypes(ctx.db, p.accountId, event.id),
  );
  let views = typeViews.get(types);
  if (!views) typeViews.set(types, (views = types.map((t) => presentTicketType(t, event.currency))));
  return views;
}

export async function accountSlugOf(ctx: AppContext, accountId: number): Promise<string> {
  return (await findAccountById(ctx.db, accountId))?.slug ?? '';
}

export type EventSummary = EventSummaryRow & { past: boolean };

/** The account's events for the console's list: upcoming first, then past ones; `past` at the same instant as the order. */
export async function getEventSummaries(ctx: AppContext, accountId: number): Promise<EventSummary[]> {
  const now = ctx.clock.now();
  const rows = await listEventSummaries(ctx.db, accountId, now);
  return rows.map((e) => ({ ...e, past: new Date(e.starts_at) < now }));
}

/** The slugs the account's events use, archived ones too: taken for a new event. */
export async function getEventSlugs(ctx: AppContext, accountId: number): Promise<string[]> {
  return listEventSlugs(ctx.db, accountId);
}

/**
 * The id of an account's event, read now rather than through the catalogue cache: callers have
 * just read or changed the event and act on the row that holds it.
 */
export async function getEventId(ctx: AppContext, accountId: number, slug: string): Promise<number> {
  const id = await findEventId(ctx.db, accountId, slug);
  if (id === undefined) throw notFound(`No event with slug "${slug}"`);
  return id;
}

/** Whether the account's event has any order (the console offers Delete without, Archive with). */
export async function hasOrders(ctx: AppContext, accountId: number, slug: string): Promise<boolean> {
  return eventHasOrders(ctx.db, accountId, await getEventId(ctx, accountId, slug));
}
