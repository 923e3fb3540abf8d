-- Webhooks (contract section 8). An endpoint's deliveries are written in the same transaction as
-- the change they report (the webhooks' own outbox table: a rolled-back change writes none, a
-- committed one is never lost) and sent after commit by any instance's delivery worker.
create table webhook_endpoints (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  url text not null,
  -- empty: every type
  events text[] not null default '{}',
  description text not null default '',
  enabled boolean not null default true,
  -- whsec_ + base64; kept readable because it signs
  secret text not null,
  previous_secret text,
  previous_secret_until timestamptz,
  -- set while every attempt fails; five days of that disables the endpoint
  failing_since timestamptz,
  disabled_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_account on webhook_endpoints (account_id) where enabled;

create table webhook_deliveries (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  endpoint_id bigint not null references webhook_endpoints (id) on delete cascade,
  type text not null,
  -- what the event is about: {"order_id": n} or {"checkin_id": n}
  subject jsonb not null,
  -- the body, fixed at the first attempt so every retry sends the same bytes
  body text,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  attempts integer not null default 0,
  last_status_code integer,
  next_attempt_at timestamptz not null default now(),
  -- a worker's claim: nobody else sends it before then (not indexed, so a claim is a HOT update)
  leased_until timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
) with (fillfactor = 60);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at, id) where status = 'pending';
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, id);

create table webhook_attempts (
  id bigint generated always as identity primary key,
  delivery_id bigint not null references webhook_deliveries (id) on delete cascade,
  at timestamptz not null,
  status_code integer,
  duration_ms integer not null,
  error text,
  -- the receiver's answer, capped
  response_body text
);
create index webhook_attempts_delivery on webhook_attempts (delivery_id, id);

-- Events come from the order log, which every change to an order already writes in its own
-- transaction (created, paid, changed, canceled, expired, refunded...), and from check-ins:
-- one statement-level trigger each, so a batch of orders costs one insert, and an account with
-- no endpoint costs an empty join.
create function webhook_type_of(action text) returns text language sql immutable as $$
  select case action
    when 'created' then 'order.created'
    when 'paid' then 'order.paid'
    when 'reinstated' then 'order.paid'
    when 'buyer_changed' then 'order.updated'
    when 'canceled' then 'order.canceled'
    when 'expired' then 'order.canceled'
    when 'refunded' then 'order.refunded'
    when 'late_payment_refunded' then 'order.refunded'
  end
$$;

create function webhooks_from_order_log() returns trigger language plpgsql as $$
begin
  insert into webhook_deliveries (account_id, endpoint_id, type, subject)
  select e.account_id, e.id, webhook_type_of(l.action), jsonb_build_object('order_id', l.order_id)
  from new_rows l
  join webhook_endpoints e on e.account_id = l.account_id and e.enabled
  where webhook_type_of(l.action) is not null
    and (cardinality(e.events) = 0 or webhook_type_of(l.action) = any (e.events))
  order by l.id, e.id;
  return null;
end
$$;
create trigger order_log_webhooks after insert on order_log
  referencing new table as new_rows for each statement execute function webhooks_from_order_log();

create function webhooks_from_checkins() returns trigger language plpgsql as $$
begin
  insert into webhook_deliveries (account_id, endpoint_id, type, subject)
  select e.account_id, e.id, 'checkin.created', jsonb_build_object('checkin_id', c.id)
  from new_rows c
  join webhook_endpoints e on e.account_id = c.account_id and e.enabled
  where cardinality(e.events) = 0 or 'checkin.created' = any (e.events)
  order by c.id, e.id;
  return null;
end
$$;
create trigger checkins_webhooks after insert on checkins
  referencing new table as new_rows for each statement execute function webhooks_from_checkins();
