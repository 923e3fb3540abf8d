import type { AppContext } from '../../platform/context.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { codeUses, createCodes } from '../discounts/discounts.service.ts';
import {
  deleteEvent,
  getEventConfig,
  putEventConfig,
  validateDocument,
  type EventConfig,
  type EventDocument,
} from '../events/event-config.service.ts';
import { eventPageUrl, getEventId, getEventSlugs, hasOrders } from '../events/events.service.ts';
import { freeKey, slugify } from './derived-keys.ts';

/** What the console's "Generate codes" form asks for. */
export interface GenerateCodes {
  count: number;
  prefix: string;
  percent_off: number;
  max_uses: number | null;
}

/** An unknown event is the console's 404 "No such event" (not the API's message naming the slug). */
const noSuchEvent = (err: unknown): never => {
  if (err instanceof AppError && err.kind === 'not_found') throw notFound('No such event');
  throw err;
};

/** The configuration document of an account's event and its ETag. */
export async function loadEventConfig(ctx: AppContext, accountId: number, slug: string): Promise<EventConfig> {
  try {
    return await getEventConfig(ctx, accountId, slug);
  } catch (err) {
    return noSuchEvent(err);
  }
}

/**
 * The document's problems by JSON path without saving it (none: it would be accepted). The forms
 * check the document even when some of their fields could not be read, so an organiser sees every
 * problem at once instead of one round at a time.
 */
export async function documentProblems(
  ctx: AppContext,
  accountId: number,
  slug: string,
  doc: unknown,
): Promise<Record<string, string[]>> {
  try {
    await validateDocument(ctx.db, accountId, slug, doc);
    return {};
  } catch (err) {
    if (err instanceof AppError && err.fields) return err.fields;
    throw err;
  }
}

/** An address for a new event made from its name, free among the account's events ("summer-night-2"). */
export async function freeEventSlug(ctx: AppContext, accountId: number, name: string): Promise<string> {
  const taken = new Set(await getEventSlugs(ctx, accountId));
  return freeKey(slugify(name) || 'event', taken);
}

/** Random discount codes for an event, written by the discounts module. */
export async function generateCodes(ctx: AppContext, accountId: number, slug: string, input: GenerateCodes): Promise<void> {
  const eventId = await getEventId(ctx, accountId, slug).catch(noSuchEvent);
  await createCodes(ctx, accountId, eventId, input);
}

/** The lifecycle fields the console changes one at a time (publish, schedule, archive). */
export type LifecycleChange = Partial<Pick<EventDocument, 'status' | 'archived'>> & { sales_start_at?: string | null };

/**
 * Applies one lifecycle change to the event's document as the stored one was when the page was
 * read (`etag`): 412 when someone changed it since, 409 where orders forbid it (back to draft),
 * 422 for a sales start that is not before sales end.
 */
export async function changeLifecycle(
  ctx: AppContext,
  accountId: number,
  slug: string,
  etag: string,
  change: LifecycleChange,
): Promise<void> {
  const { document } = await loadEventConfig(ctx, accountId, slug);
  const doc: EventDocument = { ...document };
  if (change.status !== undefined) doc.status = change.status;
  if (change.archived !== undefined) doc.archived = change.archived;
  if (change.sales_start_at === null) delete doc.sales_start_at;
  else if (change.sales_start_at !== undefined) doc.sales_start_at = change.sales_start_at;
  await putEventConfig(ctx, accountId, slug, doc, etag);
}

/**
 * The event's seating as the console's seating page saves it (contract section 12): the plan,
 * its categories' ticket types and the blocked seats, or none (`null`). Saved over the ETag the
 * page was read with; the event writer refuses dropping, re-mapping or blocking a held or sold
 * seat (409 naming them), the document's checks a bad plan (422 by JSON path).
 */
export async function changeSeating(
  ctx: AppContext,
  accountId: number,
  slug: string,
  etag: string,
  seating: EventDocument['seating'] | null,
): Promise<void> {
  const { document } = await loadEventConfig(ctx, accountId, slug);
  const doc: EventDocument = { ...document };
  if (seating) doc.seating = seating;
  else delete doc.seating;
  await putEventConfig(ctx, accountId, slug, doc, etag);
}

/**
 * The event's waiting list switched on or off and how long an offer is held (contract section 13),
 * saved over the ETag the page was read with (412 when someone changed the event since).
 */
export async function changeWaitingList(
  ctx: AppContext,
  accountId: number,
  slug: string,
  etag: string,
  waitingList: { enabled: boolean; offer_minutes: number },
): Promise<void> {
  const { document } = await loadEventConfig(ctx, accountId, slug);
  await putEventConfig(ctx, accountId, slug, { ...document, waiting_list: waitingList }, etag);
}

/** Whether the event has orders (then it is archived rather than deleted, and stays published). */
export function eventHasOrders(ctx: AppContext, accountId: number, slug: string): Promise<boolean> {
  return hasOrders(ctx, accountId, slug).catch(noSuchEvent);
}

/** Deletes an event without orders (409 `conflict` with orders; 404 when unknown). */
export function removeEvent(ctx: AppContext, accountId: number, slug: string): Promise<void> {
  return deleteEvent(ctx, accountId, slug).catch(noSuchEvent);
}

/** How often each of an event's discount codes has been used, by code (the codes tab shows it). */
export async function discountCodeUses(ctx: AppContext, accountId: number, slug: string): Promise<Map<string, number>> {
  const eventId = await getEventId(ctx, accountId, slug).catch(noSuchEvent);
  return codeUses(ctx.db, eventId);
}

/** What an event lacks before buyers can order, for the console's empty lists of orders. */
export interface SalesReadiness {
  slug: string;
  status: 'draft' | 'published';
  archived: boolean;
  /** a ticket type (not archived), extra or donation */
  somethingToBuy: boolean;
  /** the buyer page's address */
  publicUrl: string;
}

export async function salesReadiness(
  ctx: AppContext,
  account: { id: number; slug: string },
  slug: string,
): Promise<SalesReadiness> {
  const { document: d } = await loadEventConfig(ctx, account.id, slug);
  const live = (items: Array<{ key: string; archived?: boolean }> | undefined) => (items ?? []).some((i) => !i.archived);
  return {
    slug: d.slug,
    status: d.status ?? 'published',
    archived: Boolean(d.archived),
    somethingToBuy: live(d.ticket_types) || live(d.goods) || live(d.donations),
    publicUrl: eventPageUrl(ctx, account.slug, d.slug),
  };
}
