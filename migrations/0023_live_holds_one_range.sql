-- A live hold is a pending order whose hold ends after now, or never (a free order awaiting its
-- confirmation has no end). 0022 indexed the end itself, so the holds that never end were a second
-- lookup, `expires_at is null`, whose row count the planner takes from the whole table: most orders
-- have no end (paid ones drop it), and after a flash sale left many pending orders it expected
-- 100,000 of them in one event and read the whole table in parallel (320-410 ms for availability in
-- a full bench run, for no rows). Indexed by the end with "never" as infinity, every live hold of an
-- event is one range of this index, `(event_id, coalesce(expires_at, 'infinity')) > (event, now)`,
-- which no other index can serve and whose size the planner does not have to guess.
drop index orders_event_live_holds;
create index orders_event_live_holds on orders (event_id, (coalesce(expires_at, 'infinity'::timestamptz)))
  include (account_id, created_at, currency, total_cents, fx_rate, portal_id) where status = 'pending';
