import { sql } from 'kysely';
import { perDb } from '../../platform/cache.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { isRetryableConflict, isUniqueViolation } from '../../platform/db/pg-errors.ts';
import type { AppError } from '../../platform/errors.ts';
import { countSeatedBatch, observeOrderBatch } from '../../platform/metrics.ts';
import { fulfilOrder } from './fulfil-order.service.ts';
import { catalogueChanged, invalidCode, shortOfStock } from './orders.errors.ts';
import { expireLapsedHolds } from './order-state.repo.ts';
import { chooseSeats, writeSeatPicks } from './order-seats.repo.ts';
import { forgetSeats, seatViews, writeSeatedOrders } from './seated-orders.repo.ts';
import type { SeatPick } from './seat-allocation.ts';
import type { SeatLayout } from '../inventory/seats.repo.ts';
import type { PreparedOrder, WriteOutcome } from './prepared-order.ts';
import {
  byAccountRef,
  createdLogData,
  insertOrders,
  inSentOrder,
  jsonInsert,
  plainInventory,
  withGeneratedKeys,
  writeTogether,
} from './plain-orders.repo.ts';

/**
 * The write stage of the checkout pipeline, with group commit.
 *
 * Every order that passed validation and pricing is queued here per event. While one batch of
 * that event's orders is being written, the orders that arrive queue up; when it commits, the
 * next batch takes all of them (up to MAX_BATCH). A batch is one short transaction: it claims
 * the Idempotency-Keys, locks the inventory rows it needs (id order) and reads capacity and
 * taken under that lock (the availability read of spec rule 8, exact because nothing can change
 * them until the commit), grants orders first come first served, redeems codes under their row
 * locks, and writes all granted orders with one statement per table. With no contention a batch
 * is a single order and adds no waiting; under a flash sale the cost of the hot inventory row
 * (one lock, one commit) is shared by every order in the batch. The common batch, plain orders
 * on one inventory row with room for all of them, is written by one statement instead
 * (writePlainGroups, through writeTogether): one round trip, and the hot row locked for that statement alone. Such
 * batches of different events that are ready at the same moment share that statement (a
 * second level of group commit, across events: on a platform most events sell a few orders at
 * a time, so batches of one event are mostly single orders, each paying for its own commit,
 * triggers and planning); each event still has one batch in flight at a time.
 *
 * Correctness never depends on this process being alone: capacity is checked under the row lock
 * inside the transaction, so batches from any number of instances serialise on the row and
 * can never oversell. The queue is only a way to share a transaction; losing it (a crash) loses
 * nothing that was committed, and nothing that was not committed was answered.
 */

export type { OrderRow, PreparedOrder, WriteOutcome } from './prepared-order.ts';

/** Largest number of orders written by one transaction. */
export const MAX_BATCH = 200;

interface Job {
  order: PreparedOrder;
  resolve: (o: WriteOutcome) => void;
  reject: (e: unknown) => void;
}

interface Queue {
  waiting: Job[];
  running: boolean;
}

const queues = new WeakMap<Db, Map<number, Queue>>();

/** Writes one prepared order, sharing a transaction with the event's other orders in flight. */
export function writeOrder(ctx: AppContext, order: PreparedOrder): Promise<WriteOutcome> {
  const byEvent = perDb(queues, ctx.db, () => new Map<number, Queue>());
  const eventId = order.row.event_id;
  let queue = byEvent.get(eventId);
  if (!queue) byEvent.set(eventId, (queue = { waiting: [], running: false }));
  const q = queue;
  return new Promise<WriteOutcome>((resolve, reject) => {
    q.waiting.push({ order, resolve, reject });
    if (!q.running) void drain(ctx, q, byEvent, eventId);
  });
}

async function drain(ctx: AppContext, q: Queue, byEvent: Map<number, Queue>, eventId: number): Promise<void> {
  q.running = true;
  try {
    while (q.waiting.length) {
      const jobs = q.waiting.splice(0, MAX_BATCH);
      try {
        const outcomes = await writeBatch(
          ctx,
          jobs.map((j) => j.order),
        );
        observeOrderBatch(outcomes.filter((o) => 'created' in o && o.created).length);
        jobs.forEach((j, i) => j.resolve(outcomes[i]!));
      } catch (err) {
        for (const j of jobs) j.reject(err);
      }
    }
  } finally {
    q.running = false;
    if (q.waiting.length === 0) byEvent.delete(eventId);
    else void drain(ctx, q, byEvent, eventId);
  }
}

// order_seats_live: a seat taken by a writer that did not hold the type's row lock (a plan change
// racing a batch); the batch is tried again and then sees it taken
const COLLISIONS = ['orders_account_id_ref_key', 'orders_qr_token_key', 'orders_access_secret_key', 'order_seats_live'];

/** One transaction for the batch; retried with new refs if a generated one collided, or on a deadlock. */
export async function writeBatch(ctx: AppContext, orders: PreparedOrder[]): Promise<WriteOutcome[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      const shared = plainInventory(orders);
      const written = shared ? await writeTogether(ctx.db, { orders, ...shared }) : null;
      if (written) return written.map((order) => ({ created: true, order }));
      const seated = await writeSeatedOrders(ctx.db, orders);
      if (seated) return seated;
      return await ctx.db.transaction().execute((trx) => batchTransaction(trx, ctx, orders));
    } catch (err) {
      if (attempt < 3 && (isUniqueViolation(err, COLLISIONS) || isRetryableConflict(err))) continue;
      throw err;
    }
  }
}

async function batchTransaction(
  trx: Db,
  ctx: AppContext,
  orders: PreparedOrder[],
  /** a waiting list's offer: it may take the units of a waitlisted row, which the public may not */
  offer = false,
): Promise<WriteOutcome[]> {
  const outcomes: Array<WriteOutcome | undefined> = new Array(orders.length);
  const now = orders[0]!.now;

  // 1. Idempotency-Keys. A key repeated inside the batch follows its first use.
  const leaderOf = new Map<number, number>();
  const firstByKey = new Map<string, number>();
  orders.forEach((o, i) => {
    if (!o.idempotency) return;
    const k = `${o.idempotency.tokenId}\u0000${o.idempotency.key}`;
    const first = firstByKey.get(k);
    if (first === undefined) firstByKey.set(k, i);
    else leaderOf.set(i, first);
  });
  const keyed = [...firstByKey.values()];
  if (keyed.length) {
    // sorted, so two batches claiming the same keys take their index locks in the same order
    keyed.sort((a, b) => compareKeys(orders[a]!.idempotency!, orders[b]!.idempotency!));
    const claimed = await trx
      .insertInto('idempotency_keys')
      .values(
        keyed.map((i) => ({
          account_id: orders[i]!.row.account_id,
          token_id: orders[i]!.idempotency!.tokenId,
          key: orders[i]!.idempotency!.key,
        })),
      )
      .onConflict((oc) => oc.columns(['token_id', 'key']).doNothing())
      .returning(['token_id', 'key'])
      .execute();
    const won = new Set(claimed.map((c) => `${c.token_id}\u0000${c.key}`));
    const lost = keyed.filter((i) => !won.has(`${orders[i]!.idempotency!.tokenId}\u0000${orders[i]!.idempotency!.key}`));
    for (const i of lost) {
      const k = orders[i]!.idempotency!;
      const row = await trx
        .selectFrom('idempotency_keys')
        .select('order_id')
        .where('token_id', '=', k.tokenId)
        .where('key', '=', k.key)
        .executeTakeFirst();
      if (row?.order_id == null) throw new Error('idempotency key row without an order');
      outcomes[i] = { created: false, orderId: row.order_id };
    }
  }
  let active = orders.map((_, i) => i).filter((i) => outcomes[i] === undefined && !leaderOf.has(i));

  // 1b. Items the (cached) catalogue knew without a limit, re-read under a share lock: an
  // organiser giving one a capacity locks its row, so either this batch commits first and is
  // counted, or it sees the new inventory row here and the order is priced again.
  const stale = await staleUnlimited(trx, orders, active);
  if (stale.size) {
    for (const i of stale) outcomes[i] = { rejected: catalogueChanged() };
    active = active.filter((i) => !stale.has(i));
  }

  // 2. Stock, under the inventory rows' locks: first come, first served.
  const inventoryIds = [...new Set(active.flatMap((i) => [...orders[i]!.units.keys()]))].sort((a, b) => a - b);
  let granted = active;
  let picks = new Map<number, SeatPick[]>();
  let layout: SeatLayout | null = null;
  if (inventoryIds.length) {
    let stock = await lockInventory(trx, inventoryIds, offer);
    // 2a. Seats first, under those locks (a seated type always has its row): an order refused its
    // seats takes no units, so the units go to orders that can be seated.
    if (active.some((i) => orders[i]!.seats?.length)) {
      const seated = await chooseSeats(trx, ctx.db, orders[0]!.row.event_id, (i) => orders[i]!.seats, active, now);
      for (const [i, err] of seated.rejected) outcomes[i] = { rejected: err };
      active = seated.granted;
      picks = seated.picks;
      layout = seated.layout;
      // this transaction changes the seats: what the one-statement path knew of them is old
      forgetSeats(ctx.db, orders[0]!.row.event_id);
      countSeatedBatch('transaction');
    }
    let allocation = allocate(orders, active, stock);
    if (allocation.shortOf.size) {
      // Holds that ran out still count in `taken` until swept: release those on the rows that
      // came up short, then allocate again from what the rows now say.
      let released = 0;
      for (const id of [...allocation.shortOf].sort((a, b) => a - b))
        released += (await expireLapsedHolds(trx, now, { inventoryId: id })).length;
      if (released) {
        stock = await lockInventory(trx, inventoryIds, offer);
        allocation = allocate(orders, active, stock);
      }
    }
    granted = allocation.granted;
    for (const [i, err] of allocation.rejected) outcomes[i] = { rejected: err };
  }

  // 3. Discount codes with limited uses, under their rows' locks, in the same arrival order.
  const codeIds = [...new Set(granted.flatMap((i) => orders[i]!.codes.map((c) => c.id)))].sort((a, b) => a - b);
  const uses = new Map<number, number>();
  if (codeIds.length) {
    const rows = await trx
      .selectFrom('discount_codes')
      .select(['id', 'uses', 'max_uses'])
      .where('id', 'in', codeIds)
      .orderBy('id')
      .forUpdate()
      .execute();
    const left = new Map(rows.map((r) => [r.id, r.max_uses === null ? Infinity : r.max_uses - r.uses]));
    granted = granted.filter((i) => {
      // `uses + n <= max_uses` for the n times this order names a code, whoever wrote its list
      const wants = new Map<number, number>();
      for (const c of orders[i]!.codes) wants.set(c.id, (wants.get(c.id) ?? 0) + 1);
      const used = orders[i]!.codes.find((c) => (left.get(c.id) ?? 0) < wants.get(c.id)!);
      if (used) {
        outcomes[i] = { rejected: invalidCode(`The code "${used.code}" has been used up`) };
        return false;
      }
      for (const [id, n] of wants) {
        left.set(id, left.get(id)! - n);
        uses.set(id, (uses.get(id) ?? 0) + n);
      }
      return true;
    });
  }

  // Keys claimed by orders that were refused are given back, so a retry can create its order.
  const refusedKeys = keyed.filter((i) => outcomes[i] && 'rejected' in outcomes[i]!);
  for (const i of refusedKeys) {
    await trx
      .deleteFrom('idempotency_keys')
      .where('token_id', '=', orders[i]!.idempotency!.tokenId)
      .where('key', '=', orders[i]!.idempotency!.key)
      .execute();
  }

  if (granted.length) {
    // 4. The orders, their lines, discounts and log, one statement each.
    const values = granted.map((i) => withGeneratedKeys(orders[i]!));
    const rows = inSentOrder(values, byAccountRef(await insertOrders(trx, values)));
    if (!rows) throw new Error('an insert returned none of its orders');
    const lineRows = granted.flatMap((i, n) =>
      orders[i]!.lines.map((l, position) => ({
        account_id: rows[n]!.account_id,
        order_id: rows[n]!.id,
        event_id: rows[n]!.event_id,
        position,
        ...l,
      })),
    );
    const discountRows = granted.flatMap((i, n) =>
      orders[i]!.codes.map((c, position) => ({
        account_id: rows[n]!.account_id,
        order_id: rows[n]!.id,
        discount_code_id: c.id,
        code: c.code,
        amount_cents: c.amount_cents,
        position,
      })),
    );
    if (discountRows.length) await trx.insertInto('order_discounts').values(discountRows).execute();

    // 5. Lines, log and the stock taken, in one statement: the fewer round trips under the
    //    stock row's lock, the sooner the next batch has it.
    const logRows = granted.map((i, n) => ({
      account_id: rows[n]!.account_id,
      order_id: rows[n]!.id,
      action: 'created',
      data: createdLogData(orders[i]!),
      created_at: now,
    }));
    const taken = new Map<number, number>();
    for (const i of granted) for (const [id, q] of orders[i]!.units) taken.set(id, (taken.get(id) ?? 0) + q);
    const ids = [...taken.keys()].sort((a, b) => a - b);
    if (lineRows.length && ids.length) {
      const units = sql<{
        id: number;
        q: number;
      }>`(select unnest(${ids}::bigint[]) as id, unnest(${ids.map((id) => taken.get(id)!)}::int[]) as q)`;
      await sql`
        with lines as (${jsonInsert('order_lines', lineRows)}),
        log as (${jsonInsert('order_log', logRows)})
        update inventory set taken = inventory.taken + u.q from ${units} as u where inventory.id = u.id`.execute(trx);
    } else {
      // nothing with stock (a donation alone)
      if (lineRows.length) await jsonInsert('order_lines', lineRows).execute(trx);
      await jsonInsert('order_log', logRows).execute(trx);
    }
    if (uses.size) {
      const ids = [...uses.keys()];
      await sql`update discount_codes d set uses = d.uses + u.n
        from unnest(${ids}::bigint[], ${ids.map((id) => uses.get(id)!)}::int[]) as u(id, n) where d.id = u.id`.execute(trx);
    }

    if (picks.size)
      await writeSeatPicks(
        trx,
        granted.map((i, n) => ({ order: rows[n]!, picks: picks.get(i) })),
      );

    // 6. Zero-total orders are paid at once: tickets minted, ticket mail queued.
    for (let n = 0; n < granted.length; n++) {
      if (rows[n]!.total_cents === 0) {
        await fulfilOrder(trx, ctx, rows[n]!, now, 'zero total');
        rows[n] = await trx.selectFrom('orders').selectAll().where('id', '=', rows[n]!.id).executeTakeFirstOrThrow();
      }
    }

    // 7. Each claimed key now names its order.
    const keyedGranted = granted.map((i, n) => ({ i, n })).filter(({ i }) => orders[i]!.idempotency);
    if (keyedGranted.length) {
      await sql`update idempotency_keys k set order_id = u.order_id
        from unnest(${keyedGranted.map(({ i }) => orders[i]!.idempotency!.tokenId)}::bigint[],
                    ${keyedGranted.map(({ i }) => orders[i]!.idempotency!.key)}::text[],
                    ${keyedGranted.map(({ n }) => rows[n]!.id)}::bigint[]) as u(token_id, key, order_id)
        where k.token_id = u.token_id and k.key = u.key`.execute(trx);
    }
    granted.forEach((i, n) => {
      const mine = picks.get(i);
      outcomes[i] =
        layout && mine && rows[n]!.status === 'pending'
          ? { created: true, order: rows[n]!, seats: seatViews(layout, mine) }
          : { created: true, order: rows[n]! };
    });
  }

  // A key used twice in one batch answers like a replay of its first use (or shares its refusal).
  for (const [i, leader] of leaderOf) {
    const o = outcomes[leader]!;
    outcomes[i] = 'created' in o && o.created ? { created: false, orderId: o.order.id } : o;
  }
  return outcomes.map((o) => o!);
}

interface Stock {
  remaining: Map<number, number>;
}

/**
 * A waiting list's offer, written in the caller's transaction (which holds the offer's entry and
 * the type's inventory row): it may take the units of a waitlisted row. One order, no group commit.
 */
export async function writeOfferOrder(trx: Db, ctx: AppContext, order: PreparedOrder): Promise<WriteOutcome> {
  const [outcome] = await batchTransaction(trx, ctx, [order], true);
  return outcome!;
}

/** The rows' stock under their locks; a waitlisted row has none for the public (its units go to the list first). */
async function lockInventory(trx: Db, ids: number[], offer: boolean): Promise<Stock> {
  const rows = await trx
    .selectFrom('inventory')
    .select(['id', 'capacity', 'taken', 'waitlisted'])
    .where('id', 'in', ids)
    .orderBy('id')
    .forUpdate()
    .execute();
  return {
    remaining: new Map(rows.map((r) => [r.id, r.waitlisted && !offer ? 0 : Math.max(0, r.capacity - r.taken)])),
  };
}

/** First come, first served: an order is granted only when every row it needs has its units left. */
function allocate(
  orders: PreparedOrder[],
  candidates: number[],
  stock: Stock,
): { granted: number[]; rejected: Map<number, AppError>; shortOf: Set<number> } {
  const remaining = new Map(stock.remaining);
  const granted: number[] = [];
  const rejected = new Map<number, AppError>();
  const shortOf = new Set<number>();
  for (const i of candidates) {
    const o = orders[i]!;
    const short = [...o.units].find(([id, q]) => (remaining.get(id) ?? 0) < q);
    if (short) {
      const [id] = short;
      rejected.set(i, shortOfStock(o.names.get(id) ?? 'An item', remaining.get(id) ?? 0));
      shortOf.add(id);
      continue;
    }
    for (const [id, q] of o.units) remaining.set(id, remaining.get(id)! - q);
    granted.push(i);
  }
  return { granted, rejected, shortOf };
}

function compareKeys(a: { tokenId: number; key: string }, b: { tokenId: number; key: string }): number {
  return a.tokenId - b.tokenId || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

const UNLIMITED_COLUMN = { tickets: 'ticket_type_id', goods: 'good_id', sessions: 'session_id' } as const;
const UNLIMITED_TABLE = { tickets: 'ticket_types', goods: 'goods', sessions: 'sessions' } as const;

/** Orders with a line for an item that had no inventory row when priced but has one now. */
async function staleUnlimited(trx: Db, orders: PreparedOrder[], active: number[]): Promise<Set<number>> {
  const wanted = { tickets: new Set<number>(), goods: new Set<number>(), sessions: new Set<number>() };
  for (const i of active) {
    for (const l of orders[i]!.lines) {
      if (l.inventory_id !== null || l.kind === 'donations') continue;
      const id = l[UNLIMITED_COLUMN[l.kind]];
      if (id !== null) wanted[l.kind].add(id);
    }
  }
  const limited = { tickets: new Set<number>(), goods: new Set<number>(), sessions: new Set<number>() };
  let any = false;
  for (const kind of ['goods', 'tickets', 'sessions'] as const) {
    const ids = [...wanted[kind]].sort((a, b) => a - b);
    if (!ids.length) continue;
    const rows = await trx
      .selectFrom(UNLIMITED_TABLE[kind])
      .select(['id', 'inventory_id'])
      .where('id', 'in', ids)
      .orderBy('id')
      .forShare()
      .execute();
    for (const r of rows) {
      if (r.inventory_id !== null) {
        limited[kind].add(r.id);
        any = true;
      }
    }
  }
  const stale = new Set<number>();
  if (!any) return stale;
  for (const i of active) {
    for (const l of orders[i]!.lines) {
      if (l.inventory_id !== null || l.kind === 'donations') continue;
      const id = l[UNLIMITED_COLUMN[l.kind]];
      if (id !== null && limited[l.kind].has(id)) stale.add(i);
    }
  }
  return stale;
}
