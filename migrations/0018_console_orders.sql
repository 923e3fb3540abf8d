-- Complimentary orders issued from the console's orders desk (issue 17) carry their own channel.
alter table orders drop constraint orders_channel_check;
alter table orders add constraint orders_channel_check check (channel in ('api', 'web', 'import', 'door', 'console'));

-- A console form that creates something once however often it is sent (a double click): its
-- nonce is claimed first, then names what it made. Old nonces are swept by the writer.
create table form_submissions (
  nonce text primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  order_id bigint references orders (id) on delete cascade,
  created_at timestamptz not null default now()
);
