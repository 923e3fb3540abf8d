-- The holds' trigger of 0034 found the inventory rows of the seats concerned twice (once to lock
-- them in id order, once to update them), joining the changed holds with the plan and the types
-- each time. It runs at the end of every statement that takes seats, while that statement still
-- holds the type's row: the rows are now found once, and a statement that touched no seat of a
-- seated type does nothing more.
create or replace function bump_seat_version_of_holds() returns trigger language plpgsql as $$
declare
  ids bigint[];
begin
  select array_agg(distinct t.inventory_id order by t.inventory_id) into ids
    from changed c
    join event_seats s on s.event_id = c.event_id and s.seat_guid = c.seat_guid
    join ticket_types t on t.id = s.ticket_type_id
    where t.inventory_id is not null;
  if ids is null then
    return null;
  end if;
  perform 1 from inventory i where i.id = any(ids) order by i.id for update;
  update inventory i set seat_version = i.seat_version + 1 where i.id = any(ids);
  return null;
end $$;
