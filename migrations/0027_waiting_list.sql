-- Waiting list (contract section 13, first half).
--
-- events: the document's `waiting_list: {enabled, offer_minutes}`, written by the event writer.
alter table events add column waiting_list_enabled boolean not null default false;
alter table events add column waiting_list_offer_minutes integer not null default 1440
  check (waiting_list_offer_minutes between 5 and 20160);

-- inventory.waitlisted: someone waits for the units of this row. Kept by the waitlist module
-- through the inventory module's repo, always under the row's lock. While it is set, the public
-- order writer sees the row sold out; only the waitlist's offers take its units.
alter table inventory add column waitlisted boolean not null default false;
create index inventory_waitlisted on inventory (id) where waitlisted;

-- One row per person waiting for a ticket type. Every write of a type's entries happens under
-- the lock of the type's inventory row, so entries of one type are offered one at a time, in id
-- (arrival) order, whatever runs at once. An entry is offered at most once: the move from
-- `waiting` to `offered` is guarded by its status, and one order belongs to at most one entry.
create table waiting_list_entries (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  ticket_type_id bigint not null references ticket_types (id) on delete cascade,
  quantity integer not null check (quantity >= 1),
  email text not null,
  name text not null,
  locale text,
  status text not null default 'waiting'
    check (status in ('waiting', 'offered', 'accepted', 'expired', 'removed')),
  order_id bigint unique references orders (id) on delete set null,
  -- the capability of the "leave the list" link mailed to the person
  leave_secret text not null unique,
  created_at timestamptz not null,
  offered_at timestamptz,
  expires_at timestamptz,
  updated_at timestamptz not null
);
create index waiting_list_entries_event on waiting_list_entries (event_id, id);
create index waiting_list_entries_queue on waiting_list_entries (ticket_type_id, id) where status = 'waiting';
create index waiting_list_entries_offered on waiting_list_entries (event_id) where status = 'offered';
-- one live place per person and type: joining twice does not queue twice
create unique index waiting_list_entries_live on waiting_list_entries (ticket_type_id, lower(email))
  where status in ('waiting', 'offered');

-- An offer is logged on its order ('waiting_list_offered'): the order log's trigger makes the
-- webhook, like every other order event.
create or replace function webhook_type_of(action text) returns text language sql immutable as $$
  select case action
    when 'created' then 'order.created'
    when 'paid' then 'order.paid'
    when 'reinstated' then 'order.paid'
    when 'buyer_changed' then 'order.updated'
    when 'canceled' then 'order.canceled'
    when 'expired' then 'order.canceled'
    when 'refunded' then 'order.refunded'
    when 'late_payment_refunded' then 'order.refunded'
    when 'waiting_list_offered' then 'waiting_list.offered'
  end
$$;
