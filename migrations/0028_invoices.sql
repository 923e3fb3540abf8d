-- Invoices (contract section 14). An account's invoicing settings (issuer, number prefix) are one
-- document, null while it issues none. An event asks for an invoice address or not; null means
-- the default ('optional' while the account issues invoices). The order keeps the address it
-- was bought with.
alter table accounts add column invoicing jsonb;
alter table events add column invoice_address text check (invoice_address in ('optional', 'required', 'off'));
alter table orders add column invoice_address jsonb;

-- One counter per account and year. The transaction that marks an order paid (or refunds it)
-- takes the next number with one UPDATE ... RETURNING on this row: the row lock queues
-- concurrent issuers from any instance, and a transaction that rolls back gives its number back
-- with it, so the numbers have no gaps and none is used twice.
create table invoice_counters (
  account_id bigint not null references accounts (id) on delete cascade,
  year integer not null,
  last_sequence integer not null,
  primary key (account_id, year)
);

-- Invoices and credit notes as issued: a legal document does not change when the event, the
-- issuer's address or the order does, so `content` keeps what it said (issuer, buyer, lines,
-- amounts per rate). Amounts are positive on both kinds; a credit note names the invoice it
-- corrects. `canceled_at` marks an invoice replaced after an address correction (its credit
-- note cancels it; a new invoice follows).
create table invoices (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  order_id bigint not null references orders (id) on delete cascade,
  kind text not null check (kind in ('invoice', 'credit_note')),
  number text not null,
  year integer not null,
  sequence integer not null,
  corrects_id bigint references invoices (id),
  issued_at timestamptz not null,
  currency text not null,
  total_cents bigint not null check (total_cents >= 0),
  vat_cents bigint not null,
  locale text not null,
  content jsonb not null,
  canceled_at timestamptz,
  unique (account_id, year, sequence),
  unique (account_id, number)
);
create index invoices_order on invoices (order_id, id);
create index invoices_corrects on invoices (corrects_id) where corrects_id is not null;
