-- A door's first sync of a big event (issue 44's platform bench: 10,000 tickets of one event among
-- 10.7 million) read each ticket's row from the table: an event's tickets are minted as its orders
-- are paid, between other events' tickets, so 10,000 tickets were about 10,000 pages, 600-1,000 ms
-- when they were not in memory. The sync index now holds what the sync reads of a ticket, so a
-- page of 5,000 tickets is a range of the index (about 100 pages, 2 ms); only their orders' rows
-- (status, buyer's name) are read from the table. It replaces tickets_sync, the same key.
create index tickets_sync_cover on tickets (event_id, sync_xid, id)
  include (account_id, order_id, ticket_type_id, status, ref, qr_token, attendee_name, seat_guid);
drop index tickets_sync;
