-- Wallet pass keys (contract section 15): per account, one row per platform. What identifies the
-- issuer (Apple's pass type and team, Google's issuer and service account) is plain; the
-- certificates and private keys are one sealed blob (AES-256-GCM, platform/sealed-box.ts) that is
-- read only to sign a pass: never shown in the console, never exported.
create table wallet_keys (
  account_id bigint not null references accounts (id) on delete cascade,
  platform text not null check (platform in ('apple', 'google')),
  identity jsonb not null,
  sealed text not null,
  uploaded_at timestamptz not null default now(),
  primary key (account_id, platform)
);
