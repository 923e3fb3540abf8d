import type { AppError } from '../../platform/errors.ts';
import type { Seat, SeatStates } from '../inventory/seats.repo.ts';
import { invalidItems, seatUnavailable, shortOfStock } from './orders.errors.ts';

/*
 * Which seats each order of a batch gets (contract section 12), first come first served. Pure:
 * the seats and their holders were read under the types' inventory row locks.
 */

/** One ticket line of a seated type: the seats asked for, or none (best available). */
export interface SeatWant {
  /** the line's position in its order */
  line: number;
  ticketTypeId: number;
  inventoryId: number | null;
  name: string;
  quantity: number;
  seats?: string[];
}

export interface SeatPick {
  line: number;
  seat_guid: string;
}

export interface SeatAllocation {
  granted: number[];
  rejected: Map<number, AppError>;
  picks: Map<number, SeatPick[]>;
  /** inventory rows of the types whose chosen seats are held by holds that ran out (to expire first) */
  lapsedRows: Set<number>;
}

/** Seats in plan order grouped by row (a new row where the zone or row number changes). */
export function seatRows(seats: readonly Seat[]): Seat[][] {
  const rows: Seat[][] = [];
  let last: Seat | undefined;
  for (const s of seats) {
    if (!last || last.zone !== s.zone || last.row_number !== s.row_number) rows.push([]);
    rows[rows.length - 1]!.push(s);
    last = s;
  }
  return rows;
}

/**
 * The best `n` of these seats (a type's free seats, in plan order): together in one row where
 * possible (the first row, in plan order, with `n` free side by side, a taken seat between two
 * breaking it), else all in one row, else the first `n` in plan order. Null when fewer are free.
 * `rows` (seatRows of `seats`) and `fromRow` (rows before it have no free seat) let a batch of
 * orders share one grouping and skip the rows already full: without them each order of a rush
 * walked the whole hall.
 */
export function bestAvailable(
  seats: readonly Seat[],
  free: (s: Seat) => boolean,
  n: number,
  rows: ReadonlyArray<readonly Seat[]> = seatRows(seats),
  fromRow = 0,
): Seat[] | null {
  for (let r = fromRow; r < rows.length; r++) {
    const row = rows[r]!;
    let run = 0;
    for (let k = 0; k < row.length; k++) {
      run = free(row[k]!) ? run + 1 : 0;
      if (run === n) return row.slice(k - n + 1, k + 1);
    }
  }
  for (let r = fromRow; r < rows.length; r++) {
    const open = rows[r]!.filter(free);
    if (open.length >= n) return open.slice(0, n);
  }
  const open = seats.filter(free);
  return open.length >= n ? open.slice(0, n) : null;
}

/**
 * Seats for the candidates in arrival order. `lapsedFree`: a seat held by a hold that ran out
 * counts as free (the caller then expires those holds and allocates again with it false).
 */
export function allocateSeats(
  wants: ReadonlyMap<number, SeatWant[]>,
  candidates: readonly number[],
  { layout, holders }: SeatStates,
  lapsedFree: boolean,
): SeatAllocation {
  const { byGuid, byType, rowsByType } = layout;
  const claimed = new Set<string>();
  // per type, the first row that may still have a free seat (seats are only taken while a batch
  // is allocated, so rows before it stay full)
  const firstRow = new Map<number, number>();
  const closed = (s: Seat) => {
    if (s.blocked || claimed.has(s.seat_guid)) return true;
    const h = holders.get(s.seat_guid);
    return h === 'live' || (h === 'lapsed' && !lapsedFree);
  };
  const rowsFor = (typeId: number) => {
    const rows = rowsByType.get(typeId) ?? [];
    let first = firstRow.get(typeId) ?? 0;
    while (first < rows.length && rows[first]!.every(closed)) first++;
    firstRow.set(typeId, first);
    return { rows, first };
  };
  const out: SeatAllocation = { granted: [], rejected: new Map(), picks: new Map(), lapsedRows: new Set() };
  for (const i of candidates) {
    const list = wants.get(i);
    if (!list?.length) {
      out.granted.push(i);
      continue;
    }
    const mine = new Set<string>();
    const free = (s: Seat) => {
      if (s.blocked || claimed.has(s.seat_guid) || mine.has(s.seat_guid)) return false;
      const h = holders.get(s.seat_guid);
      return h === undefined || (lapsedFree && h === 'lapsed');
    };
    const picks: SeatPick[] = [];
    const lapsed = new Set<number>();
    let refusal: AppError | null = null;
    for (const w of list) {
      let chosen: Seat[] | null;
      if (w.seats) {
        const unknown = w.seats.find((g) => byGuid.get(g)?.ticket_type_id !== w.ticketTypeId);
        if (unknown !== undefined) {
          refusal = invalidItems(`"${unknown}" is not a seat of "${w.name}"`);
          break;
        }
        chosen = w.seats.map((g) => byGuid.get(g)!);
        const taken = chosen.filter((s) => !free(s));
        if (taken.length) {
          refusal = seatUnavailable(taken);
          break;
        }
      } else {
        const pool = byType.get(w.ticketTypeId) ?? [];
        const { rows, first } = rowsFor(w.ticketTypeId);
        chosen = bestAvailable(pool, free, w.quantity, rows, first);
        if (!chosen) {
          refusal = shortOfStock(w.name, pool.filter(free).length);
          break;
        }
      }
      for (const s of chosen) {
        mine.add(s.seat_guid);
        picks.push({ line: w.line, seat_guid: s.seat_guid });
        if (holders.get(s.seat_guid) === 'lapsed' && w.inventoryId !== null) lapsed.add(w.inventoryId);
      }
    }
    if (refusal) {
      out.rejected.set(i, refusal);
      continue;
    }
    for (const g of mine) claimed.add(g);
    for (const id of lapsed) out.lapsedRows.add(id);
    out.picks.set(i, picks);
    out.granted.push(i);
  }
  return out;
}
