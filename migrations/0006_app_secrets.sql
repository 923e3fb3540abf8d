-- Service-wide secrets shared by every instance (e.g. the key that signs CSRF form tokens).
-- Created on first use by whichever instance gets there first.
create table app_secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);
