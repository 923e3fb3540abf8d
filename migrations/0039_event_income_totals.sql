-- Each event's net income (paid orders' gross less discounts and refunds, in the event's
-- currency) as one small row per write shard, for the console's events list. The list summed an
-- account's day counters: about six rows an event, each written between other events' rows as
-- sales happened, so a 200-event account read about 1,000 scattered pages of `income_counters`
-- when they were not in memory. These rows are narrow (a few MB for 100,000 events) and stay
-- in memory.
--
-- Kept by triggers of their own on orders, in the transaction that changes the orders, from the
-- same per-order parts as the income counters (admit_order_income: the paid stamp, day grain),
-- so the two never disagree. Shards as the counters' (order id % 8): concurrent payments of one
-- event do not queue on one row. They are not folded: at most eight rows an event. A timezone
-- does not change a total, so the counters' recount leaves them; admit_rebuild_event_income
-- recounts them after a bulk load.

create table event_income (
  event_id bigint not null references events (id) on delete cascade,
  shard smallint not null,
  net_cents bigint not null,
  primary key (event_id, shard)
);

-- What orders add to their events' totals (sign 1) or take from them (-1); only orders that took
-- money and were paid count (every other order's income parts are zero).
create function admit_add_event_income(gone orders[], came orders[]) returns void language sql as $$
  insert into event_income as c (event_id, shard, net_cents)
  select p.event_id, p.shard, sum(p.gross_cents - p.discount_cents - p.refund_cents)
  from (select g, -1 as sign from unnest(gone) g union all select n, 1 from unnest(came) n) x (o, sign),
    admit_order_income(x.o, x.sign) p
  where p.stamp = 'paid' and p.grain = 'day'
  group by 1, 2
  having sum(p.gross_cents - p.discount_cents - p.refund_cents) <> 0
  order by 1, 2
  on conflict (event_id, shard) do update set net_cents = c.net_cents + excluded.net_cents;
$$;

create function admit_event_income_inserted() returns trigger language plpgsql as $$
begin
  -- new orders have usually taken no money yet (the payment comes later)
  if exists (select 1 from new_orders n where n.took_money and n.paid_at is not null) then
    perform admit_add_event_income(null,
      (select array_agg(n::orders) from new_orders n where n.took_money and n.paid_at is not null));
  end if;
  return null;
end
$$;

create function admit_event_income_updated() returns trigger language plpgsql as $$
begin
  perform admit_add_event_income(
    (select array_agg(o::orders) from old_orders o where o.took_money and o.paid_at is not null),
    (select array_agg(n::orders) from new_orders n where n.took_money and n.paid_at is not null));
  return null;
end
$$;

-- an event's deletion takes its totals with it (the cascade); an order deleted alone is taken out
create function admit_event_income_deleting() returns trigger language plpgsql as $$
begin
  if old.took_money and old.paid_at is not null and exists (select 1 from events e where e.id = old.event_id) then
    perform admit_add_event_income(array[old], null);
  end if;
  return old;
end
$$;

create trigger orders_event_income_insert after insert on orders
  referencing new table as new_orders for each statement execute function admit_event_income_inserted();
create trigger orders_event_income_update after update on orders
  referencing old table as old_orders new table as new_orders for each statement execute function admit_event_income_updated();
create trigger orders_event_income_delete before delete on orders
  for each row execute function admit_event_income_deleting();

-- The recount after a bulk load (triggers off), locked against writers like the counters' recount.
create function admit_rebuild_event_income(target bigint) returns void language sql as $$
  lock table event_income in share row exclusive mode;
  delete from event_income where target is null or event_id = target;
  insert into event_income (event_id, shard, net_cents)
  select p.event_id, 0, sum(p.gross_cents - p.discount_cents - p.refund_cents)
  from orders o, admit_order_income(o, 1) p
  where (target is null or o.event_id = target) and o.took_money and o.paid_at is not null
    and p.stamp = 'paid' and p.grain = 'day'
  group by 1
  having sum(p.gross_cents - p.discount_cents - p.refund_cents) <> 0;
$$;

select admit_rebuild_event_income(null);
