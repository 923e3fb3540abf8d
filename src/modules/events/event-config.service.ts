import { createHash } from 'node:crypto';
import { clearCaches } from '../../platform/cache.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { isRetryableConflict, isUniqueViolation } from '../../platform/db/pg-errors.ts';
import { parseAccountFile } from './account-file.schemas.ts';
import { configConflict, validationFailed } from './event-config.errors.ts';
import type { EventDocument, EventIn, TicketTypeIn } from './event-document.ts';
import { eventRow, readDocument } from './event-document.repo.ts';
import { deleteEventWithoutOrders, writeEventDocument } from './event-writer.repo.ts';

/*
 * The event configuration API (contract section 6): the document read with its ETag, written
 * whole (PUT), duplicated, and one ticket type patched. Reading is event-document.repo.ts,
 * writing event-writer.repo.ts, the same writer `admit import` creates events with.
 */

export type { EventDocument };

export interface EventConfig {
  document: EventDocument;
  etag: string;
}

export function etagOf(document: EventDocument): string {
  return `"${createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 27)}"`;
}

export async function getEventConfig(ctx: AppContext, accountId: number, slug: string): Promise<EventConfig> {
  const event = await eventRow(ctx.db, accountId, slug);
  if (!event) throw notFound(`No event with slug "${slug}"`);
  const document = await readDocument(ctx.db, event.id);
  return { document, etag: etagOf(document) };
}

/**
 * Checks a document as the importer checks an account file (the same schema and cross-checks),
 * for the event at `slug` of this account. Fields are keyed by JSON path (`$.ticket_types[0].price`).
 */
export async function validateDocument(db: Db, accountId: number, slug: string, body: unknown): Promise<EventIn> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw validationFailed({ $: ['must be an object'] });
  const given = body as Record<string, unknown>;
  if (given.slug !== undefined && given.slug !== slug) {
    throw validationFailed({ '$.slug': [`must equal the slug in the path ("${slug}")`] });
  }
  if (given.orders !== undefined) throw validationFailed({ '$.orders': ['orders are not part of an event configuration'] });
  const account = await db.selectFrom('accounts').select(['slug', 'name']).where('id', '=', accountId).executeTakeFirstOrThrow();
  const series = await db.selectFrom('series').select(['slug', 'name']).where('account_id', '=', accountId).execute();
  const file = {
    account: { slug: account.slug, name: account.name },
    series,
    events: [{ ...given, slug }],
  };
  try {
    return parseAccountFile(file).events![0]!;
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'invalid_account_file') throw err;
    const fields: Record<string, string[]> = {};
    for (const p of (err.extra?.problems as string[] | undefined) ?? [err.message]) {
      const m = /^\$\.events\[0\](\S*?): (.*)$/s.exec(p);
      const key = m ? `$${m[1]}` : '$';
      (fields[key] ??= []).push(m ? m[2]! : p);
    }
    throw validationFailed(fields);
  }
}

export interface PutResult extends EventConfig {
  created: boolean;
}

/**
 * Creates the event (new slug) or applies the difference to it, in one transaction under the
 * event row's lock. `ifMatch`: the ETag the caller last read; a stale one is 412.
 */
export async function putEventConfig(
  ctx: AppContext,
  accountId: number,
  slug: string,
  body: unknown,
  ifMatch?: string,
  opts: { createOnly?: boolean } = {},
): Promise<PutResult> {
  const doc = await validateDocument(ctx.db, accountId, slug, body);
  const result = await ctx.db.transaction().execute(async (trx) => {
    const event = await eventRow(trx, accountId, slug, true);
    if (event && opts.createOnly) throw configConflict('$.slug', `an event with slug "${slug}" exists`);
    if (ifMatch !== undefined && ifMatch.trim() !== '*') {
      const current = event ? etagOf(await readDocument(trx, event.id)) : null;
      const tags = ifMatch.split(',').map((t) => t.trim().replace(/^W\//, ''));
      if (!current || !tags.includes(current)) {
        throw new AppError(
          'precondition_failed',
          'precondition_failed',
          'The event changed since it was read (If-Match does not match its ETag); read it again and reapply the change',
        );
      }
    }
    let eventId: number;
    try {
      ({ id: eventId } = (await writeEventDocument(trx, ctx.clock.now(), accountId, event ?? null, doc)).event);
    } catch (err) {
      // another request created this slug at the same moment
      if (!event && isUniqueViolation(err)) throw configConflict('$.slug', `an event with slug "${slug}" was just created`);
      throw err;
    }
    const document = await readDocument(trx, eventId);
    return { document, etag: etagOf(document), created: !event };
  });
  // this instance sees the change at once; every other within its cache TTL (catalogueCacheMs, 1 s)
  clearCaches(ctx.db);
  return result;
}

export interface DuplicateInput {
  slug: string;
  name?: string;
  starts_at?: string;
  /** the copy's status; default: the original's (the console makes drafts) */
  status?: 'draft' | 'published';
}

/**
 * A new event with the configuration of `slug` and no orders; every date moves by the offset
 * between the two starts. Returns the new event's slug. 409 when the new slug is taken.
 */
export async function duplicateEvent(ctx: AppContext, accountId: number, slug: string, input: DuplicateInput): Promise<string> {
  const { document } = await getEventConfig(ctx, accountId, slug);
  if (await eventRow(ctx.db, accountId, input.slug)) throw configConflict('$.slug', `an event with slug "${input.slug}" exists`);
  const start = input.starts_at ?? document.starts_at;
  if (Number.isNaN(Date.parse(start))) throw validationFailed({ '$.starts_at': ['must be a date-time'] });
  const offset = Date.parse(start) - Date.parse(document.starts_at);
  const move = (at: string | undefined) => (at === undefined ? undefined : new Date(Date.parse(at) + offset).toISOString());
  const copy: EventDocument = {
    ...document,
    slug: input.slug,
    name: input.name ?? document.name,
    starts_at: move(document.starts_at)!,
    ...(document.ends_at ? { ends_at: move(document.ends_at)! } : {}),
    ...(document.sales_end_at ? { sales_end_at: move(document.sales_end_at)! } : {}),
    ...(document.payment_expires_at ? { payment_expires_at: move(document.payment_expires_at)! } : {}),
    ...(document.sales_start_at ? { sales_start_at: move(document.sales_start_at)! } : {}),
    status: input.status ?? document.status ?? 'published',
    // a new event is on the lists, whatever became of the one it copies
    archived: false,
    sessions: (document.sessions ?? []).map((s) => ({
      ...s,
      starts_at: move(s.starts_at)!,
      ...(s.ends_at ? { ends_at: move(s.ends_at)! } : {}),
    })),
    // archived ticket types stay behind: nothing refers to them in a new event
    ticket_types: (document.ticket_types ?? []).filter((t) => !t.archived),
  };
  const kept = new Set((copy.ticket_types ?? []).map((t) => t.key));
  copy.sessions = copy.sessions!.map((s) => ({ ...s, ticket_types: (s.ticket_types ?? []).filter((k) => kept.has(k)) }));
  copy.discount_codes = (copy.discount_codes ?? []).map((c) =>
    c.ticket_types ? { ...c, ticket_types: c.ticket_types.filter((k) => kept.has(k)) } : c,
  );
  copy.checkin_lists = (copy.checkin_lists ?? []).map((l) =>
    l.ticket_types ? { ...l, ticket_types: l.ticket_types.filter((k) => kept.has(k)) } : l,
  );
  const result = await putEventConfig(ctx, accountId, input.slug, copy, undefined, { createOnly: true });
  return result.document.slug;
}

export interface TicketTypePatch {
  name?: string;
  price_cents?: number;
  capacity?: number | null;
  max_per_order?: number | null;
  on_sale?: boolean;
  position?: number;
}

/** Merges the patch into the event's document and applies it (same rules and errors); returns the type's key. */
export async function patchTicketType(
  ctx: AppContext,
  accountId: number,
  slug: string,
  id: number,
  patch: TicketTypePatch,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const { document, etag } = await getEventConfig(ctx, accountId, slug);
    const row = await ctx.db
      .selectFrom('ticket_types as t')
      .innerJoin('events as e', 'e.id', 't.event_id')
      .select(['t.key', 't.archived'])
      .where('e.account_id', '=', accountId)
      .where('e.slug', '=', slug)
      .where('t.id', '=', id)
      .executeTakeFirst();
    if (!row || row.archived) throw notFound(`No ticket type ${id} in event "${slug}"`);
    const types = (document.ticket_types ?? []).map((t) => {
      if (t.key !== row.key) return t;
      const merged: TicketTypeIn = { ...t };
      if (patch.name !== undefined) merged.name = patch.name;
      if (patch.price_cents !== undefined) merged.price = patch.price_cents;
      if (patch.capacity !== undefined) merged.capacity = patch.capacity;
      if (patch.max_per_order !== undefined) merged.max_per_order = patch.max_per_order;
      if (patch.on_sale !== undefined) merged.on_sale = patch.on_sale;
      if (patch.position !== undefined) merged.position = patch.position;
      return merged;
    });
    try {
      // the merge is against what was read: If-Match keeps a concurrent edit from being undone
      await putEventConfig(ctx, accountId, slug, { ...document, ticket_types: types }, etag);
      return;
    } catch (err) {
      if (attempt < 3 && err instanceof AppError && err.code === 'precondition_failed') continue;
      throw err;
    }
  }
}

/**
 * Deletes an event that has no orders (contract section 11): 404 when unknown, 409 `conflict` when
 * it has any order (archive it instead). Nothing is changed on a refusal.
 */
export async function deleteEvent(ctx: AppContext, accountId: number, slug: string): Promise<void> {
  let outcome: Awaited<ReturnType<typeof deleteEventWithoutOrders>>;
  for (let attempt = 0; ; attempt++) {
    try {
      outcome = await ctx.db.transaction().execute((trx) => deleteEventWithoutOrders(trx, accountId, slug));
      break;
    } catch (err) {
      // an order being written holds its items and waits for the event row: one of the two gives
      // way; run again, the delete then sees that order (409) or the order finds no event (404)
      if (attempt < 3 && isRetryableConflict(err)) continue;
      throw err;
    }
  }
  if (outcome === 'missing') throw notFound(`No event with slug "${slug}"`);
  if (outcome === 'has_orders') {
    throw new AppError('conflict', 'conflict', `The event "${slug}" has orders; it cannot be deleted (archive it instead)`);
  }
  clearCaches(ctx.db);
}
