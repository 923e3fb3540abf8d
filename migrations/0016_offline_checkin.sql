-- Offline check-in (contract section 9).
--
-- Scans: every scan is a row. A scan of a ticket already admitted to the list, or of a ticket that
-- cannot be admitted, is kept with conflict = true and its reason; the admission is the one row
-- per ticket and list without a conflict (unique), the earliest scan. Uploads are idempotent per
-- device and client_id.
alter table checkins
  add column device text,
  add column client_id text,
  add column conflict boolean not null default false,
  add column reason text check (reason in ('already_checked_in', 'not_checkable')),
  add column uploaded_at timestamptz;
alter table checkins drop constraint checkins_checkin_list_id_ticket_id_key;
create unique index checkins_admission on checkins (checkin_list_id, ticket_id) where not conflict;
create unique index checkins_device_scan on checkins (account_id, device, client_id) where device is not null;
create index checkins_conflicts on checkins (checkin_list_id, created_at desc) where conflict;

-- Sync: a ticket's sync_xid is the transaction that last changed what a scanner knows of it (its
-- status, its name, its order's status, a check-in). A reader takes only rows written by
-- transactions older than every transaction still running (pg_snapshot_xmin), in (sync_xid, id)
-- order, so a change committing late, or out of order, always lands after the reader's cursor:
-- nothing is lost between pages, whatever the commit order.
alter table tickets add column sync_xid xid8 not null default pg_current_xact_id();
create index tickets_sync on tickets (event_id, sync_xid, id);

create function tickets_sync_touch() returns trigger language plpgsql as $$
begin
  new.sync_xid := pg_current_xact_id();
  return new;
end
$$;
create trigger tickets_sync_touch before update of status, attendee_name on tickets
  for each row when (old.status is distinct from new.status or old.attendee_name is distinct from new.attendee_name)
  execute function tickets_sync_touch();

create function tickets_sync_from_order() returns trigger language plpgsql as $$
begin
  update tickets set sync_xid = pg_current_xact_id() where order_id = new.id;
  return null;
end
$$;
create trigger tickets_sync_from_order after update of status on orders
  for each row when (old.status is distinct from new.status)
  execute function tickets_sync_from_order();

create function tickets_sync_from_checkins() returns trigger language plpgsql as $$
begin
  update tickets set sync_xid = pg_current_xact_id() where id in (select ticket_id from new_rows);
  return null;
end
$$;
create trigger tickets_sync_from_checkins after insert on checkins
  referencing new table as new_rows for each statement execute function tickets_sync_from_checkins();
create trigger tickets_sync_from_checkins_update after update on checkins
  referencing new table as new_rows for each statement execute function tickets_sync_from_checkins();
