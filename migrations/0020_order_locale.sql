-- The language an order was bought in (a BCP 47 tag, e.g. de-AT), so its mails and its pay and
-- order pages speak it whatever browser opens them later. Null for orders placed through the API
-- or imported: those follow the buyer's browser, then the event's locale.
alter table orders add column locale text;
