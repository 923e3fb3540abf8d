import { describe, expect, it } from 'vitest';
import type { SeatState } from '../inventory/seats.repo.ts';
import { allocateSeats, bestAvailable, type SeatWant } from './seat-allocation.ts';

/** Rows of seats: a string per row, `.` free, `x` taken, `b` blocked. */
function hall(...rows: string[]): SeatState[] {
  let ordinal = 0;
  return rows.flatMap((r, ri) =>
    [...r].map((c, si) => ({
      seat_guid: `${ri + 1}-${si + 1}`,
      ordinal: ordinal++,
      zone: 'Z',
      row_number: String(ri + 1),
      label: `Row ${ri + 1}, Seat ${si + 1}`,
      ticket_type_id: 1,
      blocked: c === 'b',
      holder: c === 'x' ? ('live' as const) : c === 'l' ? ('lapsed' as const) : null,
    })),
  );
}
const free = (s: SeatState) => !s.blocked && s.holder === null;
const guids = (seats: SeatState[] | null) => seats?.map((s) => s.seat_guid) ?? null;

describe('best available', () => {
  it('takes the first run of n free seats side by side, in plan order', () => {
    expect(guids(bestAvailable(hall('.x..x...', '........'), free, 3))).toEqual(['1-6', '1-7', '1-8']);
    expect(guids(bestAvailable(hall('b..x', '....'), free, 2))).toEqual(['1-2', '1-3']);
  });
  it('keeps a group in one row when no run is long enough, else takes the first free seats in plan order', () => {
    expect(guids(bestAvailable(hall('.x.x', '.x.x.x.'), free, 4))).toEqual(['2-1', '2-3', '2-5', '2-7']);
    expect(guids(bestAvailable(hall('.x.', 'x.x'), free, 3))).toEqual(['1-1', '1-3', '2-2']);
    expect(bestAvailable(hall('.x.', 'x.x'), free, 4)).toBeNull();
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
});
