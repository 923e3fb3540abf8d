import { sql } from 'kysely';
import { inReportSnapshot, type AppContext } from '../../platform/context.ts';
import type { Principal } from '../../platform/http/auth.ts';
import { loadVisibleEvent } from '../events/events.service.ts';
import { availabilityReport, type AvailabilityReport } from './availability.repo.ts';
import { isLiveHold } from './live-holds.ts';
import { addDays, localDate } from '../../platform/date-range.ts';

/**
 * An event's dashboard: money and tickets over time by day, week or month in the event's timezone,
 * availability, check-in progress, pending money and the latest orders. Everything is read from
 * the report counters (income by local day, units per item) and from indexes that touch a handful
 * of rows, so it costs the same at a thousand orders as at a million.
 */

export const DASHBOARD_GROUPS = ['day', 'week', 'month'] as const;
export type DashboardGroup = (typeof DASHBOARD_GROUPS)[number];

export interface SalesBucket {
  /** YYYY-MM-DD (day; a week by its Monday) or YYYY-MM (month) */
  key: string;
  orders: number;
  /** tickets of paid orders (free and complimentary ones too), by the day they were paid */
  tickets: number;
  /** what changed hands: gross − discounts − refunds, in the event's currency */
  net_cents: number;
  gross_cents: number;
  refund_cents: number;
}

export interface CheckinProgress {
  id: number;
  name: string;
  checked_in: number;
  /** tickets on paid orders of the types the list takes */
  tickets: number;
}

export interface Dashboard {
  event: { slug: string; name: string; currency: string; timezone: string };
  group: DashboardGroup;
  sales: SalesBucket[];
  totals: { orders: number; tickets: number; net_cents: number; refund_cents: number };
  availability: AvailabilityReport;
  checkins: CheckinProgress[];
  pending: Array<{ currency: string; orders: number; total_cents: number }>;
  recent: Array<{
    ref: string;
    name: string | null;
    email: string | null;
    status: string;
    total_cents: number;
    currency: string;
    created_at: Date;
  }>;
}

/** The bucket a local day belongs to: itself, its week's Monday, or its month. */
function bucketOf(day: string, group: DashboardGroup): string {
  if (group === 'day') return day;
  if (group === 'month') return day.slice(0, 7);
  const weekday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
  return addDays(day, -weekday);
}

function nextBucket(key: string, group: DashboardGroup): string {
  if (group === 'day') return addDays(key, 1);
  if (group === 'week') return addDays(key, 7);
  const [y, m] = key.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
}

/** At most this many buckets are drawn: the latest ones (a long-running event's early days fold away). */
const MAX_BUCKETS = 120;

export async function eventDashboard(
  ctx: AppContext,
  p: Principal,
  eventSlug: string,
  group: DashboardGroup,
): Promise<Dashboard> {
  const event = await loadVisibleEvent(ctx, p, eventSlug);
  const tz = event.timezone;
  const now = ctx.clock.now();
  // one read-only snapshot on the read connection (the replica, when there is one)
  const [days, availability, lists, pending, recent] = await inReportSnapshot(ctx, (db) =>
    Promise.all([
      // income by the event's local day (the paid stamp), all shards summed
      sql<{ at: Date; orders: string; gross: string; discount: string; refund: string; units: string }>`
      select at, sum(orders) as orders, sum(gross_cents) as gross, sum(discount_cents) as discount, sum(refund_cents) as refund,
        sum(units) as units
      from income_counters
      where event_id = ${event.id} and stamp = 'paid' and grain = 'day'
      group by at order by at`.execute(db),
      availabilityReport(db, event, now, false),
      sql<{ id: string; name: string; checked_in_count: number; tickets: string }>`
      select l.id, l.name, l.checked_in_count,
        (select coalesce(sum(s.sold), 0) from item_sales s
          where s.event_id = l.event_id and s.kind = 'tickets'
            and (l.ticket_type_ids is null or s.item_id = any (l.ticket_type_ids))) as tickets
      from checkin_lists l
      where l.account_id = ${p.accountId} and l.event_id = ${event.id} and l.archived_at is null
      order by l.name, l.id`.execute(db),
      // live holds only: an expired hold is canceled by the sweeper and will not be paid
      sql<{ currency: string; orders: string; total: string }>`
      select currency, count(*) as orders, coalesce(sum(total_cents), 0) as total
      from orders
      where ${isLiveHold(event.id, now)}
      group by currency order by currency`.execute(db),
      db
        .selectFrom('orders')
        .select(['ref', 'name', 'email', 'status', 'total_cents', 'currency', 'created_at'])
        .where('event_id', '=', event.id)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(8)
        .execute(),
    ]),
  );

  const byBucket = new Map<string, SalesBucket>();
  for (const d of days.rows) {
    const key = bucketOf(localDate(new Date(d.at), tz), group);
    const b = byBucket.get(key) ?? { key, orders: 0, tickets: 0, net_cents: 0, gross_cents: 0, refund_cents: 0 };
    const gross = Number(d.gross);
    b.orders += Number(d.orders);
    b.tickets += Number(d.units);
    b.gross_cents += gross;
    b.refund_cents += Number(d.refund);
    b.net_cents += gross - Number(d.discount) - Number(d.refund);
    byBucket.set(key, b);
  }
  // every bucket from the first sale to today (or the last sale, if later), empty ones too
  const sales: SalesBucket[] = [];
  const keys = [...byBucket.keys()].sort();
  if (keys.length) {
    const today = bucketOf(localDate(now, tz), group);
    const last = keys.at(-1)! > today ? keys.at(-1)! : today;
    for (let k = keys[0]!; k <= last; k = nextBucket(k, group)) {
      sales.push(byBucket.get(k) ?? { key: k, orders: 0, tickets: 0, net_cents: 0, gross_cents: 0, refund_cents: 0 });
    }
  }
  const shown = sales.slice(-MAX_BUCKETS);
  const totals = sales.reduce(
    (t, b) => ({
      orders: t.orders + b.orders,
      tickets: t.tickets + b.tickets,
      net_cents: t.net_cents + b.net_cents,
      refund_cents: t.refund_cents + b.refund_cents,
    }),
    { orders: 0, tickets: 0, net_cents: 0, refund_cents: 0 },
  );
  return {
    event: { slug: event.slug, name: event.name, currency: event.currency, timezone: tz },
    group,
    sales: shown,
    totals,
    availability,
    checkins: lists.rows.map((l) => ({
      id: Number(l.id),
      name: l.name,
      checked_in: l.checked_in_count,
      tickets: Number(l.tickets),
    })),
    pending: pending.rows.map((r) => ({ currency: r.currency, orders: Number(r.orders), total_cents: Number(r.total) })),
    recent: recent.map((r) => ({ ...r, created_at: new Date(r.created_at) })),
  };
}
