-- Attendees help themselves (contract section 15).
--
-- events.self_service: the event document's `self_service` {edit_until?, transfer, cancel_until?,
-- cancel_fee_percent?}, as given; null when the document names none (no self-service).
alter table events add column self_service jsonb;
-- The document's on-sale `queue` {enabled, admit_per_minute} (section 13), kept as given so that
-- an account file reads back as it was written.
alter table events add column queue jsonb;

-- A ticket's attendee has an email as well as a name. A transferred ticket has a holder: its own
-- page (holder_secret, a capability URL like the order's) and a new QR token; the order's page
-- then shows it as passed on, without its QR.
alter table tickets add column attendee_email text;
alter table tickets add column holder_secret text;
alter table tickets add column transferred_at timestamptz;
create unique index tickets_holder_secret on tickets (holder_secret) where holder_secret is not null;

-- A new QR token is a change the door must learn at the next sync: the old code is refused.
drop trigger tickets_sync_touch on tickets;
create trigger tickets_sync_touch before update of status, attendee_name, qr_token on tickets
  for each row when (old.status is distinct from new.status or old.attendee_name is distinct from new.attendee_name
    or old.qr_token is distinct from new.qr_token)
  execute function tickets_sync_touch();

-- The order log's actions of self-service are order updates for webhooks.
create or replace function webhook_type_of(action text) returns text language sql immutable as $$
  select case action
    when 'created' then 'order.created'
    when 'paid' then 'order.paid'
    when 'reinstated' then 'order.paid'
    when 'buyer_changed' then 'order.updated'
    when 'attendee_changed' then 'order.updated'
    when 'ticket_transferred' then 'order.updated'
    when 'tickets_canceled' then 'order.updated'
    when 'canceled' then 'order.canceled'
    when 'expired' then 'order.canceled'
    when 'refunded' then 'order.refunded'
    when 'late_payment_refunded' then 'order.refunded'
    when 'waiting_list_offered' then 'waiting_list.offered'
  end
$$;
