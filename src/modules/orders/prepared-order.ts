import type { Insertable, Selectable } from 'kysely';
import type { OrdersTable } from '../../platform/db/schema.ts';
import type { AppError } from '../../platform/errors.ts';
import type { AppliedCode } from './codes.service.ts';
import type { SeatView } from './orders.repo.ts';
import type { PricedLine } from './pricing.ts';
import type { SeatWant } from './seat-allocation.ts';

/** An order checked and priced, waiting for the order writer; and what writing it gave. */
export interface PreparedOrder {
  /** the order row to insert, without the generated ref and secrets */
  row: Omit<Insertable<OrdersTable>, 'ref' | 'access_secret' | 'qr_token'>;
  lines: PricedLine[];
  codes: AppliedCode[];
  /** units per inventory row */
  units: Map<number, number>;
  /** display names per inventory row, for sold_out messages */
  names: Map<number, string>;
  idempotency?: { tokenId: number; key: string };
  now: Date;
  /** more for the order's "created" log entry (a complimentary order's reason and issuer) */
  note?: Record<string, unknown>;
  /** its lines of seated types: the seats named, or best available */
  seats?: SeatWant[];
}

export type OrderRow = Selectable<OrdersTable>;

/** created: with the seats it holds while pending (a paid one's seats are read with their tickets) */
export type WriteOutcome =
  { created: true; order: OrderRow; seats?: SeatView[] } | { created: false; orderId: number } | { rejected: AppError };
