-- admit: the whole domain. Every tenant table carries account_id so the schema can be
-- distributed by account (Citus) later; every query filters by it.
-- Money: bigint minor units with the currency beside it. Time: timestamptz (UTC).

create table accounts (
  id bigint generated always as identity primary key,
  slug text not null unique,
  name text not null,
  region text,
  payments_mode text not null default 'none' check (payments_mode in ('none', 'sandbox', 'own_key', 'platform')),
  payments_provider text not null default 'sandbox' check (payments_provider in ('sandbox', 'stripe')),
  payments_api_key text,
  payments_api_base text,
  platform_fee_bp integer not null default 0,
  platform_fee_fixed_cents bigint not null default 0,
  hide_powered_by_allowed boolean not null default false,
  created_at timestamptz not null default now()
);

create table api_tokens (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  name text not null,
  -- sha256 of the bearer value; the value itself is never stored.
  token_hash text not null unique,
  capabilities text[] not null default '{}',
  scopes text[] not null default '{}',
  -- null: every event of the account; otherwise the slugs this token may see.
  event_slugs text[],
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index api_tokens_account on api_tokens (account_id);

create table series (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  slug text not null,
  name text not null,
  unique (account_id, slug)
);

create table events (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  slug text not null,
  name text not null,
  series_id bigint references series (id) on delete set null,
  currency text not null,
  currencies text[] not null,
  -- other currency -> event-currency units per unit, kept as text to stay exact
  fx_rates jsonb not null default '{}',
  timezone text not null,
  starts_at timestamptz not null,
  ends_at timestamptz,
  sales_end_at timestamptz,
  payment_expires_at timestamptz,
  tax_mode text not null default 'inclusive' check (tax_mode in ('inclusive', 'exclusive')),
  venue text,
  created_at timestamptz not null default now(),
  unique (account_id, slug)
);

-- One row per capped sellable thing (ticket type, good, session). The write path reserves
-- with a guarded update on `taken`; reports count from order lines, never from here.
create table inventory (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  capacity integer not null check (capacity >= 0),
  taken integer not null default 0 check (taken >= 0)
);
create index inventory_event on inventory (event_id);

create table audiences (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  key text not null,
  name text not null,
  unique (event_id, key)
);

create table portals (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  key text not null,
  name text not null,
  audience_id bigint references audiences (id) on delete set null,
  unique (event_id, key)
);

create table ticket_types (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  key text not null,
  name text not null,
  price_cents bigint not null check (price_cents >= 0),
  -- other currency -> price in that currency's minor units
  prices jsonb not null default '{}',
  capacity integer,
  inventory_id bigint references inventory (id),
  max_per_order integer,
  position integer not null default 0,
  on_sale boolean not null default true,
  archived boolean not null default false,
  audience_id bigint references audiences (id) on delete set null,
  requires_session boolean not null default false,
  tax_rate_bp integer not null default 0,
  -- [{min_quantity, percent_off}]
  group_discounts jsonb not null default '[]',
  unique (event_id, key)
);
create index ticket_types_event on ticket_types (event_id, position, id);

create table goods (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  key text not null,
  name text not null,
  price_cents bigint not null check (price_cents >= 0),
  prices jsonb not null default '{}',
  capacity integer,
  inventory_id bigint references inventory (id),
  position integer not null default 0,
  on_sale boolean not null default true,
  tax_rate_bp integer not null default 0,
  unique (event_id, key)
);

create table ticket_type_includes (
  account_id bigint not null references accounts (id) on delete cascade,
  ticket_type_id bigint not null references ticket_types (id) on delete cascade,
  good_id bigint not null references goods (id) on delete cascade,
  quantity integer not null default 1 check (quantity >= 1),
  primary key (ticket_type_id, good_id)
);

create table sessions (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  key text not null,
  name text not null default '',
  starts_at timestamptz not null,
  ends_at timestamptz,
  capacity integer,
  inventory_id bigint references inventory (id),
  position integer not null default 0,
  on_sale boolean not null default true,
  unique (event_id, key)
);

create table session_ticket_types (
  account_id bigint not null references accounts (id) on delete cascade,
  session_id bigint not null references sessions (id) on delete cascade,
  ticket_type_id bigint not null references ticket_types (id) on delete cascade,
  primary key (session_id, ticket_type_id)
);

create table donations (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  key text not null,
  name text not null,
  position integer not null default 0,
  on_sale boolean not null default true,
  unique (event_id, key)
);

create table discount_codes (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  code text not null,
  percent_off integer,
  amount_off_cents bigint,
  max_uses integer,
  uses integer not null default 0,
  -- null: valid for every ticket type
  ticket_type_ids bigint[],
  valid_until timestamptz,
  unique (event_id, code)
);

-- Questions asked on the browser checkout: once per order, or per attendee.
create table questions (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  key text not null,
  label text not null,
  scope text not null check (scope in ('order', 'attendee')),
  required boolean not null default false,
  position integer not null default 0,
  unique (event_id, key)
);

create table orders (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  ref text not null,
  status text not null check (status in ('pending', 'paid', 'refunded', 'canceled')),
  currency text not null,
  -- event-currency units per order-currency unit, exact decimal
  fx_rate numeric(20, 10) not null default 1,
  subtotal_cents bigint not null,
  discount_cents bigint not null default 0,
  total_cents bigint not null,
  refunded_cents bigint not null default 0,
  name text,
  email text,
  audience_id bigint references audiences (id) on delete set null,
  portal_id bigint references portals (id) on delete set null,
  channel text not null default 'api' check (channel in ('api', 'web', 'import', 'door')),
  -- capability secret behind payment_url and url; rotated by revoke_link
  access_secret text not null,
  -- order QR token for checking in a whole order
  qr_token text not null,
  -- codes redeemed, comma-joined in redemption order ('' for none): the report's code bucket
  codes_key text not null default '',
  answers jsonb not null default '[]',
  item_answers jsonb not null default '[]',
  created_at timestamptz not null,
  paid_at timestamptz,
  canceled_at timestamptz,
  refunded_at timestamptz,
  expires_at timestamptz,
  unique (account_id, ref),
  unique (qr_token),
  unique (access_secret)
);
create index orders_event_created on orders (event_id, created_at desc, id desc);
create index orders_event_paid on orders (event_id, paid_at) where paid_at is not null;
create index orders_pending_expiry on orders (expires_at) where status = 'pending';

create table order_lines (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  order_id bigint not null references orders (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  kind text not null check (kind in ('tickets', 'sessions', 'goods', 'donations')),
  ticket_type_id bigint references ticket_types (id),
  good_id bigint references goods (id),
  session_id bigint references sessions (id),
  donation_id bigint references donations (id),
  inventory_id bigint references inventory (id),
  name text not null,
  quantity integer not null check (quantity >= 1),
  unit_price_cents bigint not null,
  total_cents bigint not null,
  tax_rate_bp integer not null default 0,
  tax_cents bigint not null default 0,
  -- added automatically with a ticket type (zero price)
  included boolean not null default false,
  position integer not null default 0
);
create index order_lines_order on order_lines (order_id, position);
create index order_lines_event on order_lines (event_id, kind);

create table order_discounts (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  order_id bigint not null references orders (id) on delete cascade,
  discount_code_id bigint references discount_codes (id) on delete set null,
  code text not null,
  amount_cents bigint not null,
  position integer not null default 0
);
create index order_discounts_order on order_discounts (order_id, position);

create table tickets (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  order_id bigint not null references orders (id) on delete cascade,
  order_line_id bigint not null references order_lines (id) on delete cascade,
  ticket_type_id bigint not null references ticket_types (id),
  session_id bigint references sessions (id),
  ref text not null,
  attendee_name text,
  qr_token text not null unique,
  status text not null default 'valid' check (status in ('valid', 'voided')),
  position integer not null default 0,
  created_at timestamptz not null,
  unique (account_id, ref)
);
create index tickets_order on tickets (order_id, position);
create index tickets_event on tickets (event_id, ticket_type_id);

create table payments (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  order_id bigint not null references orders (id) on delete cascade,
  rail text not null check (rail in ('card', 'wallet', 'sandbox', 'terminal')),
  provider text not null check (provider in ('sandbox', 'stripe', 'import')),
  status text not null check (status in ('pending', 'succeeded', 'failed', 'canceled')),
  amount_cents bigint not null,
  currency text not null,
  provider_ref text,
  -- null: the provider's cost is not established yet
  fee_cents bigint,
  fee_currency text,
  platform_fee_cents bigint not null default 0,
  -- true when no processor was called (sandbox)
  simulated boolean not null default false,
  created_at timestamptz not null,
  succeeded_at timestamptz
);
create index payments_order on payments (order_id);
create index payments_unpriced on payments (id) where fee_cents is null and status = 'succeeded' and provider = 'stripe';

create table refunds (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  order_id bigint not null references orders (id) on delete cascade,
  payment_id bigint references payments (id),
  amount_cents bigint not null,
  currency text not null,
  status text not null check (status in ('pending', 'succeeded', 'failed')),
  provider_ref text,
  simulated boolean not null default false,
  error text,
  created_at timestamptz not null,
  completed_at timestamptz
);
create index refunds_order on refunds (order_id);
-- At most one refund in flight per order: the intent row is the lock against double refunds.
create unique index refunds_one_pending on refunds (order_id) where status = 'pending';

-- Every state change of an order, written in the same transaction as the change.
create table order_log (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  order_id bigint not null references orders (id) on delete cascade,
  action text not null,
  data jsonb not null default '{}',
  created_at timestamptz not null
);
create index order_log_order on order_log (order_id, id);

create table checkin_lists (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  key text not null,
  name text not null,
  -- null: every ticket type of the event
  ticket_type_ids bigint[],
  checked_in_count integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (event_id, key)
);

create table checkins (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  checkin_list_id bigint not null references checkin_lists (id) on delete cascade,
  ticket_id bigint not null references tickets (id) on delete cascade,
  qr_code_scanned boolean not null default true,
  online boolean not null default true,
  created_at timestamptz not null,
  -- one check-in per ticket and list: two doors scanning at once create exactly one
  unique (checkin_list_id, ticket_id)
);
create index checkins_list_recent on checkins (checkin_list_id, created_at desc, id desc);

create table images (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  content_type text not null,
  bytes bytea not null,
  sha256 text not null,
  source_url text,
  created_at timestamptz not null default now()
);

create table html_templates (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  key text not null,
  name text not null,
  kind text not null check (kind in ('layout', 'component')),
  channel text not null check (channel in ('web', 'email', 'attendee_hub')),
  body text not null,
  created_at timestamptz not null default now(),
  unique (account_id, key)
);

create table themes (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  name text not null,
  is_default boolean not null default false,
  settings jsonb not null default '{}',
  logo_image_id bigint references images (id),
  banner_image_id bigint references images (id),
  background_image_id bigint references images (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index themes_account on themes (account_id, id) where deleted_at is null;
create unique index themes_one_default on themes (account_id) where is_default and deleted_at is null;

create table saved_reports (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  event_id bigint not null references events (id) on delete cascade,
  name text not null,
  query text not null,
  created_at timestamptz not null default now()
);
create index saved_reports_event on saved_reports (event_id, created_at, id);

create table idempotency_keys (
  account_id bigint not null references accounts (id) on delete cascade,
  token_id bigint not null references api_tokens (id) on delete cascade,
  key text not null,
  order_id bigint references orders (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (token_id, key)
);

-- Transactional outbox: written in the same transaction as the change that causes it,
-- dispatched after commit by any instance (SKIP LOCKED), retried with backoff.
create table outbox (
  id bigint generated always as identity primary key,
  account_id bigint references accounts (id) on delete cascade,
  kind text not null,
  payload jsonb not null,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  created_at timestamptz not null default now(),
  sent_at timestamptz
);
create index outbox_due on outbox (next_attempt_at, id) where status = 'pending';

-- Shared fixed-window counters for rate limits, so every instance enforces one budget.
create table rate_limits (
  key text not null,
  window_start timestamptz not null,
  count integer not null default 0,
  primary key (key, window_start)
);
