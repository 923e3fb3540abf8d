-- A refund may return part of an order's balance: an amount, or chosen tickets (voided, their
-- places released) at their price. The row keeps why (shown in the order's activity), which
-- tickets it voided (so a pending refund completed later by the reconciler voids the same ones),
-- and the form's one-time key, so the same form sent twice refunds once.
alter table refunds add column reason text;
alter table refunds add column ticket_ids bigint[];
alter table refunds add column request_key text;
create unique index refunds_request_key on refunds (order_id, request_key) where request_key is not null and status <> 'failed';
