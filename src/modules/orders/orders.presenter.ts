import type { Db } from '../../platform/db/database.ts';
import { iso } from '../../platform/time.ts';
import type { AppContext } from '../../platform/context.ts';
import { discountsOf, linesOf, seatsOfOrder, ticketRefsOf, type OrderRecord, type SeatView } from './orders.repo.ts';
import type { PricedLine } from './pricing.ts';

/** The order read shape of contract section 4 (list and single read). */
export interface OrderView {
  ref: string;
  event: string;
  status: string;
  currency: string;
  fx_rate: number;
  subtotal_cents: number;
  discount_cents: number;
  total_cents: number;
  refunded_cents: number;
  name: string | null;
  email: string | null;
  audience: string | null;
  portal: string | null;
  created_at: string;
  paid_at: string | null;
  canceled_at: string | null;
  refunded_at: string | null;
  items: Array<{ ticket_type_id: number; name: string; quantity: number; unit_price_cents: number; total_cents: number }>;
  lines: Array<{
    kind: string;
    name: string;
    quantity: number;
    unit_price_cents: number;
    total_cents: number;
    tax_cents: number;
    tax_rate_bp: number;
  }>;
  discounts: Array<{ code: string; amount_cents: number }>;
}

export interface OrderDetailView extends OrderView {
  tickets: string[];
  seats: Array<SeatView & { ticket: string | null }>;
  answers: unknown[];
  item_answers: unknown[];
}

/** Presents many orders with two extra queries in all (lines, discounts), never one per order. */
export async function presentOrders(db: Db, orders: OrderRecord[]): Promise<OrderView[]> {
  const ids = orders.map((o) => o.id);
  const [lines, discounts] = await Promise.all([linesOf(db, ids), discountsOf(db, ids)]);
  return orders.map((o) =>
    orderView(
      o,
      lines.filter((l) => l.order_id === o.id),
      discounts.filter((d) => d.order_id === o.id),
    ),
  );
}

type LineFields = Pick<
  PricedLine,
  'kind' | 'ticket_type_id' | 'name' | 'quantity' | 'unit_price_cents' | 'total_cents' | 'tax_cents' | 'tax_rate_bp'
>;

/** One order's read shape from its row, its lines in position order and its discounts in redemption order. */
export function orderView(
  o: OrderRecord,
  lines: readonly LineFields[],
  discounts: ReadonlyArray<{ code: string; amount_cents: number }>,
): OrderView {
  return {
    ref: o.ref,
    event: o.event_slug,
    status: o.status,
    currency: o.currency,
    fx_rate: Number(o.fx_rate),
    subtotal_cents: o.subtotal_cents,
    discount_cents: o.discount_cents,
    total_cents: o.total_cents,
    refunded_cents: o.refunded_cents,
    name: o.name,
    email: o.email,
    audience: o.audience_key,
    portal: o.portal_key,
    created_at: iso(o.created_at),
    paid_at: iso(o.paid_at),
    canceled_at: iso(o.canceled_at),
    refunded_at: iso(o.refunded_at),
    items: lines
      .filter((l) => l.kind === 'tickets')
      .map((l) => ({
        ticket_type_id: l.ticket_type_id!,
        name: l.name,
        quantity: l.quantity,
        unit_price_cents: l.unit_price_cents,
        total_cents: l.total_cents,
      })),
    lines: lines.map((l) => ({
      kind: l.kind,
      name: l.name,
      quantity: l.quantity,
      unit_price_cents: l.unit_price_cents,
      total_cents: l.total_cents,
      tax_cents: l.tax_cents,
      tax_rate_bp: l.tax_rate_bp,
    })),
    discounts: discounts.map((d) => ({ code: d.code, amount_cents: d.amount_cents })),
  };
}

export async function presentOrderDetail(db: Db, order: OrderRecord): Promise<OrderDetailView> {
  const [[view], tickets, seats] = await Promise.all([
    presentOrders(db, [order]),
    ticketRefsOf(db, order.id),
    seatsOfOrder(db, order.id),
  ]);
  return {
    ...view!,
    tickets: tickets.map((t) => t.ref),
    seats,
    answers: order.answers ?? [],
    item_answers: order.item_answers ?? [],
  };
}

/** Capability URLs: only in the create response (and its idempotent replays). */
export function capabilityUrls(
  ctx: AppContext,
  order: { status: string; access_secret: string },
): { payment_url?: string; url?: string } {
  if (order.status === 'pending') return { payment_url: `${ctx.config.baseUrl}/pay/${order.access_secret}` };
  return { url: `${ctx.config.baseUrl}/o/${order.access_secret}` };
}
