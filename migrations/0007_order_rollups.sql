-- Per-order figures the reports read on every order, kept on the order row by the same
-- transaction that writes its lines (place order, import), so reports need no join to
-- order_lines. refunded_cents already mirrors the succeeded refunds.
alter table orders add column ticket_units integer not null default 0;
alter table orders add column tax_cents bigint not null default 0;
update orders o set
  ticket_units = coalesce((select sum(quantity) from order_lines l where l.order_id = o.id and l.kind = 'tickets'), 0),
  tax_cents = coalesce((select sum(tax_cents) from order_lines l where l.order_id = o.id), 0);
create index orders_event_report on orders (event_id, currency, paid_at) include (status, subtotal_cents, discount_cents, refunded_cents, ticket_units, tax_cents, codes_key, audience_id, fx_rate);
