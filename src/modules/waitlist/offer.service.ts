import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError } from '../../platform/errors.ts';
import { enqueue } from '../../platform/jobs/outbox.ts';
import type { Job } from '../../platform/jobs/jobs.ts';
import { findEventBySlug, type EventRow } from '../events/events.repo.ts';
import { lockStock, setWaitlisted } from '../inventory/waitlist-flag.repo.ts';
import { expireLapsedHolds } from '../orders/order-state.repo.ts';
import { prepareOffer, writeOffer } from '../orders/place-order.service.ts';
import {
  anyoneWaiting,
  findEntry,
  firstFitting,
  offeredEntries,
  moveEntry,
  typesWithWork,
  type EntryRow,
} from './waitlist.repo.ts';

/**
 * Freed units go to the waiting list before the public. For a ticket type with someone waiting,
 * a pass (the background job, after a join or a removal, or "offer now" in the console):
 *
 * 1. under the type's inventory row lock: ends the holds on it that ran out (an offer's unpaid
 *    order among them), settles open offers (paid: accepted; ended: expired), and picks the first
 *    waiting entry, in arrival order, whose quantity fits the free units;
 * 2. prices that entry's order outside any transaction, like any order;
 * 3. under the lock again: checks the entry is still waiting and still the one to offer, writes
 *    the order (it may take the units the public sees sold out), marks the entry offered and
 *    queues the offer mail; the order's log entry makes the webhook.
 *
 * The lock serialises every pass and every change of the type's entries, on any instance; the
 * entry's status guard and the order's unique link make an offer happen once. Units stay in the
 * inventory row's count the whole time, so none is lost or given to two people.
 */

const OFFER_MAIL = 'mail.waiting_list_offer';

/** Refusals of an offer's order that hold for every entry of the event (sales over or not begun, the event gone). */
const EVENT_WIDE = new Set(['sales_closed', 'sales_not_started', 'not_found']);

export interface PassTarget {
  accountId: number;
  eventSlug: string;
  ticketTypeId: number;
  inventoryId: number;
}

/**
 * A pass right after a change of the list (a join, a removal): what fails here (a deadlock with a
 * sale) is left to the periodic job, so the change that was committed is still answered as done.
 */
export async function offerSoon(ctx: AppContext, target: PassTarget): Promise<void> {
  try {
    await offerPass(ctx, target);
  } catch (err) {
    ctx.log.warn({ err, ticketTypeId: target.ticketTypeId }, 'waiting list pass failed; the job tries again');
  }
}

/** Offers every free unit of one type to its waiting list; returns the entries offered. */
export async function offerPass(ctx: AppContext, target: PassTarget, opts: { entryId?: number } = {}): Promise<number[]> {
  const offered: number[] = [];
  const refused: number[] = [];
  for (let round = 0; round < 100; round++) {
    const candidate = await ctx.db.transaction().execute((trx) => settleAndPick(trx, ctx, target, refused, opts.entryId));
    if (!candidate) break;
    const event = await findEventBySlug(ctx.db, target.accountId, target.eventSlug);
    if (!event) break;
    let prepared;
    try {
      prepared = await prepareOffer(ctx, offerInput(target, event, candidate));
    } catch (err) {
      // the entry's order cannot be made now (sales closed, type off sale): it keeps its place,
      // the others are tried; the next pass tries again
      if (!(err instanceof AppError)) throw err;
      if (opts.entryId !== undefined) throw err;
      // the event itself sells nothing now: nobody behind this entry can be offered either
      if (EVENT_WIDE.has(err.code)) break;
      refused.push(candidate.id);
      continue;
    }
    const done = await ctx.db.transaction().execute(async (trx) => {
      const stock = await lockStock(trx, target.inventoryId);
      if (!stock) return false;
      const entry = await findEntry(trx, event.id, candidate.id, true);
      if (!entry || entry.status !== 'waiting') return false;
      if (opts.entryId === undefined) {
        // still the first that fits: nobody earlier came back into line meanwhile
        const first = await firstFitting(trx, target.ticketTypeId, stock.capacity - stock.taken, refused);
        if (first?.id !== entry.id) return false;
      } else if (entry.quantity > stock.capacity - stock.taken) return false;
      let order;
      try {
        order = await writeOffer(trx, ctx, prepared, { waiting_list_entry: entry.id });
      } catch (err) {
        // short elsewhere (an included good): this entry waits, the others are tried
        if (err instanceof AppError) return 'refused';
        throw err;
      }
      const now = ctx.clock.now();
      await moveEntry(trx, entry.id, ['waiting'], {
        status: order.status === 'paid' ? 'accepted' : 'offered',
        at: now,
        order_id: order.id,
        offered_at: now,
        expires_at: order.expires_at,
      });
      if (order.status !== 'paid')
        await enqueue(trx, { accountId: target.accountId, kind: OFFER_MAIL, payload: { entry_id: entry.id } });
      await setWaitlisted(trx, target.inventoryId, await anyoneWaiting(trx, target.ticketTypeId));
      return 'offered';
    });
    if (done === 'refused') {
      refused.push(candidate.id);
      if (opts.entryId !== undefined) break;
      continue;
    }
    if (done === false) {
      // someone else moved first (another instance's pass, a removal, a sale before the list
      // existed): start over from what the database says now
      if (opts.entryId !== undefined) break;
      continue;
    }
    offered.push(candidate.id);
    if (opts.entryId !== undefined) break;
  }
  return offered;
}

function offerInput(target: PassTarget, event: EventRow, entry: EntryRow) {
  return {
    accountId: target.accountId,
    event,
    channel: 'web' as const,
    items: [{ ticket_type_id: entry.ticket_type_id, quantity: entry.quantity }],
    email: entry.email,
    name: entry.name,
    locale: entry.locale,
    holdMs: event.waiting_list_offer_minutes * 60_000,
  };
}

/**
 * Step 1 of a pass, in one transaction under the type's stock lock (skipped when another
 * transaction holds it: that one is selling or offering, and the next pass comes). Returns the
 * entry to offer, or none.
 */
async function settleAndPick(
  trx: Db,
  ctx: AppContext,
  target: PassTarget,
  refused: number[],
  entryId?: number,
): Promise<EntryRow | undefined> {
  const now = ctx.clock.now();
  if (!(await lockStock(trx, target.inventoryId, { skipLocked: entryId === undefined }))) return undefined;
  await expireLapsedHolds(trx, now, { inventoryId: target.inventoryId });
  await settleOffers(trx, target.ticketTypeId, now);
  const stock = (await lockStock(trx, target.inventoryId))!;
  const waiting = await anyoneWaiting(trx, target.ticketTypeId);
  await setWaitlisted(trx, target.inventoryId, waiting);
  if (!waiting) return undefined;
  const free = stock.capacity - stock.taken;
  if (entryId !== undefined) {
    const entry = await trx
      .selectFrom('waiting_list_entries')
      .selectAll()
      .where('id', '=', entryId)
      .where('ticket_type_id', '=', target.ticketTypeId)
      .executeTakeFirst();
    return entry && entry.status === 'waiting' && entry.quantity <= free ? entry : undefined;
  }
  if (free <= 0) return undefined;
  return firstFitting(trx, target.ticketTypeId, free, refused);
}

/** Open offers whose order is no longer pending: paid ones accepted, ended ones expired. */
async function settleOffers(trx: Db, ticketTypeId: number, now: Date): Promise<void> {
  for (const e of await offeredEntries(trx, ticketTypeId)) {
    if (e.order_status === 'pending') continue;
    const status = e.order_status === 'paid' || e.order_status === 'refunded' ? 'accepted' : 'expired';
    await moveEntry(trx, e.id, ['offered'], { status, at: now });
  }
}

/** Every type with someone waiting or an offer open, one pass each; any instance may run it at once. */
export async function offerFreedUnits(ctx: AppContext): Promise<number> {
  let n = 0;
  for (const t of await typesWithWork(ctx.db)) {
    if (t.inventory_id === null) continue;
    try {
      n += (
        await offerPass(ctx, {
          accountId: t.account_id,
          eventSlug: t.event_slug,
          ticketTypeId: t.ticket_type_id,
          inventoryId: t.inventory_id,
        })
      ).length;
    } catch (err) {
      // one type's trouble (a deadlock with a sale, retried next run) does not stop the others
      ctx.log.warn({ err, ticketTypeId: t.ticket_type_id }, 'waiting list pass failed');
    }
  }
  return n;
}

/** The periodic pass: catches every way units come free (expiry, cancel, refund, more capacity). */
export const waitlistJob: Job = {
  name: 'waiting-list',
  every: 10_000,
  run: offerFreedUnits,
};
