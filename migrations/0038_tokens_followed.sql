-- API tokens follow the change feed like the catalogue: an instance keeps a token's lookup for
-- minutes and forgets it when another transaction revokes (deletes) or changes the token, so a
-- revoked token stops working on every instance within about a poll, not after a fixed time.
-- Tokens change only by insert, delete and the stamp of `last_used_at`, which must not mark the
-- account (a busy token would make every instance reread the account's catalogue each minute):
-- hence a row trigger on the columns that matter (a statement trigger with transition tables
-- cannot name columns). A new token needs no mark: a lookup that found nothing is not kept.
create function admit_token_changed() returns trigger language plpgsql as $$
begin
  -- a token moved to another account (an import) marks both: each may hold it cached
  insert into catalogue_versions (account_id, changed_xid)
  select distinct a, pg_current_xact_id()
  from unnest(case when tg_op = 'UPDATE' then array[old.account_id, new.account_id] else array[old.account_id] end) a
  on conflict (account_id) do update set changed_xid = excluded.changed_xid
    where catalogue_versions.changed_xid <> excluded.changed_xid;
  return null;
end $$;

create trigger api_tokens_changed
  after update of account_id, token_hash, capabilities, scopes, event_slugs or delete on api_tokens
  for each row execute function admit_token_changed();

-- 0037's function with its upsert written once: the statement's transition table (new rows, or
-- old rows for a delete) gives the accounts, and one insert marks them.
create or replace function admit_catalogue_changed() returns trigger language plpgsql as $$
declare ids bigint[];
begin
  if tg_op = 'DELETE' then
    select array_agg(distinct account_id) into ids from old_rows;
  else
    select array_agg(distinct account_id) into ids from new_rows;
  end if;
  insert into catalogue_versions (account_id, changed_xid)
  select id, pg_current_xact_id() from unnest(ids) id
  on conflict (account_id) do update set changed_xid = excluded.changed_xid
    where catalogue_versions.changed_xid <> excluded.changed_xid;
  return null;
end $$;
