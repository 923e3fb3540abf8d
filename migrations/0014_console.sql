-- The organiser console (contract section 7): people, their roles per account, sessions in the
-- database (any instance serves any request), invitations and password resets by mail.
create table users (
  id bigint generated always as identity primary key,
  email text not null,
  name text not null default '',
  -- scrypt$N$r$p$salt$hash (node:crypto)
  password_hash text,
  -- TOTP second factor (base32); pending until the first code confirms it
  totp_secret text,
  totp_enabled boolean not null default false,
  created_at timestamptz not null default now(),
  password_changed_at timestamptz
);
create unique index users_email on users (lower(email));

create table memberships (
  user_id bigint not null references users (id) on delete cascade,
  account_id bigint not null references accounts (id) on delete cascade,
  role text not null check (role in ('owner', 'manager', 'door', 'viewer')),
  created_at timestamptz not null default now(),
  primary key (account_id, user_id)
);
create index memberships_user on memberships (user_id);

create table console_sessions (
  -- sha256 of the cookie value: a database leak does not hand out sessions
  id text primary key,
  user_id bigint not null references users (id) on delete cascade,
  -- password checked, second factor still to come
  pending_totp boolean not null default false,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index console_sessions_user on console_sessions (user_id);
create index console_sessions_expires on console_sessions (expires_at);

create table invitations (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'manager', 'door', 'viewer')),
  token_hash text not null unique,
  invited_by bigint references users (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz
);
create index invitations_account on invitations (account_id);

create table password_resets (
  token_hash text primary key,
  user_id bigint not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
