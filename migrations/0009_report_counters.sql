-- Counters the availability and income reports read instead of every order, kept exact by
-- triggers in the transaction that changes the orders (group commit, payments, refunds,
-- cancellations, expiry, import), so two app instances never disagree and nothing is rebuilt.
--
-- Writers add to one of 8 shards chosen by order id: a flash sale's payments add to the same
-- item and the same quarter of an hour, and one row per counter would make them queue on its
-- lock. Readers sum the shards. A rebuild writes shard 0 only, and the compaction job folds
-- the shards of quarters older than a day into shard 0 (reports/compact-counters.ts).
--
-- item_sales     units on paid orders per item and portal (0: no portal). Holds are not
--                counted here: they expire by the clock, so the report reads the live ones.
-- income_counters the income figures of the orders that took money, by either stamp and
--                codes_key, at two grains: the event's local day (at = the day's first
--                instant) and the quarter hour (UTC). A report reads whole days, then
--                quarters for a partial day at a rolling range's edge, then orders for a
--                partial quarter. Every UTC offset in use since 1972 is a whole number of
--                quarter hours, so local days are made of whole quarters.

create table item_sales (
  event_id bigint not null references events (id) on delete cascade,
  kind text not null,
  item_id bigint not null,
  portal_id bigint not null,
  shard smallint not null,
  sold bigint not null,
  primary key (event_id, kind, item_id, portal_id, shard)
);

create table income_counters (
  event_id bigint not null references events (id) on delete cascade,
  stamp text not null check (stamp in ('paid', 'started')),
  grain text not null check (grain in ('day', 'quarter')),
  at timestamptz not null,
  codes_key text not null,
  shard smallint not null,
  orders bigint not null,
  gross_cents bigint not null,
  discount_cents bigint not null,
  refund_cents bigint not null,
  refunded_orders bigint not null,
  tax_cents bigint not null,
  fees_cents bigint not null,
  platform_fee_cents bigint not null,
  unpriced_payments bigint not null,
  primary key (event_id, stamp, grain, at, codes_key, shard)
);
-- what the compaction job has still to fold
create index income_counters_unfolded on income_counters (at) where shard <> 0;

-- What one order adds to the counters (sign 1) or takes from them (sign -1). Defined once; the triggers add new rows' parts and
-- subtract old rows' parts, the rebuild sums them over all orders.
create function admit_order_units(o orders, sign int) returns table (
  event_id bigint, kind text, item_id bigint, portal_id bigint, shard smallint, units bigint
) language sql stable as $$
  select l.event_id, l.kind, coalesce(l.ticket_type_id, l.session_id, l.good_id, l.donation_id),
    coalesce(o.portal_id, 0), (o.id % 8)::smallint, sign * l.quantity::bigint
  from order_lines l
  where l.order_id = o.id and o.status = 'paid'
$$;

create function admit_line_units(l order_lines, sign int) returns table (
  event_id bigint, kind text, item_id bigint, portal_id bigint, shard smallint, units bigint
) language sql stable as $$
  select l.event_id, l.kind, coalesce(l.ticket_type_id, l.session_id, l.good_id, l.donation_id),
    coalesce(o.portal_id, 0), (o.id % 8)::smallint, sign * l.quantity::bigint
  from orders o
  where o.id = l.order_id and o.status = 'paid'
$$;

create function admit_order_income(o orders, sign int) returns table (
  event_id bigint, stamp text, grain text, at timestamptz, codes_key text, shard smallint, orders bigint,
  gross_cents bigint, discount_cents bigint, refund_cents bigint, refunded_orders bigint, tax_cents bigint,
  fees_cents bigint, platform_fee_cents bigint, unpriced_payments bigint
) language sql stable as $$
  select o.event_id, s.stamp, g.grain, g.at, o.codes_key,
    (o.id % 8)::smallint, sign::bigint,
    sign * round(o.subtotal_cents * o.fx_rate)::bigint, sign * round(o.discount_cents * o.fx_rate)::bigint,
    sign * round(o.refunded_cents * o.fx_rate)::bigint, sign * (o.refunded_cents > 0)::int::bigint,
    sign * round(o.tax_cents * o.fx_rate)::bigint, sign * o.fees_cents, sign * round(o.platform_fees_cents * o.fx_rate)::bigint,
    sign * o.unpriced_payments::bigint
  from events e,
    (values ('paid', o.paid_at), ('started', o.created_at)) s (stamp, at),
    lateral (values ('day', (s.at at time zone e.timezone)::date::timestamp at time zone e.timezone),
      ('quarter', date_bin('15 minutes', s.at, timestamptz '1970-01-01 00:00:00+00'))) g (grain, at)
  where e.id = o.event_id and o.took_money and s.at is not null
$$;

-- Adds signed parts to the counters in key order (two writers lock rows in the same order).
-- Zero deltas (an update that changed nothing counted) write nothing. plpgsql, so the upsert's
-- plan is cached for the session instead of planned on every trigger call.
create function admit_add_units(parts jsonb) returns void language plpgsql as $$
begin
  if parts is null then
    return;
  end if;
  insert into item_sales as c (event_id, kind, item_id, portal_id, shard, sold)
  select p.event_id, p.kind, p.item_id, p.portal_id, p.shard, sum(p.units)
  from jsonb_to_recordset(parts) p (event_id bigint, kind text, item_id bigint, portal_id bigint, shard smallint, units bigint)
  group by 1, 2, 3, 4, 5
  having sum(p.units) <> 0
  order by 1, 2, 3, 4, 5
  on conflict (event_id, kind, item_id, portal_id, shard) do update set sold = c.sold + excluded.sold;
end
$$;

create function admit_add_income(parts jsonb) returns void language plpgsql as $$
begin
  if parts is null then
    return;
  end if;
  insert into income_counters as c (event_id, stamp, grain, at, codes_key, shard, orders, gross_cents, discount_cents,
    refund_cents, refunded_orders, tax_cents, fees_cents, platform_fee_cents, unpriced_payments)
  select p.event_id, p.stamp, p.grain, p.at, p.codes_key, p.shard, sum(p.orders), sum(p.gross_cents), sum(p.discount_cents),
    sum(p.refund_cents), sum(p.refunded_orders), sum(p.tax_cents), sum(p.fees_cents), sum(p.platform_fee_cents),
    sum(p.unpriced_payments)
  from jsonb_to_recordset(parts) p (event_id bigint, stamp text, grain text, at timestamptz, codes_key text, shard smallint,
    orders bigint, gross_cents bigint, discount_cents bigint, refund_cents bigint, refunded_orders bigint,
    tax_cents bigint, fees_cents bigint, platform_fee_cents bigint, unpriced_payments bigint)
  group by 1, 2, 3, 4, 5, 6
  having sum(p.orders) <> 0 or sum(p.gross_cents) <> 0 or sum(p.discount_cents) <> 0 or sum(p.refund_cents) <> 0
    or sum(p.refunded_orders) <> 0 or sum(p.tax_cents) <> 0 or sum(p.fees_cents) <> 0
    or sum(p.platform_fee_cents) <> 0 or sum(p.unpriced_payments) <> 0
  order by 1, 2, 3, 4, 5, 6
  on conflict (event_id, stamp, grain, at, codes_key, shard) do update set
    orders = c.orders + excluded.orders, gross_cents = c.gross_cents + excluded.gross_cents,
    discount_cents = c.discount_cents + excluded.discount_cents, refund_cents = c.refund_cents + excluded.refund_cents,
    refunded_orders = c.refunded_orders + excluded.refunded_orders, tax_cents = c.tax_cents + excluded.tax_cents,
    fees_cents = c.fees_cents + excluded.fees_cents, platform_fee_cents = c.platform_fee_cents + excluded.platform_fee_cents,
    unpriced_payments = c.unpriced_payments + excluded.unpriced_payments;
end
$$;

-- Orders: new ones add their income (their lines come later and add their units); a change
-- takes the old row's parts away and adds the new row's, for units only when the status,
-- portal or event changed (their lines are read again only then).
create function admit_orders_inserted() returns trigger language plpgsql as $$
begin
  -- new orders have usually taken no money yet (the payment comes later)
  if exists (select 1 from new_orders n where n.took_money) then
    perform admit_add_income((select jsonb_agg(p) from new_orders n, admit_order_income(n, 1) p));
  end if;
  return null;
end
$$;

create function admit_orders_updated() returns trigger language plpgsql as $$
begin
  perform admit_add_income((select jsonb_agg(p) from (
      select p.* from old_orders o, admit_order_income(o, -1) p where o.took_money
      union all
      select p.* from new_orders n, admit_order_income(n, 1) p where n.took_money) p));
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

-- An order goes only with its account; when its event is already gone, so are its counters.
create function admit_order_deleting() returns trigger language plpgsql as $$
begin
  if exists (select 1 from events e where e.id = old.event_id) then
    perform admit_add_units((select jsonb_agg(p) from admit_order_units(old, -1) p));
    perform admit_add_income((select jsonb_agg(p) from admit_order_income(old, -1) p));
  end if;
  return old;
end
$$;

-- Lines: units count while their order is paid. A line deleted with its order finds no order
-- (the order's own trigger took its units away first).
create function admit_lines_inserted() returns trigger language plpgsql as $$
begin
  perform admit_add_units((select jsonb_agg(p) from new_lines l, admit_line_units(l, 1) p));
  return null;
end
$$;

create function admit_lines_updated() returns trigger language plpgsql as $$
begin
  perform admit_add_units((select jsonb_agg(p) from (
      select p.* from old_lines l, admit_line_units(l, -1) p
      union all
      select p.* from new_lines l, admit_line_units(l, 1) p) p));
  return null;
end
$$;

create function admit_lines_deleted() returns trigger language plpgsql as $$
begin
  perform admit_add_units((select jsonb_agg(p) from old_lines l, admit_line_units(l, -1) p));
  return null;
end
$$;

create trigger orders_counters_insert after insert on orders
  referencing new table as new_orders for each statement execute function admit_orders_inserted();
create trigger orders_counters_update after update on orders
  referencing old table as old_orders new table as new_orders for each statement execute function admit_orders_updated();
create trigger orders_counters_delete before delete on orders
  for each row execute function admit_order_deleting();
create trigger order_lines_counters_insert after insert on order_lines
  referencing new table as new_lines for each statement execute function admit_lines_inserted();
create trigger order_lines_counters_update after update on order_lines
  referencing old table as old_lines new table as new_lines for each statement execute function admit_lines_updated();
create trigger order_lines_counters_delete after delete on order_lines
  referencing old table as old_lines for each statement execute function admit_lines_deleted();

-- The counters from scratch, from the same parts, for one event or (null) all: for orders
-- written before this migration, and for bulk loads that ran without triggers (the
-- benchmark's seed).
create function admit_rebuild_report_counters(target bigint) returns void language sql as $$
  delete from item_sales where target is null or event_id = target;
  delete from income_counters where target is null or event_id = target;
  insert into item_sales (event_id, kind, item_id, portal_id, shard, sold)
  select p.event_id, p.kind, p.item_id, p.portal_id, 0, sum(p.units)
  from orders o, admit_order_units(o, 1) p
  where target is null or o.event_id = target
  group by 1, 2, 3, 4;
  insert into income_counters (event_id, stamp, grain, at, codes_key, shard, orders, gross_cents, discount_cents,
    refund_cents, refunded_orders, tax_cents, fees_cents, platform_fee_cents, unpriced_payments)
  select p.event_id, p.stamp, p.grain, p.at, p.codes_key, 0, sum(p.orders), sum(p.gross_cents), sum(p.discount_cents),
    sum(p.refund_cents), sum(p.refunded_orders), sum(p.tax_cents), sum(p.fees_cents), sum(p.platform_fee_cents),
    sum(p.unpriced_payments)
  from orders o, admit_order_income(o, 1) p
  where target is null or o.event_id = target
  group by 1, 2, 3, 4, 5;
$$;

select admit_rebuild_report_counters(null);

-- the day grain follows the event's timezone: a new timezone recounts the event
create function admit_event_timezone_changed() returns trigger language plpgsql as $$
begin
  perform admit_rebuild_report_counters(new.id);
  return null;
end
$$;
create trigger events_counters_timezone after update of timezone on events
  for each row when (old.timezone is distinct from new.timezone) execute function admit_event_timezone_changed();

-- live holds per event for the availability and income reports
create index orders_event_pending on orders (event_id) include (expires_at) where status = 'pending';
