import type { Db } from '../../platform/db/database.ts';
import { holdSeats, readSeatStates, type SeatLayout } from '../inventory/seats.repo.ts';
import { expireLapsedHolds } from './order-state.repo.ts';
import { allocateSeats, type SeatAllocation, type SeatPick, type SeatWant } from './seat-allocation.ts';

/**
 * The seats step of the order writer's batch (order-writer.repo.ts), run under the inventory
 * rows' locks the stock step took: the batch's seated orders get the seats they named, or the
 * best available, first come first served. Seats held by holds that ran out are freed (their
 * orders expire, as the stock step does for units) and the batch allocated again.
 */
export async function chooseSeats(
  trx: Db,
  cache: Db,
  eventId: number,
  seatsOf: (i: number) => SeatWant[] | undefined,
  candidates: number[],
  now: Date,
): Promise<SeatAllocation & { layout: SeatLayout }> {
  const wants = new Map<number, SeatWant[]>();
  for (const i of candidates) {
    const w = seatsOf(i);
    if (w?.length) wants.set(i, w);
  }
  const states = await readSeatStates(trx, cache, eventId, now);
  const first = allocateSeats(wants, candidates, states, true);
  if (!first.lapsedRows.size) return { ...first, layout: states.layout };
  for (const id of [...first.lapsedRows].sort((a, b) => a - b)) await expireLapsedHolds(trx, now, { inventoryId: id });
  const again = await readSeatStates(trx, cache, eventId, now);
  return { ...allocateSeats(wants, candidates, again, false), layout: again.layout };
}

/** The granted orders' seats, written once the orders have their ids. */
export async function writeSeatPicks(
  trx: Db,
  written: Array<{ order: { id: number; account_id: number; event_id: number }; picks: SeatPick[] | undefined }>,
): Promise<void> {
  await holdSeats(
    trx,
    written.flatMap(({ order, picks }) =>
      (picks ?? []).map((p) => ({
        account_id: order.account_id,
        event_id: order.event_id,
        order_id: order.id,
        line_position: p.line,
        seat_guid: p.seat_guid,
      })),
    ),
  );
}
