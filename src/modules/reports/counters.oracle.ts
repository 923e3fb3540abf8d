import { sql } from 'kysely';
import type { TestApp } from '../../../test/app.ts';
import { resolveRange } from '../../platform/date-range.ts';
import { INCOME_FIGURES } from './income.service.ts';

// The report counters' oracle for the property tests: the same figures counted from the orders
// the plain way (no counters, no triggers), to compare with what the counters say.

/** Counters summed over shards, next to the same figures counted from the orders the plain way. */
export async function counterMismatches(
  t: TestApp,
  eventId: number,
): Promise<{ units: unknown[]; income: unknown[]; tickets: unknown[]; report: unknown[]; total: unknown[] }> {
  const db = t.ctx.db;
  const units = await sql`
    with plain as (
      select l.kind, coalesce(l.ticket_type_id, l.good_id) as item, coalesce(o.portal_id, 0) as portal, sum(l.quantity)::bigint as n
      from orders o join order_lines l on l.order_id = o.id
      where o.event_id = ${eventId} and o.status = 'paid' group by 1, 2, 3),
    kept as (
      select kind, item_id as item, portal_id as portal, sum(sold)::bigint as n from item_sales
      where event_id = ${eventId} group by 1, 2, 3 having sum(sold) <> 0)
    select * from plain full join kept using (kind, item, portal) where plain.n is distinct from kept.n`.execute(db);
  const income = await sql`
    with tz as (select timezone as z from events where id = ${eventId}),
    stamped as (
      select s.stamp, s.at, o.* from orders o, lateral (values ('paid', o.paid_at), ('started', o.created_at)) s (stamp, at)
      where o.event_id = ${eventId} and o.took_money and s.at is not null),
    plain as (
      select stamp, g.grain, g.at, codes_key, count(*)::bigint as orders, sum(round(subtotal_cents * fx_rate))::bigint as gross,
        sum(round(refunded_cents * fx_rate))::bigint as refund, count(*) filter (where refunded_cents > 0)::bigint as refunded,
        sum(fees_cents)::bigint as fees, sum(round(platform_fees_cents * fx_rate))::bigint as platform, sum(unpriced_payments)::bigint as unpriced
      from stamped, tz, lateral (values
        ('day', date_trunc('day', stamped.at at time zone tz.z) at time zone tz.z),
        ('quarter', to_timestamp(floor(extract(epoch from stamped.at) / 900) * 900))) g (grain, at)
      group by 1, 2, 3, 4),
    kept as (
      select stamp, grain, at, codes_key, sum(orders)::bigint as orders, sum(gross_cents)::bigint as gross, sum(refund_cents)::bigint as refund,
        sum(refunded_orders)::bigint as refunded, sum(fees_cents)::bigint as fees, sum(platform_fee_cents)::bigint as platform,
        sum(unpriced_payments)::bigint as unpriced
      from income_counters where event_id = ${eventId} group by 1, 2, 3, 4 having sum(orders) <> 0)
    select * from plain full join kept using (stamp, grain, at, codes_key)
    where (plain.orders, plain.gross, plain.refund, plain.refunded, plain.fees, plain.platform, plain.unpriced)
      is distinct from (kept.orders, kept.gross, kept.refund, kept.refunded, kept.fees, kept.platform, kept.unpriced)`.execute(
    db,
  );
  // tickets of paid orders (money or not) by stamp, grain and bucket (migration 0019)
  const tickets = await sql`
    with tz as (select timezone as z from events where id = ${eventId}),
    stamped as (
      select s.stamp, s.at, o.ticket_units from orders o, lateral (values ('paid', o.paid_at), ('started', o.created_at)) s (stamp, at)
      where o.event_id = ${eventId} and o.status = 'paid' and s.at is not null),
    plain as (
      select stamp, g.grain, g.at, sum(ticket_units)::bigint as n
      from stamped, tz, lateral (values
        ('day', date_trunc('day', stamped.at at time zone tz.z) at time zone tz.z),
        ('quarter', to_timestamp(floor(extract(epoch from stamped.at) / 900) * 900))) g (grain, at)
      group by 1, 2, 3 having sum(ticket_units) <> 0),
    kept as (
      select stamp, grain, at, sum(units)::bigint as n from income_counters where event_id = ${eventId}
      group by 1, 2, 3 having sum(units) <> 0)
    select * from plain full join kept using (stamp, grain, at) where plain.n is distinct from kept.n`.execute(db);
  // the orders report's figures by every axis (migration 0021), each order in its own currency
  const report = await sql`
    with tz as (select timezone as z from events where id = ${eventId}),
    stamped as (
      select s.stamp, s.at, o.* from orders o, lateral (values ('paid', o.paid_at), ('started', o.created_at)) s (stamp, at)
      where o.event_id = ${eventId} and s.at is not null),
    plain as (
      select stamp, g.grain, g.at, currency, status, coalesce(audience_id, 0) as audience_id, codes_key, took_money,
        count(*)::bigint as orders, sum(ticket_units)::bigint as units, sum(subtotal_cents)::bigint as gross,
        sum(discount_cents)::bigint as discount, sum(refunded_cents)::bigint as refund
      from stamped, tz, lateral (values
        ('day', date_trunc('day', stamped.at at time zone tz.z) at time zone tz.z),
        ('quarter', to_timestamp(floor(extract(epoch from stamped.at) / 900) * 900))) g (grain, at)
      group by 1, 2, 3, 4, 5, 6, 7, 8),
    kept as (
      select stamp, grain, at, currency, status, audience_id, codes_key, took_money, sum(orders)::bigint as orders,
        sum(units)::bigint as units, sum(gross_cents)::bigint as gross, sum(discount_cents)::bigint as discount,
        sum(refund_cents)::bigint as refund
      from order_report_counters where event_id = ${eventId} group by 1, 2, 3, 4, 5, 6, 7, 8 having sum(orders) <> 0)
    select * from plain full join kept using (stamp, grain, at, currency, status, audience_id, codes_key, took_money)
    where (plain.orders, plain.units, plain.gross, plain.discount, plain.refund)
      is distinct from (kept.orders, kept.units, kept.gross, kept.discount, kept.refund)`.execute(db);
  // the event's net income for the events list (migration 0039), summed over its shards
  const total = await sql`
    with plain as (
      select coalesce(sum(round(subtotal_cents * fx_rate) - round(discount_cents * fx_rate) - round(refunded_cents * fx_rate)), 0)::bigint as n
      from orders where event_id = ${eventId} and took_money and paid_at is not null),
    kept as (select coalesce(sum(net_cents), 0)::bigint as n from event_income where event_id = ${eventId})
    select plain.n as plain, kept.n as kept from plain, kept where plain.n <> kept.n`.execute(db);
  return { units: units.rows, income: income.rows, tickets: tickets.rows, report: report.rows, total: total.rows };
}

/** The orders report's rows written the plain way over the orders (spec 2.4). */
export async function plainOrdersReport(t: TestApp, eventId: number, query: string) {
  const q = new URLSearchParams(query);
  const tz = (await sql<{ z: string }>`select timezone as z from events where id = ${eventId}`.execute(t.ctx.db)).rows[0]!.z;
  const r = resolveRange(Object.fromEntries(q), t.clock.now(), tz);
  const stamp = q.get('on') === 'started' ? sql`o.created_at` : sql`o.paid_at`;
  const group = q.get('group') ?? 'day';
  const key = {
    day: sql`to_char(${stamp} at time zone ${tz}, 'YYYY-MM-DD')`,
    week: sql`to_char(date_trunc('week', ${stamp} at time zone ${tz}), 'YYYY-MM-DD')`,
    month: sql`to_char(${stamp} at time zone ${tz}, 'YYYY-MM')`,
    status: sql`o.status`,
    code: sql`coalesce(nullif(o.codes_key, ''), '-')`,
    audience: sql`coalesce(a.key, '-')`,
  }[group]!;
  const filters = [sql`o.event_id = ${eventId}`, sql`o.currency = ${q.get('currency') ?? 'eur'}`, sql`${stamp} is not null`];
  if (r.start) filters.push(sql`${stamp} >= ${r.start}`);
  if (r.end) filters.push(sql`${stamp} < ${r.end}`);
  if (q.get('status')) filters.push(sql`o.status = ${q.get('status')}`);
  if (q.get('audience')) filters.push(q.get('audience') === '-' ? sql`o.audience_id is null` : sql`a.key = ${q.get('audience')}`);
  if (q.get('code')) filters.push(sql`o.codes_key = ${q.get('code') === '-' ? '' : q.get('code')}`);
  if (q.get('paid') === '1') filters.push(sql`o.took_money`);
  const rows = await sql<Record<string, number | string>>`
    select ${key} as key, count(*)::int as orders, sum(o.ticket_units)::int as units, sum(o.subtotal_cents)::bigint as gross_cents,
      sum(o.discount_cents)::bigint as discount_cents, sum(o.refunded_cents)::bigint as refund_cents
    from orders o left join audiences a on a.id = o.audience_id
    where ${sql.join(filters, sql` and `)}
    group by 1 order by 1`.execute(t.ctx.db);
  return rows.rows
    .map((m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, k === 'key' ? v : Number(v)])))
    .sort((x, y) => String(x.key).localeCompare(String(y.key)));
}

/** The income report's paid figures by month, written the plain way over the orders. */
export async function plainIncome(t: TestApp, eventId: number, range: string, on: 'paid' | 'started') {
  const tz = (await sql<{ z: string }>`select timezone as z from events where id = ${eventId}`.execute(t.ctx.db)).rows[0]!.z;
  const r = resolveRange(Object.fromEntries(new URLSearchParams(range)), t.clock.now(), tz);
  const stamp = on === 'paid' ? sql`paid_at` : sql`created_at`;
  const rows = await sql<Record<string, number | string>>`
    select to_char(${stamp} at time zone ${tz}, 'YYYY-MM') as month, count(*)::int as orders,
      sum(round(subtotal_cents * fx_rate))::bigint as gross_cents, sum(round(discount_cents * fx_rate))::bigint as discount_cents,
      sum(round(refunded_cents * fx_rate))::bigint as refund_cents, count(*) filter (where refunded_cents > 0)::int as refunded_orders,
      sum(round(tax_cents * fx_rate))::bigint as tax_cents, sum(fees_cents)::bigint as fees_cents,
      sum(round(platform_fees_cents * fx_rate))::bigint as platform_fee_cents, sum(unpriced_payments)::int as unpriced_payments
    from orders
    where event_id = ${eventId} and took_money and ${stamp} is not null
      and (${r.start}::timestamptz is null or ${stamp} >= ${r.start}) and (${r.end}::timestamptz is null or ${stamp} < ${r.end})
    group by 1 order by 1`.execute(t.ctx.db);
  return rows.rows.map((m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, k === 'month' ? v : Number(v)])));
}

export const PAID_FIGURES = INCOME_FIGURES.filter(
  (k) => !['collected_cents', 'net_cents', 'pending_cents', 'pending_orders'].includes(k),
);
