-- The event lifecycle (contract section 11). A draft is prepared in the console or the management
-- API and invisible to buyers until published; events that existed before are published, as a
-- file that leaves `status` out means. `sales_start_at` closes the checkout until then.
-- `archived` takes an event that has orders off the lists (an event without orders is deleted
-- instead); its orders and tickets stay reachable.
alter table events add column status text not null default 'published' check (status in ('draft', 'published'));
alter table events add column sales_start_at timestamptz;
alter table events add column archived boolean not null default false;

-- Every event has a check-in list from now on (a new one gets "All tickets"): the door page is
-- never left without one. Events that had none, or only retired ones, get it here (a retired
-- "All tickets" list is brought back rather than made twice).
update checkin_lists l set archived_at = null
where l.key = 'all-tickets' and l.archived_at is not null
  and not exists (select 1 from checkin_lists o where o.event_id = l.event_id and o.archived_at is null);
insert into checkin_lists (account_id, event_id, key, name)
select e.account_id, e.id, 'all-tickets', 'All tickets'
from events e
where not exists (select 1 from checkin_lists l where l.event_id = e.id and l.archived_at is null)
  and not exists (select 1 from checkin_lists l where l.event_id = e.id and l.key = 'all-tickets');
