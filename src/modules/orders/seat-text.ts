import type { SeatView } from './orders.repo.ts';

/** A seat as a ticket prints it: "Stalls · Row F, Seat 12" (the label alone when the zone has no name). */
export function seatText(seat: Pick<SeatView, 'zone' | 'label'> | null | undefined): string {
  if (!seat) return '';
  return seat.zone ? `${seat.zone} · ${seat.label}` : seat.label;
}
