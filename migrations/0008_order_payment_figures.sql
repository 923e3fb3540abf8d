-- What the income report needs from an order's payments, kept on the order row by a trigger
-- on payments, so every path that writes a payment (checkout, webhooks, fee job, terminal,
-- import) keeps it exact in its own transaction and income reads one table:
--   took_money          a succeeded payment of more than zero exists
--   fees_cents          established processor fees in the event currency
--   platform_fees_cents platform fees (payment currency)
--   unpriced_payments   succeeded payments whose fee is not established in the event currency
alter table orders add column took_money boolean not null default false;
alter table orders add column fees_cents bigint not null default 0;
alter table orders add column platform_fees_cents bigint not null default 0;
alter table orders add column unpriced_payments integer not null default 0;

-- the figures of every order with counted payments, defined once for the trigger and backfills
create view order_payment_figures as
  select p.order_id,
    true as took_money,
    coalesce(sum(p.fee_cents) filter (where p.fee_cents is not null and p.fee_currency = e.currency), 0)::bigint as fees_cents,
    coalesce(sum(p.platform_fee_cents), 0)::bigint as platform_fees_cents,
    (count(*) filter (where p.fee_cents is null or p.fee_currency is distinct from e.currency))::int as unpriced_payments
  from payments p
  join orders po on po.id = p.order_id
  join events e on e.id = po.event_id
  where p.status = 'succeeded' and p.amount_cents > 0
  group by p.order_id;

create function admit_order_payment_figures(target bigint) returns void language plpgsql as $$
begin
  update orders o set
    took_money = coalesce(f.took_money, false),
    fees_cents = coalesce(f.fees_cents, 0),
    platform_fees_cents = coalesce(f.platform_fees_cents, 0),
    unpriced_payments = coalesce(f.unpriced_payments, 0)
  from (select target as id) t
  left join order_payment_figures f on f.order_id = t.id
  where o.id = t.id;
end
$$;

create function admit_payments_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform admit_order_payment_figures(old.order_id);
  else
    perform admit_order_payment_figures(new.order_id);
    if tg_op = 'UPDATE' and old.order_id <> new.order_id then
      perform admit_order_payment_figures(old.order_id);
    end if;
  end if;
  return null;
end
$$;

create trigger payments_order_figures after insert or update or delete on payments
  for each row execute function admit_payments_changed();

-- orders written before this migration
update orders o set took_money = f.took_money, fees_cents = f.fees_cents, platform_fees_cents = f.platform_fees_cents,
  unpriced_payments = f.unpriced_payments
from order_payment_figures f where f.order_id = o.id;

-- income reads counted orders by either stamp, with every figure in the index
create index orders_event_income_paid on orders (event_id, paid_at) include (fx_rate, subtotal_cents,
  discount_cents, refunded_cents, tax_cents, fees_cents, platform_fees_cents, unpriced_payments, codes_key)
  where took_money;
create index orders_event_income_started on orders (event_id, created_at) include (fx_rate, subtotal_cents,
  discount_cents, refunded_cents, tax_cents, fees_cents, platform_fees_cents, unpriced_payments, codes_key)
  where took_money;
