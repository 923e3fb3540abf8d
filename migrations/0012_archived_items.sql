-- Event configuration is edited as a document (contract section 6): an item left out of the
-- document is deleted when nothing refers to it, else archived. Ticket types had `archived`;
-- the other kinds get `archived_at`. Archived items are kept for the orders, check-ins and
-- reports that name them, are left out of the configuration document, and are not sold
-- (goods, sessions and donations are also taken off sale when archived).
alter table goods add column archived_at timestamptz;
alter table sessions add column archived_at timestamptz;
alter table donations add column archived_at timestamptz;
alter table audiences add column archived_at timestamptz;
alter table portals add column archived_at timestamptz;
alter table checkin_lists add column archived_at timestamptz;
