-- The orders desk and the CSV exports search an event's orders by the start of the buyer's email
-- (issue 17); a LIKE 'prefix%' on lower(email) uses this index whatever the collation.
create index orders_event_email on orders (event_id, lower(email) text_pattern_ops);
