import type { AppContext } from '../../platform/context.ts';
import { findEventBySlug, type EventRow } from './events.repo.ts';
import { listEventNames, listUpcomingEvents, type UpcomingEvent } from './event-listings.repo.ts';

export type { UpcomingEvent } from './event-listings.repo.ts';

/** How many events a public list shows at most. */
const LIST_LIMIT = 100;

/** The events still ahead, soonest first: every account's (null), or one account's. */
export function upcomingEvents(ctx: AppContext, accountId: number | null): Promise<UpcomingEvent[]> {
  return listUpcomingEvents(ctx.db, ctx.clock.now(), accountId, LIST_LIMIT);
}

/** The account's events to choose from (a token's event list), latest start first. */
export function eventChoices(ctx: AppContext, accountId: number): Promise<Array<{ slug: string; name: string }>> {
  return listEventNames(ctx.db, accountId);
}

/**
 * Whether buyers see the event (contract section 11): a draft is not shown to them, nor is an
 * archived event (its order and ticket pages, reached by their own secrets, keep working).
 */
export function isBuyerVisible(event: Pick<EventRow, 'status' | 'archived'>): boolean {
  return event.status === 'published' && !event.archived;
}

/** An account's event by slug as buyers see it, read from the database (not through the catalogue cache). */
export async function findPublicEvent(ctx: AppContext, accountId: number, slug: string): Promise<EventRow | undefined> {
  const event = await findEventBySlug(ctx.db, accountId, slug);
  return event && isBuyerVisible(event) ? event : undefined;
}
