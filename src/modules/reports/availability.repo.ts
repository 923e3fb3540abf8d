import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import { dateTimeFormat } from '../../platform/time.ts';
import { isLiveHold } from './live-holds.ts';

export interface AvailabilityRow {
  kind: 'tickets' | 'sessions' | 'goods' | 'donations';
  name: string;
  capacity: number | null;
  sold: number;
  pending: number;
  taken: number;
  via_portals: number;
  portals: Array<{ portal: string; units: number }>;
  remaining: number | null;
  status: '' | 'sold out' | 'off sale';
}

export interface AvailabilityReport {
  rows: AvailabilityRow[];
  listed: number;
  sold: number;
  pending: number;
  sold_out: number;
}

const KIND_ORDER = ['tickets', 'sessions', 'goods', 'donations'] as const;

interface ItemRow {
  kind: AvailabilityRow['kind'];
  item_id: number;
  name: string;
  starts_at: Date | null;
  ends_at: Date | null;
  capacity: number | null;
  on_sale: boolean;
  position: number;
}

interface UnitRow {
  kind: string;
  item_id: number;
  portal: string | null;
  sold: number;
  pending: number;
}

/** "Sat, 19 Jun 2027, 11:00–13:00": an unnamed session block named by when it runs, in the event's timezone. */
export function sessionName(startsAt: Date, endsAt: Date | null, tz: string): string {
  const day = dateTimeFormat('en-GB', {
    timeZone: tz,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
  }).format(startsAt);
  const time = (d: Date) =>
    dateTimeFormat('en-GB', { timeZone: tz, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(d);
  return `${day}, ${time(startsAt)}${endsAt ? `–${time(endsAt)}` : ''}`;
}

/**
 * Availability of every sellable thing (spec 2.3): two queries, one for the items and one for
 * the units sold (counters) and held (live holds) by item and portal. A hold past its end is
 * not counted even before the sweeper cancels it.
 */
export async function availabilityReport(
  db: Db,
  event: { id: number; account_id: number; timezone: string },
  now: Date,
  showPortals: boolean,
): Promise<AvailabilityReport> {
  const items = await sql<ItemRow>`
    select 'tickets' as kind, id as item_id, name, null::timestamptz as starts_at, null::timestamptz as ends_at, capacity, on_sale, position
      from ticket_types where event_id = ${event.id} and account_id = ${event.account_id} and not archived
    union all
    select 'sessions', id, name, starts_at, ends_at, capacity, on_sale, position
      from sessions where event_id = ${event.id} and account_id = ${event.account_id}
    union all
    select 'goods', id, name, null, null, capacity, on_sale, position
      from goods where event_id = ${event.id} and account_id = ${event.account_id}
    union all
    select 'donations', id, name, null, null, null, on_sale, position
      from donations where event_id = ${event.id} and account_id = ${event.account_id}`.execute(db);

  // Sold units come from the counters kept by the order triggers (migration 0009); holds are
  // read live from the event's pending orders, because they end by the clock: one range of the
  // live-holds index (isLiveHold). Each hold's lines are then looked up by order (lateral), so the
  // cost follows the number of live holds, not the size of the event.
  const units = await sql<UnitRow>`
    select c.kind, c.item_id, p.key as portal, sum(c.sold)::int as sold, 0 as pending
    from item_sales c
    left join portals p on p.id = c.portal_id
    where c.event_id = ${event.id}
    group by 1, 2, 3
    union all
    select l.kind, l.item_id, p.key, 0, sum(l.quantity)::int
    from (
      select id, portal_id from orders
      where account_id = ${event.account_id} and ${isLiveHold(event.id, now)}
    ) o
    cross join lateral (
      select kind, coalesce(ticket_type_id, session_id, good_id, donation_id) as item_id, quantity
      from order_lines where order_id = o.id offset 0
    ) l
    left join portals p on p.id = o.portal_id
    group by 1, 2, 3`.execute(db);

  const byItem = new Map<string, UnitRow[]>();
  for (const u of units.rows) {
    const k = `${u.kind}:${u.item_id}`;
    byItem.set(k, [...(byItem.get(k) ?? []), u]);
  }
  const rows = items.rows
    .sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.position - b.position || a.item_id - b.item_id)
    .map((it): AvailabilityRow => {
      const us = byItem.get(`${it.kind}:${it.item_id}`) ?? [];
      const sold = us.reduce((s, u) => s + u.sold, 0);
      const pending = us.reduce((s, u) => s + u.pending, 0);
      const taken = sold + pending;
      const perPortal = new Map<string, number>();
      for (const u of us) if (u.portal !== null) perPortal.set(u.portal, (perPortal.get(u.portal) ?? 0) + u.sold + u.pending);
      const portals = [...perPortal]
        .map(([portal, units]) => ({ portal, units }))
        .filter((p) => p.units > 0)
        .sort((a, b) => b.units - a.units || a.portal.localeCompare(b.portal));
      const viaPortals = portals.reduce((s, p) => s + p.units, 0);
      const remaining = it.capacity === null ? null : Math.max(0, it.capacity - taken);
      const name =
        it.name ||
        (it.kind === 'sessions' && it.starts_at
          ? sessionName(new Date(it.starts_at), it.ends_at ? new Date(it.ends_at) : null, event.timezone)
          : it.kind);
      return {
        kind: it.kind,
        name,
        capacity: it.capacity,
        sold,
        pending,
        taken,
        via_portals: viaPortals,
        portals: showPortals ? portals : [],
        remaining,
        status: !it.on_sale ? 'off sale' : remaining === 0 ? 'sold out' : '',
      };
    });
  return {
    rows,
    listed: rows.length,
    sold: rows.reduce((s, r) => s + r.sold, 0),
    pending: rows.reduce((s, r) => s + r.pending, 0),
    sold_out: rows.filter((r) => r.capacity !== null && r.remaining === 0).length,
  };
}
