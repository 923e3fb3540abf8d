import { describe, expect, it } from 'vitest';
import { seatLayout, type Holder, type Seat, type SeatStates } from '../inventory/seats.repo.ts';
import { allocateSeats, bestAvailable, type SeatWant } from './seat-allocation.ts';

/** Rows of seats: a string per row, `.` free, `x` taken, `l` held by a hold that ran out, `b` blocked. */
function hall(...rows: string[]): SeatStates & { seats: Seat[] } {
  let ordinal = 0;
  const holders = new Map<string, Holder>();
  const seats = rows.flatMap((r, ri) =>
    [...r].map((c, si) => {
      const seat_guid = `${ri + 1}-${si + 1}`;
      if (c === 'x') holders.set(seat_guid, 'live');
      if (c === 'l') holders.set(seat_guid, 'lapsed');
      return {
        seat_guid,
        ordinal: ordinal++,
        zone: 'Z',
        row_number: String(ri + 1),
        seat_number: String(si + 1),
        label: `Row ${ri + 1}, Seat ${si + 1}`,
        ticket_type_id: 1,
        blocked: c === 'b',
      };
    }),
  );
  return { seats, layout: seatLayout(seats), holders };
}
/** The best `n` of a hall's free seats. */
const best = (h: ReturnType<typeof hall>, n: number) =>
  bestAvailable(h.seats, (s) => !s.blocked && h.holders.get(s.seat_guid) === undefined, n)?.map((s) => s.seat_guid) ?? null;

describe('best available', () => {
  it('takes the first run of n free seats side by side, in plan order', () => {
    expect(best(hall('.x..x...', '........'), 3)).toEqual(['1-6', '1-7', '1-8']);
    expect(best(hall('b..x', '....'), 2)).toEqual(['1-2', '1-3']);
  });
  it('keeps a group in one row when no run is long enough, else takes the first free seats in plan order', () => {
    expect(best(hall('.x.x', '.x.x.x.'), 4)).toEqual(['2-1', '2-3', '2-5', '2-7']);
    expect(best(hall('.x.', 'x.x'), 3)).toEqual(['1-1', '1-3', '2-2']);
    expect(best(hall('.x.', 'x.x'), 4)).toBeNull();
  });
});

describe('a batch of seated orders', () => {
  const want = (seats?: string[], quantity = seats?.length ?? 2): SeatWant[] => [
    { line: 0, ticketTypeId: 1, inventoryId: 9, name: 'Seat', quantity, ...(seats ? { seats } : {}) },
  ];
  it('serves first come first served, never one seat twice, and names the taken seat', () => {
    const wants = new Map([
      [0, want(['1-2', '1-3'])],
      [1, want(['1-3', '1-4'])],
      [2, want()],
    ]);
    const r = allocateSeats(wants, [0, 1, 2], hall('....', '....'), true);
    expect(r.granted).toEqual([0, 2]);
    expect(r.rejected.get(1)!.code).toBe('seat_unavailable');
    expect(r.rejected.get(1)!.extra).toEqual({ seats: ['1-3'] });
    expect(r.picks.get(2)!.map((p) => p.seat_guid)).toEqual(['2-1', '2-2']);
  });
  it('counts a seat of a hold that ran out as free only when told, and says whose rows to expire', () => {
    const wants = new Map([[0, want(['1-1'])]]);
    expect(allocateSeats(wants, [0], hall('l.'), true).lapsedRows).toEqual(new Set([9]));
    expect(allocateSeats(wants, [0], hall('l.'), false).rejected.get(0)!.code).toBe('seat_unavailable');
  });
  it('fills a hall row by row across a batch, past full and blocked rows; a refused order takes nothing', () => {
    const wants = new Map([
      [0, want()],
      [1, want(['3-1', '1-1'])],
      [2, want()],
      [3, want()],
      [4, want(undefined, 4)],
    ]);
    const r = allocateSeats(wants, [0, 1, 2, 3, 4], hall('xxxx', 'bb..', '....', '..x.'), true);
    expect(r.rejected.get(1)!.code).toBe('seat_unavailable');
    expect([0, 2, 3].map((i) => r.picks.get(i)!.map((p) => p.seat_guid))).toEqual([
      ['2-3', '2-4'],
      // 3-1 was only asked for by the refused order: still free
      ['3-1', '3-2'],
      ['3-3', '3-4'],
    ]);
    // three seats are left (4-1, 4-2, 4-4): four cannot be had
    expect(r.rejected.get(4)!.code).toBe('sold_out');
  });
});
