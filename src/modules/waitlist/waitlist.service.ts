import type { AppContext } from '../../platform/context.ts';
import { isUniqueViolation } from '../../platform/db/pg-errors.ts';
import { enqueue } from '../../platform/jobs/outbox.ts';
import { MAX_LINE_QUANTITY } from '../../platform/limits.ts';
import { randomSecret } from '../../platform/secrets.ts';
import { iso } from '../../platform/time.ts';
import { findEventBySlug, type EventRow } from '../events/events.repo.ts';
import { lockStock, setWaitlisted } from '../inventory/waitlist-flag.repo.ts';
import { markCanceled, logOrder } from '../orders/order-state.repo.ts';
import { isEmail } from '../orders/orders.service.ts';
import { textCell } from '../orders/orders-csv.service.ts';
import { offerPass, offerSoon } from './offer.service.ts';
import { alreadyWaiting, entryClosed, entryNotFound, invalidEntry, nothingToOffer, waitingListOff } from './waitlist.errors.ts';
import {
  anyoneWaiting,
  entryForMail,
  findEntry,
  findEntryBySecret,
  insertEntry,
  listEntries,
  moveEntry,
  readTicketType,
  type EntryRow,
  type ListedEntry,
} from './waitlist.repo.ts';

/** An entry as the API answers it (contract section 13). */
export interface EntryOut {
  id: number;
  ticket_type_id: number;
  quantity: number;
  email: string;
  name: string;
  position: number | null;
  status: EntryRow['status'];
  created_at: string;
  offered_at: string | null;
  expires_at: string | null;
  /** the offer's order ref */
  order: string | null;
}

export function presentEntry(e: ListedEntry): EntryOut {
  return {
    id: e.id,
    ticket_type_id: e.ticket_type_id,
    quantity: e.quantity,
    email: e.email,
    name: e.name,
    position: e.position,
    status: e.status,
    created_at: iso(e.created_at)!,
    offered_at: iso(e.offered_at),
    expires_at: iso(e.expires_at),
    order: e.order_ref,
  };
}

export interface JoinInput {
  ticket_type_id: number;
  quantity: number;
  email: string;
  name: string;
  locale?: string | null;
}

/** The entries of an event, oldest first, with their places (paged by id). */
export async function listWaitingList(ctx: AppContext, event: EventRow, opts: { after?: number; limit?: number } = {}) {
  const limit = Math.min(200, Math.max(1, opts.limit ?? 50));
  const rows = await listEntries(ctx.db, event.id, {
    ...(opts.after !== undefined ? { after: opts.after } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  return { entries: page.map(presentEntry), next_after: rows.length > limit ? String(page[page.length - 1]!.id) : null };
}

/** Every entry of an event, for the console and its CSV. */
export async function allEntries(ctx: AppContext, event: EventRow): Promise<EntryOut[]> {
  return (await listEntries(ctx.db, event.id)).map(presentEntry);
}

/**
 * Puts a person on the list for a ticket type (behind everyone already on it) and mails the
 * confirmation with the link to leave. The type's stock row is flagged so the public sees it
 * sold out from now on; if units are free already, the pass offers them at once.
 */
export async function joinWaitingList(ctx: AppContext, event: EventRow, input: JoinInput): Promise<EntryOut> {
  if (!event.waiting_list_enabled) throw waitingListOff();
  const fields: Record<string, string[]> = {};
  const type = await readTicketType(ctx.db, event.id, input.ticket_type_id);
  const email = input.email.trim();
  const name = input.name.trim();
  if (!type || type.archived) fields.ticket_type_id = ['is not a ticket type of this event'];
  else if (type.inventory_id === null) fields.ticket_type_id = ['has no capacity: it never sells out'];
  else if (type.requires_session) fields.ticket_type_id = ['is sold by session: the waiting list takes types without sessions'];
  const cap = type?.max_per_order ?? MAX_LINE_QUANTITY;
  if (!Number.isInteger(input.quantity) || input.quantity < 1 || input.quantity > cap)
    fields.quantity = [`must be between 1 and ${cap} (the type's per-order cap)`];
  if (!isEmail(email)) fields.email = ['is not an email address'];
  if (name === '' || name.length > 200) fields.name = ['is required (at most 200 characters)'];
  if (Object.keys(fields).length) throw invalidEntry(fields);
  const inventoryId = type!.inventory_id!;
  const now = ctx.clock.now();
  let entry: EntryRow;
  try {
    entry = await ctx.db.transaction().execute(async (trx) => {
      await lockStock(trx, inventoryId);
      const row = await insertEntry(trx, {
        account_id: event.account_id,
        event_id: event.id,
        ticket_type_id: type!.id,
        quantity: input.quantity,
        email,
        name,
        locale: input.locale ?? null,
        leave_secret: randomSecret(),
        created_at: now,
      });
      await setWaitlisted(trx, inventoryId, true);
      await enqueue(trx, { accountId: event.account_id, kind: 'mail.waiting_list_joined', payload: { entry_id: row.id } });
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err, ['waiting_list_entries_live'])) throw alreadyWaiting();
    throw err;
  }
  await offerSoon(ctx, { accountId: event.account_id, eventSlug: event.slug, ticketTypeId: type!.id, inventoryId });
  return presentEntry(await listedEntry(ctx, event.id, entry.id));
}

async function listedEntry(ctx: AppContext, eventId: number, id: number): Promise<ListedEntry> {
  const rows = await listEntries(ctx.db, eventId, { after: id - 1, limit: 1 });
  if (rows[0]?.id !== id) throw entryNotFound(id);
  return rows[0];
}

/**
 * Takes an entry off the list: a waiting one leaves its place, an offered one gives its order's
 * units back (the pending order is canceled) so they go to the next in line. Removing a removed
 * entry changes nothing; an accepted or expired one is history and stays.
 */
export async function removeEntry(ctx: AppContext, event: EventRow, id: number, by: string): Promise<void> {
  const found = await findEntry(ctx.db, event.id, id);
  if (!found) throw entryNotFound(id);
  const type = await readTicketType(ctx.db, event.id, found.ticket_type_id);
  const inventoryId = type?.inventory_id ?? null;
  await ctx.db.transaction().execute(async (trx) => {
    if (inventoryId !== null) await lockStock(trx, inventoryId);
    const entry = (await findEntry(trx, event.id, id, true))!;
    if (entry.status === 'removed') return;
    if (entry.status !== 'waiting' && entry.status !== 'offered') throw entryClosed(entry.status);
    const now = ctx.clock.now();
    await moveEntry(trx, id, ['waiting', 'offered'], { status: 'removed', at: now });
    if (entry.status === 'offered' && entry.order_id !== null) {
      const order = await trx
        .selectFrom('orders')
        .select(['id', 'account_id', 'status'])
        .where('id', '=', entry.order_id)
        .executeTakeFirst();
      if (order?.status === 'pending') {
        await markCanceled(trx, order.id, now, { releaseHold: true });
        await logOrder(trx, order, 'canceled', now, { reason: 'removed from the waiting list', by });
      }
    }
    if (inventoryId !== null) await setWaitlisted(trx, inventoryId, await anyoneWaiting(trx, entry.ticket_type_id));
  });
  // what it held or stood in front of goes to the next in line now
  if (inventoryId !== null)
    await offerSoon(ctx, { accountId: event.account_id, eventSlug: event.slug, ticketTypeId: found.ticket_type_id, inventoryId });
}

/** The entry behind a leave link, or 404. */
export async function entryBySecret(ctx: AppContext, secret: string): Promise<EntryRow> {
  const entry = secret.length >= 16 && secret.length <= 64 ? await findEntryBySecret(ctx.db, secret) : undefined;
  if (!entry) throw entryNotFound('behind this link');
  return entry;
}

/** "Offer now" from the console: this entry gets the free units ahead of its turn, or 409. */
export async function offerNow(ctx: AppContext, event: EventRow, id: number): Promise<void> {
  const entry = await findEntry(ctx.db, event.id, id);
  if (!entry) throw entryNotFound(id);
  const type = await readTicketType(ctx.db, event.id, entry.ticket_type_id);
  if (entry.status !== 'waiting' || !type?.inventory_id) throw nothingToOffer();
  const done = await offerPass(
    ctx,
    { accountId: event.account_id, eventSlug: event.slug, ticketTypeId: entry.ticket_type_id, inventoryId: type.inventory_id },
    { entryId: id },
  );
  if (!done.includes(id)) throw nothingToOffer();
}

/** What the page behind a leave link shows: the place, the event and whether it can still be left. */
export async function leaveInfo(ctx: AppContext, secret: string) {
  const entry = await entryBySecret(ctx, secret);
  const info = (await entryForMail(ctx.db, entry.id))!;
  return {
    id: entry.id,
    accountId: entry.account_id,
    eventLocale: info.event_locale,
    locale: entry.locale,
    quantity: entry.quantity,
    type: info.type_name,
    event: info.event_name,
    open: entry.status === 'waiting' || entry.status === 'offered',
    left: entry.status === 'removed',
  };
}

/** The person leaves through their link's page (its form posted): as a removal by the organiser. */
export async function leaveWaitingList(ctx: AppContext, secret: string): Promise<void> {
  const entry = await entryBySecret(ctx, secret);
  const info = (await entryForMail(ctx.db, entry.id))!;
  const event = await findEventBySlug(ctx.db, entry.account_id, info.event_slug);
  if (!event) throw entryNotFound('behind this link');
  if (entry.status !== 'waiting' && entry.status !== 'offered') return;
  await removeEntry(ctx, event, entry.id, 'the person, by their link');
}

/** The event's list as CSV (UTF-8 with BOM), oldest first; cells that a spreadsheet would run stay text. */
export async function waitingListCsv(ctx: AppContext, event: EventRow): Promise<{ filename: string; body: string }> {
  const rows = await allEntries(ctx, event);
  const types = new Map(
    (await ctx.db.selectFrom('ticket_types').select(['id', 'name']).where('event_id', '=', event.id).execute()).map((t) => [
      t.id,
      t.name,
    ]),
  );
  const head = [
    'id',
    'position',
    'status',
    'ticket_type',
    'quantity',
    'name',
    'email',
    'created_at',
    'offered_at',
    'expires_at',
    'order',
  ];
  const lines = rows.map((e) =>
    [
      String(e.id),
      e.position === null ? '' : String(e.position),
      e.status,
      textCell(types.get(e.ticket_type_id) ?? ''),
      String(e.quantity),
      textCell(e.name),
      textCell(e.email),
      e.created_at,
      e.offered_at ?? '',
      e.expires_at ?? '',
      e.order ?? '',
    ].join(','),
  );
  return { filename: `${event.slug}-waiting-list.csv`, body: `\uFEFF${[head.join(','), ...lines].join('\r\n')}\r\n` };
}
