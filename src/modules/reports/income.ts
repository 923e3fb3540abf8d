import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import { bucketBounds, bucketLabel, bucketOf } from './buckets.ts';
import type { ResolvedRange } from './range.ts';

export const INCOME_FIGURES = [
  'orders',
  'gross_cents',
  'discount_cents',
  'refund_cents',
  'refunded_orders',
  'collected_cents',
  'tax_cents',
  'fees_cents',
  'platform_fee_cents',
  'unpriced_payments',
  'net_cents',
  'pending_cents',
  'pending_orders',
] as const;

export type IncomeFigures = Record<(typeof INCOME_FIGURES)[number], number>;
export type IncomeMonth = { month: string } & IncomeFigures;

export interface IncomeReport extends IncomeFigures {
  range: string;
  from: string;
  to: string;
  on: 'paid' | 'started';
  timezone: string;
  currency: string;
  discount_codes: string[];
  months: IncomeMonth[];
}

/** `stamp >= start and stamp < end`, open where a bound is null. */
export function windowSql(stamp: RawBuilder<unknown>, r: ResolvedRange): RawBuilder<unknown> {
  const parts = [sql`true`];
  if (r.start) parts.push(sql`${stamp} >= ${r.start}`);
  if (r.end) parts.push(sql`${stamp} < ${r.end}`);
  return sql.join(parts, sql` and `);
}

interface MonthRow {
  month: string;
  orders: number;
  gross_cents: number;
  discount_cents: number;
  refund_cents: number;
  refunded_orders: number;
  tax_cents: number;
  fees_cents: number;
  platform_fee_cents: number;
  unpriced_payments: number;
  pending_cents: number;
  pending_orders: number;
}

/**
 * Income and deductions (spec 2.2) in one SQL statement grouped by month in the event's
 * timezone. Paid figures come only from orders that took money (a succeeded payment of more than
 * zero), dated by `on`; pending money is dated by when the order started. Amounts in another
 * currency are converted per order and figure at the order's recorded rate, rounded half away
 * from zero (numeric round()). The month rows decompose the totals exactly; totals are their sums.
 */
export async function incomeReport(
  db: Db,
  event: { id: number; account_id: number; currency: string; timezone: string },
  r: ResolvedRange,
  on: 'paid' | 'started',
  now: Date,
): Promise<IncomeReport> {
  const tz = event.timezone;
  const stamp = on === 'paid' ? sql`o.paid_at` : sql`o.created_at`;
  // One pass over the counted orders (partial covering index on event and stamp, where
  // took_money): the payment figures are on the order row (payments trigger, migration 0008).
  // Months are found with width_bucket over the month starts in the event's timezone, which
  // costs a comparison per order instead of a timezone conversion.
  const rows = await sql<MonthRow>`
    with bounds as (${bucketBounds(
      sql`select min(${stamp}) as lo, max(${stamp}) as hi from orders o
        where o.event_id = ${event.id} and o.took_money and ${stamp} is not null and ${windowSql(stamp, r)}`,
      'month',
      tz,
    )}),
    paid as (
      select ${bucketOf(stamp)} as bucket, count(*)::int as orders,
        sum(round(o.subtotal_cents * o.fx_rate))::bigint as gross_cents,
        sum(round(o.discount_cents * o.fx_rate))::bigint as discount_cents,
        sum(round(o.refunded_cents * o.fx_rate))::bigint as refund_cents,
        count(*) filter (where o.refunded_cents > 0)::int as refunded_orders,
        sum(round(o.tax_cents * o.fx_rate))::bigint as tax_cents,
        sum(o.fees_cents)::bigint as fees_cents,
        sum(round(o.platform_fees_cents * o.fx_rate))::bigint as platform_fee_cents,
        sum(o.unpriced_payments)::int as unpriced_payments
      from orders o
      where o.event_id = ${event.id} and o.account_id = ${event.account_id} and o.took_money
        and ${stamp} is not null and ${windowSql(stamp, r)}
      group by 1
    ),
    paid_months as (
      select ${bucketLabel(sql`bucket`, 'month', tz)} as month, paid.* from paid
    ),
    pending as (
      select to_char(o.created_at at time zone ${tz}, 'YYYY-MM') as month,
        sum(round(o.total_cents * o.fx_rate))::bigint as pending_cents, count(*)::int as pending_orders
      from orders o
      where o.event_id = ${event.id} and o.account_id = ${event.account_id} and o.status = 'pending'
        and (o.expires_at is null or o.expires_at > ${now})
        and ${windowSql(sql`o.created_at`, r)}
      group by 1
    )
    select coalesce(p.month, pending.month) as month,
      coalesce(orders, 0) as orders, coalesce(gross_cents, 0)::bigint as gross_cents, coalesce(discount_cents, 0)::bigint as discount_cents,
      coalesce(refund_cents, 0)::bigint as refund_cents, coalesce(refunded_orders, 0) as refunded_orders,
      coalesce(tax_cents, 0)::bigint as tax_cents, coalesce(fees_cents, 0)::bigint as fees_cents,
      coalesce(platform_fee_cents, 0)::bigint as platform_fee_cents, coalesce(unpriced_payments, 0) as unpriced_payments,
      coalesce(pending_cents, 0)::bigint as pending_cents, coalesce(pending_orders, 0) as pending_orders
    from paid_months p full join pending on pending.month = p.month
    order by 1`.execute(db);
  // codes_key holds an order's codes comma-joined in redemption order (same index, no sort)
  const keys = await sql<{ codes_key: string }>`
    select distinct o.codes_key from orders o
    where o.event_id = ${event.id} and o.account_id = ${event.account_id} and o.took_money and o.codes_key <> ''
      and ${stamp} is not null and ${windowSql(stamp, r)}`.execute(db);
  const codes = new Set(keys.rows.flatMap((k) => k.codes_key.split(',')));

  const months: IncomeMonth[] = rows.rows.map((m) => withDerived(m));
  const totals = Object.fromEntries(INCOME_FIGURES.map((k) => [k, months.reduce((s, m) => s + m[k], 0)])) as IncomeFigures;
  return {
    range: r.range,
    from: r.from,
    to: r.to,
    on,
    timezone: tz,
    currency: event.currency,
    ...totals,
    discount_codes: [...codes].sort(),
    months,
  };
}

function withDerived(m: MonthRow): IncomeMonth {
  const collected = m.gross_cents - m.discount_cents - m.refund_cents;
  return {
    month: m.month,
    orders: m.orders,
    gross_cents: m.gross_cents,
    discount_cents: m.discount_cents,
    refund_cents: m.refund_cents,
    refunded_orders: m.refunded_orders,
    collected_cents: collected,
    tax_cents: m.tax_cents,
    fees_cents: m.fees_cents,
    platform_fee_cents: m.platform_fee_cents,
    unpriced_payments: m.unpriced_payments,
    net_cents: collected - m.tax_cents - m.fees_cents - m.platform_fee_cents,
    pending_cents: m.pending_cents,
    pending_orders: m.pending_orders,
  };
}
