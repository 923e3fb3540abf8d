-- Spec 2.2: `unpriced_payments` counts payments with no established cost. A payment whose fee is
-- established but settled in another currency has a cost: it stays out of `fees_cents` (which
-- is in the event currency) but is no longer unpriced. The view feeds the payments trigger; the
-- backfill below rewrites the order figures, and the orders' counter triggers (0009) move the
-- income counters by the difference in the same statement.
create or replace view order_payment_figures as
  select p.order_id,
    true as took_money,
    coalesce(sum(p.fee_cents) filter (where p.fee_cents is not null and p.fee_currency = e.currency), 0)::bigint as fees_cents,
    coalesce(sum(p.platform_fee_cents), 0)::bigint as platform_fees_cents,
    (count(*) filter (where p.fee_cents is null))::int as unpriced_payments
  from payments p
  join orders po on po.id = p.order_id
  join events e on e.id = po.event_id
  where p.status = 'succeeded' and p.amount_cents > 0
  group by p.order_id;

update orders o set unpriced_payments = f.unpriced_payments
from order_payment_figures f
where f.order_id = o.id and o.unpriced_payments is distinct from f.unpriced_payments;
