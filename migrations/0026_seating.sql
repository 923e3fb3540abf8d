-- Reserved seating (contract section 12).
--
-- seating_plans: an event's `seating` as its document gave it (the pretix plan kept whole, with
-- every property the format grows; the category map; the blocked seats). event_seats: the plan's
-- seats one row each, in plan order (ordinal), with the ticket type their category maps to; what
-- the seat map, best available and every ticket's seat read. Both are written only by the event
-- document's writer.
create table seating_plans (
  event_id bigint primary key references events (id) on delete cascade,
  account_id bigint not null references accounts (id) on delete cascade,
  plan jsonb not null,
  categories jsonb not null,
  blocked jsonb not null default '[]'
);

create table event_seats (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  seat_guid text not null,
  ordinal integer not null,
  zone text not null,
  row_number text not null,
  seat_number text not null,
  label text not null,
  category text not null,
  ticket_type_id bigint references ticket_types (id),
  blocked boolean not null default false,
  x real not null default 0,
  y real not null default 0,
  radius real,
  unique (event_id, seat_guid)
);
create index event_seats_plan_order on event_seats (event_id, ordinal);

-- order_seats: the seats an order holds or bought, one row a seat. A row is live until its order
-- releases it (cancel, expiry, refund: released_at set); at most one live row per seat of an event,
-- enforced by the unique index, so no two orders can ever hold one seat whatever runs at once. The
-- row stays after release: a late payment that reinstates its order takes the same seats again
-- when they are still free. line_position: the order line (ticket type) the seat is for.
create table order_seats (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  order_id bigint not null references orders (id) on delete cascade,
  line_position integer not null,
  seat_guid text not null,
  released_at timestamptz
);
create unique index order_seats_live on order_seats (event_id, seat_guid) where released_at is null;
create index order_seats_order on order_seats (order_id);

-- A seated type sells only seats: its capacity is its number of unblocked seats.
alter table ticket_types add column seated boolean not null default false;
-- The seat a ticket admits to (set when the ticket is minted from its order's seats).
alter table tickets add column seat_guid text;
