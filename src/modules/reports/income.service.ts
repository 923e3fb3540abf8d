import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { IncomeCountersTable } from '../../platform/db/schema.ts';
import { isLiveHold } from './live-holds.ts';
import { addDays, localDate, zonedMidnight, type ResolvedRange } from '../../platform/date-range.ts';

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

export interface Window {
  start: Date | null;
  end: Date | null;
}

/** `stamp >= start and stamp < end`, open where a bound is null. */
export function windowSql(stamp: RawBuilder<unknown>, r: Window): RawBuilder<unknown> {
  const parts = [sql`true`];
  if (r.start) parts.push(sql`${stamp} >= ${r.start}`);
  if (r.end) parts.push(sql`${stamp} < ${r.end}`);
  return sql.join(parts, sql` and `);
}

/** the figures the income counters carry (and the orders give, read the plain way) */
type CountedFigures = Omit<IncomeCountersTable, 'event_id' | 'stamp' | 'grain' | 'at' | 'codes_key' | 'shard' | 'units'>;
type MonthRow = { month: string; pending_cents: number; pending_orders: number } & CountedFigures;
type Counted = { month: string; codes_key: string } & CountedFigures;

const QUARTER_MS = 15 * 60_000;

/** Where each part of a report window is read from (see splitRange). */
export interface Pieces {
  /** whole local days, from the day counters (bounds are local midnights) */
  days: Window | null;
  /** whole quarter hours, from the quarter counters */
  quarters: Window[];
  /** the rest, from the orders */
  raw: Window[];
}

/** The first local midnight at or after `t`. */
function midnightFrom(t: Date, tz: string): Date {
  const day = localDate(t, tz);
  const m = zonedMidnight(day, tz);
  return m >= t ? m : zonedMidnight(addDays(day, 1), tz);
}

function splitQuarters(w: { start: Date; end: Date }, out: Pieces): void {
  const up = new Date(Math.ceil(w.start.getTime() / QUARTER_MS) * QUARTER_MS);
  const down = new Date(Math.floor(w.end.getTime() / QUARTER_MS) * QUARTER_MS);
  if (up >= down) {
    out.raw.push(w);
    return;
  }
  out.quarters.push({ start: up, end: down });
  if (w.start < up) out.raw.push({ start: w.start, end: up });
  if (down < w.end) out.raw.push({ start: down, end: w.end });
}

/**
 * The income counters (migration 0009) hold whole local days and whole quarter hours. A
 * window splits into the whole days inside it, the whole quarters of a partial day at either
 * edge, and the partial quarters there, read from the orders. Calendar ranges run from local
 * midnight to local midnight and read days only; a rolling range reads at most a day of
 * quarters and a quarter of orders.
 */
export function splitRange(r: Window, tz: string): Pieces {
  const out: Pieces = { days: null, quarters: [], raw: [] };
  const coreStart = r.start ? midnightFrom(r.start, tz) : null;
  const coreEnd = r.end ? zonedMidnight(localDate(r.end, tz), tz) : null;
  if (r.start && r.end && coreStart && coreEnd && coreStart >= coreEnd) {
    splitQuarters({ start: r.start, end: r.end }, out);
    return out;
  }
  out.days = { start: coreStart, end: coreEnd };
  if (r.start && coreStart && r.start < coreStart) splitQuarters({ start: r.start, end: coreStart }, out);
  if (r.end && coreEnd && coreEnd < r.end) splitQuarters({ start: coreEnd, end: r.end }, out);
  return out;
}

/**
 * Income and deductions (spec 2.2) grouped by month in the event's timezone. Paid figures come
 * only from orders that took money (a succeeded payment of more than zero), dated by `on`;
 * pending money is dated by when the order started. Amounts in another currency are converted
 * per order and figure at the order's recorded rate, rounded half away from zero (numeric
 * round()), before they are added up, so the counters sum the same rounded figures. The
 * month rows decompose the totals exactly; totals are their sums.
 */
export async function incomeReport(
  db: Db,
  event: { id: number; account_id: number; currency: string; timezone: string },
  r: ResolvedRange,
  on: 'paid' | 'started',
  now: Date,
): Promise<IncomeReport> {
  // spec 2.2: an account paying through its own provider key pays no platform fee, whatever its
  // imported payment history carries; decided here, so a change of payment mode shows at once
  const account = await db
    .selectFrom('accounts')
    .select('payments_mode')
    .where('id', '=', event.account_id)
    .executeTakeFirstOrThrow();
  const platformFees = account.payments_mode !== 'own_key';
  const tz = event.timezone;
  const stamp = on === 'paid' ? sql`o.paid_at` : sql`o.created_at`;
  const month = (at: RawBuilder<unknown>) => sql`to_char(${at} at time zone ${tz}, 'YYYY-MM')`;
  const split = splitRange(r, tz);
  // A counter row can hold 0 orders and other figures (an order's change landed on a shard that
  // compaction had already folded); only a month and codes group with no orders is empty.
  const counters = (grain: 'day' | 'quarter', w: Window) =>
    sql`select ${month(sql`c.at`)} as month, c.codes_key, c.orders, c.gross_cents, c.discount_cents, c.refund_cents,
        c.refunded_orders, c.tax_cents, c.fees_cents, c.platform_fee_cents, c.unpriced_payments
      from income_counters c
      where c.event_id = ${event.id} and c.stamp = ${on} and c.grain = ${grain} and ${windowSql(sql`c.at`, w)}`;
  const parts: RawBuilder<unknown>[] = [
    ...(split.days ? [counters('day', split.days)] : []),
    ...split.quarters.map((w) => counters('quarter', w)),
    ...split.raw.map(
      (w) => sql`select ${month(stamp)} as month, o.codes_key, 1::bigint as orders,
          round(o.subtotal_cents * o.fx_rate)::bigint as gross_cents, round(o.discount_cents * o.fx_rate)::bigint as discount_cents,
          round(o.refunded_cents * o.fx_rate)::bigint as refund_cents, (o.refunded_cents > 0)::int::bigint as refunded_orders,
          round(o.tax_cents * o.fx_rate)::bigint as tax_cents, o.fees_cents,
          round(o.platform_fees_cents * o.fx_rate)::bigint as platform_fee_cents, o.unpriced_payments::bigint as unpriced_payments
        from orders o
        where o.event_id = ${event.id} and o.account_id = ${event.account_id} and o.took_money
          and ${stamp} is not null and ${windowSql(stamp, w)}`,
    ),
  ];
  const counted = await sql<Counted>`
    select month, codes_key,
      sum(orders)::int as orders, sum(gross_cents)::bigint as gross_cents, sum(discount_cents)::bigint as discount_cents,
      sum(refund_cents)::bigint as refund_cents, sum(refunded_orders)::int as refunded_orders, sum(tax_cents)::bigint as tax_cents,
      sum(fees_cents)::bigint as fees_cents, sum(platform_fee_cents)::bigint as platform_fee_cents,
      sum(unpriced_payments)::int as unpriced_payments
    from (${sql.join(parts, sql` union all `)}) parts
    group by month, codes_key
    having sum(orders) <> 0`.execute(db);
  const pending = await sql<{ month: string; pending_cents: number; pending_orders: number }>`
    select to_char(o.created_at at time zone ${tz}, 'YYYY-MM') as month,
      sum(round(o.total_cents * o.fx_rate))::bigint as pending_cents, count(*)::int as pending_orders
    from orders o
    where o.account_id = ${event.account_id} and ${isLiveHold(event.id, now, 'o')}
      and ${windowSql(sql`o.created_at`, r)}
    group by 1`.execute(db);

  const byMonth = new Map<string, MonthRow>();
  const monthRow = (m: string): MonthRow => {
    let row = byMonth.get(m);
    if (!row) {
      row = { month: m, ...(Object.fromEntries(MONTH_FIGURES.map((k) => [k, 0])) as Omit<MonthRow, 'month'>) };
      byMonth.set(m, row);
    }
    return row;
  };
  const codes = new Set<string>();
  for (const c of counted.rows) {
    const row = monthRow(c.month);
    for (const k of MONTH_FIGURES) if (k !== 'pending_cents' && k !== 'pending_orders') row[k] += c[k];
    if (!platformFees) row.platform_fee_cents = 0;
    // codes_key holds an order's codes comma-joined in redemption order
    if (c.codes_key !== '' && c.orders > 0) for (const code of c.codes_key.split(',')) codes.add(code);
  }
  for (const p of pending.rows) {
    const row = monthRow(p.month);
    row.pending_cents += p.pending_cents;
    row.pending_orders += p.pending_orders;
  }

  const months: IncomeMonth[] = [...byMonth.values()].sort((a, b) => a.month.localeCompare(b.month)).map(withDerived);
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

const MONTH_FIGURES = [
  'orders',
  'gross_cents',
  'discount_cents',
  'refund_cents',
  'refunded_orders',
  'tax_cents',
  'fees_cents',
  'platform_fee_cents',
  'unpriced_payments',
  'pending_cents',
  'pending_orders',
] as const;

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
