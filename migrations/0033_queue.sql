-- The on-sale queue (contract section 13). Who came and when; at the sales start each early arrival
-- gets a random place (a lottery: arriving early gains nothing over arriving on time), later ones
-- the next place. A place is admitted when the admission rate has reached it: admission is a
-- function of place and time, so no job has to run and any instance answers any visitor.

create table event_queues (
  event_id bigint primary key references events (id) on delete cascade,
  -- the lottery among the early arrivals, done once by the first request after the start
  drawn_at timestamptz,
  -- the highest place given so far
  last_place bigint not null default 0
);

create table queue_visitors (
  id bigint generated always as identity primary key,
  event_id bigint not null references events (id) on delete cascade,
  -- sha256 of the visitor's cookie: the database never holds what the browser presents
  visitor_hash text not null,
  arrived_at timestamptz not null,
  place bigint,
  admitted_at timestamptz,
  unique (event_id, visitor_hash)
);
create index queue_visitors_waiting on queue_visitors (event_id) where place is null;
