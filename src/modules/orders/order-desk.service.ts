import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/auth.ts';
import {
  deskEvent,
  findAccountOrders,
  parseOrderFilter,
  searchOrders,
  type DeskOrder,
  type FoundOrder,
  type OrderFilter,
} from './order-search.repo.ts';
import { orderNotFound } from './orders.errors.ts';
import { presentOrderDetail, type OrderDetailView } from './orders.presenter.ts';
import type { OrderRecord } from './orders.repo.ts';
import { loadVisibleOrder } from './orders.service.ts';

/**
 * One order as the console's orders desk shows it: the API's view plus its payments, refunds,
 * tickets with their check-ins, and an activity log (who did what, when) merged from the order's
 * log and its check-ins. Also the desk's list: one page of an event's orders found by a filter.
 */

// The console reads the filter from a query string and shows it back in the search form.
export {
  isFiltered,
  ORDER_STATUSES,
  parseOrderFilter,
  type DeskOrder,
  type FoundOrder,
  type OrderFilter,
} from './order-search.repo.ts';

export interface DeskPayment {
  id: number;
  rail: string;
  provider: string;
  status: string;
  amount_cents: number;
  currency: string;
  fee_cents: number | null;
  simulated: boolean;
  created_at: Date;
}

export interface DeskRefund {
  id: number;
  status: string;
  amount_cents: number;
  currency: string;
  error: string | null;
  simulated: boolean;
  created_at: Date;
  completed_at: Date | null;
}

export interface DeskTicket {
  id: number;
  ref: string;
  status: string;
  attendee_name: string | null;
  attendee_email: string | null;
  /** passed on to another holder (its own page, a new QR code) */
  transferred: boolean;
  ticket_type: string;
  /** the price it was sold at (its line's unit price) */
  price_cents: number;
  /**
   * `offline`: the scan reached the server more than a minute after it was made (a scanner without a
   * connection); a scanner page uploads every scan through its queue, so `online` alone says little
   */
  checkins: Array<{ list: string; at: Date; offline: boolean; device: string | null; conflict: boolean }>;
}

export interface DeskActivity {
  at: Date;
  action: string;
  by: string | null;
  detail: Record<string, unknown>;
}

export interface DeskOrderDetail {
  order: OrderRecord;
  view: OrderDetailView;
  payments: DeskPayment[];
  refunds: DeskRefund[];
  tickets: DeskTicket[];
  activity: DeskActivity[];
}

/** Whether an order has money to give back: paid, a balance left, taken through a payment. */
export function canRefund({ order, payments }: Pick<DeskOrderDetail, 'order' | 'payments'>): boolean {
  return (
    order.status === 'paid' &&
    order.total_cents - order.refunded_cents > 0 &&
    payments.some((x) => x.status === 'succeeded' && x.amount_cents > 0)
  );
}

export async function orderDeskDetail(ctx: AppContext, p: Principal, eventSlug: string, ref: string): Promise<DeskOrderDetail> {
  const order = await loadVisibleOrder(ctx, p, ref);
  if (order.event_slug !== eventSlug) throw orderNotFound(ref);
  const db = ctx.db;
  const [view, payments, refunds, tickets, checkins, log] = await Promise.all([
    presentOrderDetail(db, order),
    db
      .selectFrom('payments')
      .select(['id', 'rail', 'provider', 'status', 'amount_cents', 'currency', 'fee_cents', 'simulated', 'created_at'])
      .where('order_id', '=', order.id)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('refunds')
      .select(['id', 'status', 'amount_cents', 'currency', 'error', 'simulated', 'created_at', 'completed_at'])
      .where('order_id', '=', order.id)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('tickets as t')
      .innerJoin('ticket_types as tt', 'tt.id', 't.ticket_type_id')
      .innerJoin('order_lines as l', 'l.id', 't.order_line_id')
      .select([
        't.id',
        't.ref',
        't.status',
        't.attendee_name',
        't.attendee_email',
        sql<boolean>`t.holder_secret is not null`.as('transferred'),
        'tt.name as ticket_type',
        'l.unit_price_cents as price_cents',
      ])
      .where('t.order_id', '=', order.id)
      .orderBy('t.position')
      .orderBy('t.id')
      .execute(),
    db
      .selectFrom('checkins as c')
      .innerJoin('tickets as t', 't.id', 'c.ticket_id')
      .innerJoin('checkin_lists as l', 'l.id', 'c.checkin_list_id')
      .select(['c.ticket_id', 't.ref', 'l.name as list', 'c.created_at', 'c.online', 'c.uploaded_at', 'c.device', 'c.conflict'])
      .where('t.order_id', '=', order.id)
      .orderBy('c.created_at')
      .orderBy('c.id')
      .execute(),
    db
      .selectFrom('order_log')
      .select(['action', 'data', 'created_at'])
      .where('order_id', '=', order.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  ]);
  const date = (d: Date | string) => new Date(d);
  const activity: DeskActivity[] = [
    ...log.map((l) => {
      const { by, ...detail } = (l.data ?? {}) as Record<string, unknown>;
      return { at: date(l.created_at), action: l.action, by: typeof by === 'string' ? by : null, detail };
    }),
    ...checkins.map((c) => ({
      at: date(c.created_at),
      action: c.conflict ? 'scan_refused' : 'checked_in',
      by: c.device ?? (c.online ? 'online check-in' : null),
      detail: { ticket: c.ref, list: c.list },
    })),
  ];
  // an imported order has no "created" entry of its own: its creation is the first thing that happened
  if (!log.some((l) => l.action === 'created'))
    activity.push({ at: date(order.created_at), action: 'created', by: null, detail: {} });
  activity.sort((a, b) => a.at.getTime() - b.at.getTime());
  return {
    order,
    view,
    payments: payments.map((x) => ({ ...x, id: Number(x.id), created_at: date(x.created_at) })),
    refunds: refunds.map((x) => ({
      ...x,
      id: Number(x.id),
      created_at: date(x.created_at),
      completed_at: x.completed_at ? date(x.completed_at) : null,
    })),
    tickets: tickets.map((t) => ({
      ...t,
      id: Number(t.id),
      price_cents: Number(t.price_cents),
      checkins: checkins
        .filter((c) => Number(c.ticket_id) === Number(t.id))
        .map((c) => ({
          list: c.list,
          at: date(c.created_at),
          offline: !c.online && c.uploaded_at !== null && date(c.uploaded_at).getTime() - date(c.created_at).getTime() > 60_000,
          device: c.device,
          conflict: c.conflict,
        })),
    })),
    activity,
  };
}

export type DeskEvent = Awaited<ReturnType<typeof deskEvent>>;

/** The event as the desk shows it (name, timezone) and its ticket types; 404 when the principal cannot see it. */
export function orderDeskEvent(ctx: AppContext, p: Principal, eventSlug: string): Promise<DeskEvent> {
  return deskEvent(ctx, p, eventSlug);
}

const NO_FILTER: OrderFilter = { q: '', status: '', ticket_type: '', code: '', from: '', to: '' };

export interface DeskList extends DeskEvent {
  filter: OrderFilter;
  /** what in the query could not mean anything, by field; the page then lists nothing */
  errors: Record<string, string[]>;
  orders: DeskOrder[];
  next: string | null;
}

/**
 * One page of the desk's list. A filter or cursor that cannot mean anything finds nothing instead
 * of failing: the page shows the search again with the fields marked.
 */
export async function orderDeskList(
  ctx: AppContext,
  p: Principal,
  eventSlug: string,
  query: Record<string, string>,
  cursor: string | undefined,
  limit: number,
): Promise<DeskList> {
  const { event, ticketTypes } = await deskEvent(ctx, p, eventSlug);
  let filter = NO_FILTER;
  let errors: Record<string, string[]> = {};
  try {
    filter = parseOrderFilter(query);
  } catch (err) {
    if (!(err instanceof AppError) || !err.fields) throw err;
    errors = err.fields;
  }
  const found = Object.keys(errors).length
    ? { orders: [], next: null }
    : await searchOrders(ctx, p, event.slug, filter, cursor, limit).catch((err: unknown) => {
        if (err instanceof AppError && err.fields) return { orders: [], next: null };
        throw err;
      });
  return { event, ticketTypes, filter, errors, ...found };
}

/** One order on the desk with its event (whose timezone its times are shown in). */
export async function orderOnDesk(
  ctx: AppContext,
  p: Principal,
  eventSlug: string,
  ref: string,
): Promise<DeskOrderDetail & { event: DeskEvent['event'] }> {
  const detail = await orderDeskDetail(ctx, p, eventSlug, ref);
  const { event } = await deskEvent(ctx, p, eventSlug);
  return { ...detail, event };
}

/** The console header's search across the account's events (those the principal may see), newest first. */
export async function findOrdersAcrossEvents(ctx: AppContext, p: Principal, text: string): Promise<FoundOrder[]> {
  const found = await findAccountOrders(ctx.db, p.accountId, text.slice(0, 200), 50);
  return p.eventSlugs ? found.filter((o) => p.eventSlugs!.has(o.event_slug)) : found;
}
