import { sql, type RawBuilder } from 'kysely';
import { bucketBounds, bucketLabel, bucketOf } from './buckets.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError } from '../../platform/errors.ts';
import { windowSql } from './income.ts';
import { resolveRange } from './range.ts';

export const GROUPS = ['day', 'week', 'month', 'audience', 'status', 'code'] as const;
export type Group = (typeof GROUPS)[number];
const STATUSES = ['paid', 'pending', 'refunded', 'canceled'];

export interface ReportRow {
  key: string;
  orders: number;
  units: number;
  gross_cents: number;
  discount_cents: number;
  amount_cents: number;
  refund_cents: number;
  currency: string;
}

export interface OrdersReport {
  source: 'orders';
  group: Group;
  range: string;
  from: string;
  to: string;
  on: 'paid' | 'started';
  status: string;
  audience: string;
  code: string;
  paid: boolean;
  timezone: string;
  currency: string;
  rows: ReportRow[];
  totals: ReportRow;
}

export type ReportQuery = Record<string, string | string[] | undefined>;

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** The grouping key of the non-calendar groups. */
function keyExpr(group: 'audience' | 'status' | 'code'): RawBuilder<string> {
  switch (group) {
    case 'audience':
      return sql`coalesce(a.key, '-')`;
    case 'status':
      return sql`o.status`;
    case 'code':
      return sql`coalesce(nullif(o.codes_key, ''), '-')`;
  }
}

/**
 * The orders report (spec 2.4): order-grain figures over the amount that changed hands, grouped
 * by one axis, in one currency (never summed across currencies), computed in one SQL statement.
 * Every parameter clamps except `source`.
 */
export async function ordersReport(
  db: Db,
  event: { id: number; account_id: number; currency: string; currencies: string[]; timezone: string },
  q: ReportQuery,
  now: Date,
): Promise<OrdersReport> {
  const source = one(q.source);
  if (source !== undefined && source !== 'orders') {
    throw new AppError('bad_request', 'unsupported_source', `Unsupported source "${source}"; the only source is "orders"`);
  }
  const group = (GROUPS as readonly string[]).includes(one(q.group) ?? '') ? (one(q.group) as Group) : 'day';
  const on = one(q.on) === 'started' ? 'started' : 'paid';
  const r = resolveRange({ range: one(q.range), from: one(q.from), to: one(q.to) }, now, event.timezone);
  const status = STATUSES.includes(one(q.status) ?? '') ? one(q.status)! : '';
  const audience = one(q.audience) ?? '';
  const code = one(q.code) ?? '';
  const paidOnly = one(q.paid) === '1';
  const requested = one(q.currency) ?? '';
  const currency = event.currencies.includes(requested) ? requested : event.currency;
  const tz = event.timezone;
  const stamp = on === 'paid' ? sql`o.paid_at` : sql`o.created_at`;

  const filters: RawBuilder<unknown>[] = [
    sql`o.event_id = ${event.id}`,
    sql`o.account_id = ${event.account_id}`,
    sql`o.currency = ${currency}`,
    sql`${stamp} is not null`,
    windowSql(stamp, r),
  ];
  if (status) filters.push(sql`o.status = ${status}`);
  if (audience) filters.push(audience === '-' ? sql`o.audience_id is null` : sql`a.key = ${audience}`);
  if (code) filters.push(code === '-' ? sql`o.codes_key = ''` : sql`o.codes_key = ${code}`);
  // took_money: a succeeded payment of more than zero (kept by the payments trigger)
  if (paidOnly) filters.push(sql`o.took_money`);

  const timeGroup = group === 'day' || group === 'week' || group === 'month';
  // calendar groups: buckets between the event's first and last stamp in the window
  const span = sql`select min(${stamp}) as lo, max(${stamp}) as hi from orders o
    where o.event_id = ${event.id} and ${stamp} is not null and ${windowSql(stamp, r)}`;
  const result = await sql<Omit<ReportRow, 'currency' | 'amount_cents'>>`
    with bounds as (${timeGroup ? bucketBounds(span, group, tz) : sql`select '{}'::timestamptz[] as b`}),
    g as (
      select ${timeGroup ? bucketOf(stamp) : keyExpr(group)} as key, count(*)::int as orders,
        coalesce(sum(o.ticket_units), 0)::int as units,
        coalesce(sum(o.subtotal_cents), 0)::bigint as gross_cents,
        coalesce(sum(o.discount_cents), 0)::bigint as discount_cents,
        coalesce(sum(o.refunded_cents), 0)::bigint as refund_cents
      from orders o left join audiences a on a.id = o.audience_id
      where ${sql.join(filters, sql` and `)}
      group by 1
    )
    select ${timeGroup ? bucketLabel(sql`g.key`, group, tz) : sql`g.key`} as key, orders, units, gross_cents, discount_cents, refund_cents
    from g`.execute(db);

  const rows: ReportRow[] = result.rows
    .map((x) => ({ ...x, amount_cents: x.gross_cents - x.discount_cents, currency }))
    .map(({ key, orders, units, gross_cents, discount_cents, amount_cents, refund_cents }) => ({
      key,
      orders,
      units,
      gross_cents,
      discount_cents,
      amount_cents,
      refund_cents,
      currency,
    }))
    .sort((a, b) => (timeGroup ? a.key.localeCompare(b.key) : b.gross_cents - a.gross_cents || a.key.localeCompare(b.key)));
  const sum = (k: 'orders' | 'units' | 'gross_cents' | 'discount_cents' | 'amount_cents' | 'refund_cents') =>
    rows.reduce((s, x) => s + x[k], 0);
  return {
    source: 'orders',
    group,
    range: r.range,
    from: r.from,
    to: r.to,
    on,
    status,
    audience,
    code,
    paid: paidOnly,
    timezone: tz,
    currency,
    rows,
    totals: {
      key: 'total',
      orders: sum('orders'),
      units: sum('units'),
      gross_cents: sum('gross_cents'),
      discount_cents: sum('discount_cents'),
      amount_cents: sum('amount_cents'),
      refund_cents: sum('refund_cents'),
      currency,
    },
  };
}
