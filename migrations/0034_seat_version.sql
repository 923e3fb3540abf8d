-- A seated type's seats change version with every change of who holds them (contract section 12).
--
-- seat_version on a seated type's inventory row counts the statements that changed its seats: a
-- hold taken, released or taken back (order_seats), a seat added, moved, blocked, re-mapped or
-- dropped (event_seats). The triggers keep it, so no writer can forget it. A process that knows the
-- seats as of version v can write a batch of seated orders in one statement guarded by
-- `seat_version = v` on the row it locks: when the guard holds, nothing about those seats changed
-- since it read them, exactly as if it had read them under the lock (order writer, seated-orders.repo).
alter table inventory add column seat_version bigint not null default 0;

-- holds changed: the rows of the types of the seats concerned (in id order, as every writer locks them)
create function bump_seat_version_of_holds() returns trigger language plpgsql as $$
begin
  perform 1 from inventory i
    where i.id in (select t.inventory_id from changed c
                   join event_seats s on s.event_id = c.event_id and s.seat_guid = c.seat_guid
                   join ticket_types t on t.id = s.ticket_type_id)
    order by i.id for update;
  update inventory i set seat_version = i.seat_version + 1
    where i.id in (select t.inventory_id from changed c
                   join event_seats s on s.event_id = c.event_id and s.seat_guid = c.seat_guid
                   join ticket_types t on t.id = s.ticket_type_id);
  return null;
end $$;

create trigger order_seats_version_insert after insert on order_seats
  referencing new table as changed for each statement execute function bump_seat_version_of_holds();
create trigger order_seats_version_update after update on order_seats
  referencing new table as changed for each statement execute function bump_seat_version_of_holds();
create trigger order_seats_version_delete after delete on order_seats
  referencing old table as changed for each statement execute function bump_seat_version_of_holds();

-- the plan's seats changed: every row of the event's types (a seat may have moved between them)
create function bump_seat_version_of_plan() returns trigger language plpgsql as $$
begin
  perform 1 from inventory i
    where i.id in (select t.inventory_id from ticket_types t where t.event_id in (select event_id from changed))
    order by i.id for update;
  update inventory i set seat_version = i.seat_version + 1
    where i.id in (select t.inventory_id from ticket_types t where t.event_id in (select event_id from changed));
  return null;
end $$;

create trigger event_seats_version_insert after insert on event_seats
  referencing new table as changed for each statement execute function bump_seat_version_of_plan();
create trigger event_seats_version_update after update on event_seats
  referencing new table as changed for each statement execute function bump_seat_version_of_plan();
create trigger event_seats_version_delete after delete on event_seats
  referencing old table as changed for each statement execute function bump_seat_version_of_plan();
