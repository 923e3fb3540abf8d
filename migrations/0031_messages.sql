-- Messages to attendees (contract section 15, last bullet).
--
-- One row per message an organiser writes for an event: what it says (subject, Markdown body),
-- whom it is for (the filter as given, ticket types by key and by id), when it goes, and how far
-- its sending got. The counters are kept by the messages module in the transaction that records
-- each delivery, so a list of messages reads them without counting deliveries.
create table messages (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  subject text not null,
  body text not null,
  -- {ticket_types?: [key], ticket_type_ids?: [id], status?: [status], checked_in?: boolean}
  recipient_filter jsonb not null default '{}',
  send_at timestamptz not null,
  -- scheduled: waits for send_at; sending: its mails are in the outbox; sent: every one sent or failed
  state text not null check (state in ('scheduled', 'sending', 'sent')),
  created_by text not null,
  created_at timestamptz not null,
  queued_at timestamptz,
  -- the orders it was queued for (for a scheduled message: how many matched when it was written)
  recipients integer not null default 0,
  sent_count integer not null default 0,
  failed_count integer not null default 0
);
create index messages_event on messages (event_id, id desc);
create index messages_due on messages (send_at) where state = 'scheduled';

-- One row per message and order: the key that makes the mail go at most once whatever the outbox
-- repeats (its dispatch is at least once), and what the counters are counted from.
create table message_deliveries (
  message_id bigint not null references messages (id) on delete cascade,
  order_id bigint not null references orders (id) on delete cascade,
  account_id bigint not null references accounts (id) on delete cascade,
  status text not null default 'queued' check (status in ('queued', 'sent', 'failed')),
  sent_at timestamptz,
  error text,
  primary key (message_id, order_id)
);
