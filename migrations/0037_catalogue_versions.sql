-- What an instance may keep of an account's catalogue, and for how long. Orders and pages read the
-- event's row and its ticket types, goods, sessions and donations through caches per instance;
-- on a platform of many small events each event is asked for about once a second, so a cache that
-- forgets after one second reads them again for nearly every order (measured: 1.3 reads an order,
-- half of the server's and PostgreSQL's CPU at 64 clients over 1,000 events). Every write to those
-- tables marks its account here with the writing transaction's id; each instance polls for the
-- accounts marked by transactions it has not seen yet (the door sync's rule: transactions at or
-- after the oldest one still running when it last looked, pg_snapshot_xmin) and forgets what it
-- held of them, so it can keep the rest for minutes. One row per account, written only when its
-- catalogue changes (no foreign key: deleting an account deletes its events, which marks it).
create table catalogue_versions (
  account_id bigint primary key,
  changed_xid xid8 not null
);
create index catalogue_versions_xid on catalogue_versions (changed_xid);

create function admit_catalogue_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into catalogue_versions (account_id, changed_xid)
    select distinct account_id, pg_current_xact_id() from old_rows
    on conflict (account_id) do update set changed_xid = excluded.changed_xid
      where catalogue_versions.changed_xid <> excluded.changed_xid;
  else
    insert into catalogue_versions (account_id, changed_xid)
    select distinct account_id, pg_current_xact_id() from new_rows
    on conflict (account_id) do update set changed_xid = excluded.changed_xid
      where catalogue_versions.changed_xid <> excluded.changed_xid;
  end if;
  return null;
end $$;

do $$
declare t text;
begin
  foreach t in array array['events', 'series', 'ticket_types', 'ticket_type_includes', 'session_ticket_types',
                           'goods', 'sessions', 'donations'] loop
    execute format('create trigger %I after insert on %I referencing new table as new_rows
                      for each statement execute function admit_catalogue_changed()', t || '_catalogue_insert', t);
    execute format('create trigger %I after update on %I referencing new table as new_rows
                      for each statement execute function admit_catalogue_changed()', t || '_catalogue_update', t);
    execute format('create trigger %I after delete on %I referencing old table as old_rows
                      for each statement execute function admit_catalogue_changed()', t || '_catalogue_delete', t);
  end loop;
end $$;
