-- Each event's net income (paid orders' gross less discounts and refunds, in the event's
-- currency) as one small row per write shard, for the console's events list. The list summed an
-- account's day counters: about six rows an event, each written between other events' rows as
-- sales happened, so a 200-event account read about 1,000 scattered pages of `income_counters`
-- when they were not in memory. These rows are narrow (a few MB for 100,000 events) and stay
-- in memory.
--
-- Kept by the orders' triggers in the same transaction as the income counters, from the same
-- per-order parts (the paid stamp at the day grain), so the two never disagree. Shards as the
-- counters' (order id % 8): concurrent payments of one event do not queue on one row. They are
-- not folded: at most eight rows an event. `admit_add_income` keeps its meaning (the counter rows
-- only; the compaction job of an instance of the previous version calls it to fold shards); the
-- triggers now call `admit_add_income_change`, which adds both.

create table event_income (
  event_id bigint not null references events (id) on delete cascade,
  shard smallint not null,
  net_cents bigint not null,
  primary key (event_id, shard)
);

create function admit_add_income_change(parts jsonb) returns void language plpgsql as $$
begin
  if parts is null then
    return;
  end if;
  perform admit_add_income(parts);
  insert into event_income as c (event_id, shard, net_cents)
  select p.event_id, p.shard, sum(p.gross_cents - p.discount_cents - p.refund_cents)
  from jsonb_to_recordset(parts) p (event_id bigint, stamp text, grain text, shard smallint, gross_cents bigint,
    discount_cents bigint, refund_cents bigint)
  where p.stamp = 'paid' and p.grain = 'day'
  group by 1, 2
  having sum(p.gross_cents - p.discount_cents - p.refund_cents) <> 0
  order by 1, 2
  on conflict (event_id, shard) do update set net_cents = c.net_cents + excluded.net_cents;
end
$$;

-- the three order triggers of migration 0021, calling admit_add_income_change
create or replace function admit_orders_inserted() returns trigger language plpgsql as $$
begin
  insert into order_report_counters as c (event_id, stamp, grain, at, currency, status, audience_id, codes_key, took_money,
    shard, orders, units, gross_cents, discount_cents, refund_cents)
  select p.event_id, p.stamp, p.grain, p.at, p.currency, p.status, p.audience_id, p.codes_key, p.took_money, p.shard,
    sum(p.orders), sum(p.units), sum(p.gross_cents), sum(p.discount_cents), sum(p.refund_cents)
  from new_orders n, admit_order_figures(n, 1) p
  group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
  having sum(p.orders) <> 0 or sum(p.units) <> 0 or sum(p.gross_cents) <> 0 or sum(p.discount_cents) <> 0
    or sum(p.refund_cents) <> 0
  order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
  on conflict (event_id, stamp, grain, at, currency, status, audience_id, codes_key, took_money, shard) do update set
    orders = c.orders + excluded.orders, units = c.units + excluded.units, gross_cents = c.gross_cents + excluded.gross_cents,
    discount_cents = c.discount_cents + excluded.discount_cents, refund_cents = c.refund_cents + excluded.refund_cents;
  -- new orders have usually taken no money yet and are not paid (the payment comes later)
  if exists (select 1 from new_orders n where n.took_money or n.status = 'paid') then
    perform admit_add_income_change((select jsonb_agg(p) from new_orders n, admit_order_income(n, 1) p));
  end if;
  return null;
end
$$;

create or replace function admit_orders_updated() returns trigger language plpgsql as $$
begin
  -- only orders whose report axes or figures changed (most updates touch neither)
  with changed as (
      select o.id from old_orders o join new_orders n on n.id = o.id
      where (o.event_id, o.paid_at, o.created_at, o.currency, o.status, o.audience_id, o.codes_key, o.took_money,
          o.ticket_units, o.subtotal_cents, o.discount_cents, o.refunded_cents)
        is distinct from (n.event_id, n.paid_at, n.created_at, n.currency, n.status, n.audience_id, n.codes_key, n.took_money,
          n.ticket_units, n.subtotal_cents, n.discount_cents, n.refunded_cents)),
    p as (
      select p.* from old_orders o join changed c on c.id = o.id, admit_order_figures(o, -1) p
      union all
      select p.* from new_orders n join changed c on c.id = n.id, admit_order_figures(n, 1) p)
  insert into order_report_counters as c (event_id, stamp, grain, at, currency, status, audience_id, codes_key, took_money,
    shard, orders, units, gross_cents, discount_cents, refund_cents)
  select p.event_id, p.stamp, p.grain, p.at, p.currency, p.status, p.audience_id, p.codes_key, p.took_money, p.shard,
    sum(p.orders), sum(p.units), sum(p.gross_cents), sum(p.discount_cents), sum(p.refund_cents)
  from p
  group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
  having sum(p.orders) <> 0 or sum(p.units) <> 0 or sum(p.gross_cents) <> 0 or sum(p.discount_cents) <> 0
    or sum(p.refund_cents) <> 0
  order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
  on conflict (event_id, stamp, grain, at, currency, status, audience_id, codes_key, took_money, shard) do update set
    orders = c.orders + excluded.orders, units = c.units + excluded.units, gross_cents = c.gross_cents + excluded.gross_cents,
    discount_cents = c.discount_cents + excluded.discount_cents, refund_cents = c.refund_cents + excluded.refund_cents;
  perform admit_add_income_change((select jsonb_agg(p) from (
      select p.* from old_orders o, admit_order_income(o, -1) p where o.took_money or o.status = 'paid'
      union all
      select p.* from new_orders n, admit_order_income(n, 1) p where n.took_money or n.status = 'paid') p));
  perform admit_add_units((with changed as (
      select o.id from old_orders o join new_orders n on n.id = o.id
      where (o.status = 'paid') <> (n.status = 'paid')
        or (n.status = 'paid' and (o.portal_id is distinct from n.portal_id or o.event_id <> n.event_id)))
    select jsonb_agg(p) from (
      select p.* from old_orders o join changed c on c.id = o.id, admit_order_units(o, -1) p
      union all
      select p.* from new_orders n join changed c on c.id = n.id, admit_order_units(n, 1) p) p));
  return null;
end
$$;

create or replace function admit_order_deleting() returns trigger language plpgsql as $$
begin
  if exists (select 1 from events e where e.id = old.event_id) then
    perform admit_add_units((select jsonb_agg(p) from admit_order_units(old, -1) p));
    perform admit_add_income_change((select jsonb_agg(p) from admit_order_income(old, -1) p));
    perform admit_add_order_figures((select jsonb_agg(p) from admit_order_figures(old, -1) p));
  end if;
  return old;
end
$$;

-- The recount of migration 0021, with the events' totals taken from the income counters it has
-- just counted (under the same lock, so no writer's delta falls in between).
create or replace function admit_rebuild_report_counters(target bigint) returns void language sql as $$
  lock table item_sales, income_counters, order_report_counters, event_income in share row exclusive mode;
  delete from item_sales where target is null or event_id = target;
  delete from income_counters where target is null or event_id = target;
  delete from order_report_counters where target is null or event_id = target;
  delete from event_income where target is null or event_id = target;
  insert into item_sales (event_id, kind, item_id, portal_id, shard, sold)
  select p.event_id, p.kind, p.item_id, p.portal_id, 0, sum(p.units)
  from orders o, admit_order_units(o, 1) p
  where target is null or o.event_id = target
  group by 1, 2, 3, 4;
  insert into income_counters (event_id, stamp, grain, at, codes_key, shard, orders, gross_cents, discount_cents,
    refund_cents, refunded_orders, tax_cents, fees_cents, platform_fee_cents, unpriced_payments, units)
  select p.event_id, p.stamp, p.grain, p.at, p.codes_key, 0, sum(p.orders), sum(p.gross_cents), sum(p.discount_cents),
    sum(p.refund_cents), sum(p.refunded_orders), sum(p.tax_cents), sum(p.fees_cents), sum(p.platform_fee_cents),
    sum(p.unpriced_payments), sum(p.units)
  from orders o, admit_order_income(o, 1) p
  where target is null or o.event_id = target
  group by 1, 2, 3, 4, 5;
  insert into order_report_counters (event_id, stamp, grain, at, currency, status, audience_id, codes_key, took_money,
    shard, orders, units, gross_cents, discount_cents, refund_cents)
  select p.event_id, p.stamp, p.grain, p.at, p.currency, p.status, p.audience_id, p.codes_key, p.took_money, 0,
    sum(p.orders), sum(p.units), sum(p.gross_cents), sum(p.discount_cents), sum(p.refund_cents)
  from orders o, admit_order_figures(o, 1) p
  where target is null or o.event_id = target
  group by 1, 2, 3, 4, 5, 6, 7, 8, 9;
  insert into event_income (event_id, shard, net_cents)
  select event_id, 0, sum(gross_cents - discount_cents - refund_cents)
  from income_counters
  where (target is null or event_id = target) and stamp = 'paid' and grain = 'day'
  group by 1
  having sum(gross_cents - discount_cents - refund_cents) <> 0;
$$;

-- the events sold before this migration
insert into event_income (event_id, shard, net_cents)
select event_id, 0, sum(gross_cents - discount_cents - refund_cents)
from income_counters
where stamp = 'paid' and grain = 'day'
group by 1
having sum(gross_cents - discount_cents - refund_cents) <> 0;
