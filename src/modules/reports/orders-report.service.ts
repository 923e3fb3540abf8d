import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import { AppError } from '../../platform/errors.ts';
import { splitRange, windowSql, type Window } from './income.service.ts';
import { resolveRange } from '../../platform/date-range.ts';

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

/**
 * What a group adds up by (`axis`, over the parts `p`: a counter instant, a status, a codes key,
 * an audience id) and how each sum is labelled (`label`, over the sums `t`): a calendar group by
 * its local day, Monday or month in `tz`, `-` for no code or audience.
 */
function groupAxis(group: Group, tz: string): { axis: RawBuilder<unknown>; label: RawBuilder<unknown> } {
  switch (group) {
    case 'day':
      return { axis: sql`p.at`, label: sql`to_char(t.axis at time zone ${tz}, 'YYYY-MM-DD')` };
    case 'week':
      return { axis: sql`p.at`, label: sql`to_char(date_trunc('week', t.axis at time zone ${tz}), 'YYYY-MM-DD')` };
    case 'month':
      return { axis: sql`p.at`, label: sql`to_char(t.axis at time zone ${tz}, 'YYYY-MM')` };
    case 'status':
      return { axis: sql`p.status`, label: sql`t.axis` };
    case 'code':
      return { axis: sql`p.codes_key`, label: sql`coalesce(nullif(t.axis, ''), '-')` };
    case 'audience':
      return { axis: sql`p.audience_id`, label: sql`coalesce((select a.key from audiences a where a.id = t.axis), '-')` };
  }
}

/**
 * The orders report (spec 2.4): order-grain figures over the amount that changed hands, grouped
 * by one axis, in one currency (never summed across currencies), in one SQL statement. The
 * figures come from the report counters (migration 0021): whole local days, then whole
 * quarter hours at a rolling range's edge, then the orders of a partial quarter (the split of
 * the income report). Every parameter clamps except `source`.
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

  // the same axes on a counter row (c) and on an order (o)
  const axes = (t: 'c' | 'o'): RawBuilder<unknown>[] => {
    const col = (name: string) => sql.ref(`${t}.${name}`);
    const out: RawBuilder<unknown>[] = [sql`${col('event_id')} = ${event.id}`, sql`${col('currency')} = ${currency}`];
    if (status) out.push(sql`${col('status')} = ${status}`);
    if (audience === '-') out.push(t === 'c' ? sql`c.audience_id = 0` : sql`o.audience_id is null`);
    else if (audience)
      out.push(
        sql`${col('audience_id')} = (select a.id from audiences a where a.event_id = ${event.id} and a.key = ${audience})`,
      );
    if (code) out.push(sql`${col('codes_key')} = ${code === '-' ? '' : code}`);
    // took_money: a succeeded payment of more than zero (kept by the payments trigger)
    if (paidOnly) out.push(sql`${col('took_money')}`);
    return out;
  };
  const split = splitRange(r, tz);
  const counters = (grain: 'day' | 'quarter', w: Window) =>
    sql`select c.at, c.status, c.audience_id, c.codes_key, c.orders, c.units, c.gross_cents, c.discount_cents, c.refund_cents
      from order_report_counters c
      where c.stamp = ${on} and c.grain = ${grain} and ${windowSql(sql`c.at`, w)} and ${sql.join(axes('c'), sql` and `)}`;
  const parts: RawBuilder<unknown>[] = [
    ...(split.days ? [counters('day', split.days)] : []),
    ...split.quarters.map((w) => counters('quarter', w)),
    ...split.raw.map(
      (w) => sql`select ${stamp} as at, o.status, coalesce(o.audience_id, 0) as audience_id, o.codes_key, 1::bigint as orders,
          o.ticket_units::bigint as units, o.subtotal_cents::bigint as gross_cents, o.discount_cents::bigint as discount_cents,
          o.refunded_cents::bigint as refund_cents
        from orders o
        where o.account_id = ${event.account_id} and ${stamp} is not null and ${windowSql(stamp, w)} and ${sql.join(axes('o'), sql` and `)}`,
    ),
  ];
  const timeGroup = group === 'day' || group === 'week' || group === 'month';
  // add up by the raw axis first, then label the few groups that leaves
  const { axis, label } = groupAxis(group, tz);
  const result = await sql<Omit<ReportRow, 'currency' | 'amount_cents'>>`
    select l.key, sum(l.orders)::int as orders, sum(l.units)::int as units, sum(l.gross_cents)::bigint as gross_cents,
      sum(l.discount_cents)::bigint as discount_cents, sum(l.refund_cents)::bigint as refund_cents
    from (
      select ${label} as key, t.*
      from (
        select ${axis} as axis, sum(p.orders) as orders, sum(p.units) as units, sum(p.gross_cents) as gross_cents,
          sum(p.discount_cents) as discount_cents, sum(p.refund_cents) as refund_cents
        from (${sql.join(parts, sql` union all `)}) p
        group by 1) t) l
    group by 1 having sum(l.orders) <> 0`.execute(db);

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
