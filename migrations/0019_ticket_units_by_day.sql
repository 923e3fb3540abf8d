-- Tickets sold over time for the event dashboard (issue 17): the income counters also count the
-- tickets of paid orders, by the same day and quarter grains, so the dashboard charts tickets per
-- day from the counters instead of the orders. Paid orders that took no money (free tickets,
-- complimentary orders, a 100% code) now have counter rows too, with every money figure and the
-- order count at zero: the income figures do not change.

alter table income_counters add column units bigint not null default 0;

drop function admit_order_income(orders, int);
create function admit_order_income(o orders, sign int) returns table (
  event_id bigint, stamp text, grain text, at timestamptz, codes_key text, shard smallint, orders bigint,
  gross_cents bigint, discount_cents bigint, refund_cents bigint, refunded_orders bigint, tax_cents bigint,
  fees_cents bigint, platform_fee_cents bigint, unpriced_payments bigint, units bigint
) language sql stable as $$
  select o.event_id, s.stamp, g.grain, g.at, o.codes_key,
    (o.id % 8)::smallint, sign * m.took,
    sign * m.took * round(o.subtotal_cents * o.fx_rate)::bigint, sign * m.took * round(o.discount_cents * o.fx_rate)::bigint,
    sign * m.took * round(o.refunded_cents * o.fx_rate)::bigint, sign * m.took * (o.refunded_cents > 0)::int::bigint,
    sign * m.took * round(o.tax_cents * o.fx_rate)::bigint, sign * m.took * o.fees_cents,
    sign * m.took * round(o.platform_fees_cents * o.fx_rate)::bigint, sign * m.took * o.unpriced_payments::bigint,
    sign * case when o.status = 'paid' then o.ticket_units else 0 end::bigint
  from events e,
    (values (case when o.took_money then 1 else 0 end::bigint)) m (took),
    (values ('paid', o.paid_at), ('started', o.created_at)) s (stamp, at),
    lateral (values ('day', (s.at at time zone e.timezone)::date::timestamp at time zone e.timezone),
      ('quarter', date_bin('15 minutes', s.at, timestamptz '1970-01-01 00:00:00+00'))) g (grain, at)
  where e.id = o.event_id and (o.took_money or o.status = 'paid') and s.at is not null
$$;

create or replace function admit_add_income(parts jsonb) returns void language plpgsql as $$
begin
  if parts is null then
    return;
  end if;
  insert into income_counters as c (event_id, stamp, grain, at, codes_key, shard, orders, gross_cents, discount_cents,
    refund_cents, refunded_orders, tax_cents, fees_cents, platform_fee_cents, unpriced_payments, units)
  select p.event_id, p.stamp, p.grain, p.at, p.codes_key, p.shard, sum(p.orders), sum(p.gross_cents), sum(p.discount_cents),
    sum(p.refund_cents), sum(p.refunded_orders), sum(p.tax_cents), sum(p.fees_cents), sum(p.platform_fee_cents),
    sum(p.unpriced_payments), sum(coalesce(p.units, 0))
  from jsonb_to_recordset(parts) p (event_id bigint, stamp text, grain text, at timestamptz, codes_key text, shard smallint,
    orders bigint, gross_cents bigint, discount_cents bigint, refund_cents bigint, refunded_orders bigint,
    tax_cents bigint, fees_cents bigint, platform_fee_cents bigint, unpriced_payments bigint, units bigint)
  group by 1, 2, 3, 4, 5, 6
  having sum(p.orders) <> 0 or sum(p.gross_cents) <> 0 or sum(p.discount_cents) <> 0 or sum(p.refund_cents) <> 0
    or sum(p.refunded_orders) <> 0 or sum(p.tax_cents) <> 0 or sum(p.fees_cents) <> 0
    or sum(p.platform_fee_cents) <> 0 or sum(p.unpriced_payments) <> 0 or sum(coalesce(p.units, 0)) <> 0
  order by 1, 2, 3, 4, 5, 6
  on conflict (event_id, stamp, grain, at, codes_key, shard) do update set
    orders = c.orders + excluded.orders, gross_cents = c.gross_cents + excluded.gross_cents,
    discount_cents = c.discount_cents + excluded.discount_cents, refund_cents = c.refund_cents + excluded.refund_cents,
    refunded_orders = c.refunded_orders + excluded.refunded_orders, tax_cents = c.tax_cents + excluded.tax_cents,
    fees_cents = c.fees_cents + excluded.fees_cents, platform_fee_cents = c.platform_fee_cents + excluded.platform_fee_cents,
    unpriced_payments = c.unpriced_payments + excluded.unpriced_payments, units = c.units + excluded.units;
end
$$;

create or replace function admit_orders_inserted() returns trigger language plpgsql as $$
begin
  -- new orders have usually taken no money yet and are not paid (the payment comes later)
  if exists (select 1 from new_orders n where n.took_money or n.status = 'paid') then
    perform admit_add_income((select jsonb_agg(p) from new_orders n, admit_order_income(n, 1) p));
  end if;
  return null;
end
$$;

create or replace function admit_orders_updated() returns trigger language plpgsql as $$
begin
  perform admit_add_income((select jsonb_agg(p) from (
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

create or replace function admit_rebuild_report_counters(target bigint) returns void language sql as $$
  delete from item_sales where target is null or event_id = target;
  delete from income_counters where target is null or event_id = target;
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
$$;

select admit_rebuild_report_counters(null);
