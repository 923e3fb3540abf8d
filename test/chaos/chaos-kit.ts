import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import type { Db } from '../../src/platform/db/database.ts';

/** What the chaos scenarios share: the invariants every fault must leave intact, and a real server process. */

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Every invariant that must survive any fault; returns the list of violations. A voided ticket of
 * a live order (a partial refund, a cancellation) has given its unit back.
 */
export async function invariants(db: Db): Promise<string[]> {
  const out: string[] = [];
  const stock = await sql<{ id: number; taken: number; capacity: number; held: number }>`
    select i.id, i.taken, i.capacity, coalesce((select sum(l.quantity - (select count(*) from tickets v where v.order_line_id = l.id and v.status = 'voided'))
      from order_lines l join orders o on o.id = l.order_id
      where l.inventory_id = i.id and o.status in ('pending', 'paid')), 0)::int as held from inventory i`.execute(db);
  for (const s of stock.rows) {
    if (s.taken !== s.held) out.push(`inventory ${s.id}: taken ${s.taken} but orders hold ${s.held}`);
    if (s.taken > s.capacity) out.push(`inventory ${s.id}: oversold ${s.taken}/${s.capacity}`);
  }
  const empty = await sql<{
    n: number;
  }>`select count(*)::int n from orders o where not exists (select 1 from order_lines l where l.order_id = o.id)`.execute(db);
  if (empty.rows[0]!.n) out.push(`${empty.rows[0]!.n} orders without lines`);
  const ticketless = await sql<{ n: number }>`select count(*)::int n from orders o where o.status = 'paid'
    and (select coalesce(sum(quantity), 0) from order_lines where order_id = o.id and kind = 'tickets') <> (select count(*) from tickets where order_id = o.id)`.execute(
    db,
  );
  if (ticketless.rows[0]!.n) out.push(`${ticketless.rows[0]!.n} paid orders whose tickets do not match their lines`);
  const doubled = await sql<{
    n: number;
  }>`select count(*)::int n from (select order_id from refunds where status = 'succeeded' group by order_id, payment_id having count(*) > 1) x`.execute(
    db,
  );
  if (doubled.rows[0]!.n) out.push(`${doubled.rows[0]!.n} payments refunded twice`);
  const refundedWithout = await sql<{
    n: number;
  }>`select count(*)::int n from orders o where o.status = 'refunded' and o.total_cents > 0
    and not exists (select 1 from refunds r where r.order_id = o.id and r.status = 'succeeded')`.execute(db);
  if (refundedWithout.rows[0]!.n) out.push(`${refundedWithout.rows[0]!.n} refunded orders without a refund`);
  // the report counters (migration 0009) against a recount from the orders
  const counters = await sql<{ units: number; income: number }>`
    with live_units as (select p.event_id, p.kind, p.item_id, p.portal_id, sum(p.units) as n
        from orders o, admit_order_units(o, 1) p group by 1, 2, 3, 4),
      kept_units as (select event_id, kind, item_id, portal_id, sum(sold) as n from item_sales group by 1, 2, 3, 4 having sum(sold) <> 0),
      live_income as (select p.event_id, p.stamp, p.grain, p.at, p.codes_key, sum(p.orders) as n, sum(p.gross_cents) as g,
          sum(p.refund_cents) as r, sum(p.units) as u
        from orders o, admit_order_income(o, 1) p group by 1, 2, 3, 4, 5 having sum(p.orders) <> 0 or sum(p.units) <> 0),
      kept_income as (select event_id, stamp, grain, at, codes_key, sum(orders) as n, sum(gross_cents) as g, sum(refund_cents) as r,
          sum(units) as u
        from income_counters group by 1, 2, 3, 4, 5 having sum(orders) <> 0 or sum(units) <> 0)
    select
      (select count(*) from live_units full join kept_units using (event_id, kind, item_id, portal_id)
        where live_units.n is distinct from kept_units.n)::int as units,
      (select count(*) from live_income full join kept_income using (event_id, stamp, grain, at, codes_key)
        where (live_income.n, live_income.g, live_income.r, live_income.u)
          is distinct from (kept_income.n, kept_income.g, kept_income.r, kept_income.u))::int as income`.execute(db);
  const c = counters.rows[0]!;
  if (c.units) out.push(`${c.units} unit counters differ from the orders`);
  if (c.income) out.push(`${c.income} income counters differ from the orders`);
  // each event's net income for the events list (migration 0039), against the same recount
  const totals = await sql<{ n: number }>`
    with live as (select p.event_id, sum(p.gross_cents - p.discount_cents - p.refund_cents) as n
        from orders o, admit_order_income(o, 1) p where p.stamp = 'paid' and p.grain = 'day' group by 1),
      kept as (select event_id, sum(net_cents) as n from event_income group by 1)
    select count(*)::int as n from live full join kept using (event_id)
    where coalesce(live.n, 0) <> coalesce(kept.n, 0)`.execute(db);
  if (totals.rows[0]!.n) out.push(`${totals.rows[0]!.n} events' net income differs from the orders`);
  return out;
}

/** A real `admit serve` process, answered once its health check does. */
export async function startServer(env: Record<string, string>, base: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['bin/admit.mjs', 'serve'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return child;
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not start');
}
