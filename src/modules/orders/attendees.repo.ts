import type { Db } from '../../platform/db/database.ts';
import { indexedSecret, randomSecret } from '../../platform/secrets.ts';

/**
 * A ticket's attendee and holder: named by the buyer or staff, passed on by a transfer. The
 * orders module owns `tickets`; these are its writes of who a ticket is for.
 */

export interface AttendeeTicket {
  id: number;
  ref: string;
  status: 'valid' | 'voided';
  attendee_name: string | null;
  attendee_email: string | null;
  transferred: boolean;
}

/** One ticket of the order, locked for the change. */
export async function lockOrderTicket(trx: Db, orderId: number, ref: string): Promise<AttendeeTicket | null> {
  const t = await trx
    .selectFrom('tickets')
    .select(['id', 'ref', 'status', 'attendee_name', 'attendee_email', 'holder_secret'])
    .where('order_id', '=', orderId)
    .where('ref', '=', ref)
    .forUpdate()
    .executeTakeFirst();
  if (!t) return null;
  return {
    id: Number(t.id),
    ref: t.ref,
    status: t.status,
    attendee_name: t.attendee_name,
    attendee_email: t.attendee_email,
    transferred: t.holder_secret !== null,
  };
}

export async function setAttendee(trx: Db, ticketId: number, name: string | null, email: string | null): Promise<void> {
  await trx.updateTable('tickets').set({ attendee_name: name, attendee_email: email }).where('id', '=', ticketId).execute();
}

/**
 * Passes a ticket on: a new QR token (the old one stops admitting at once, and at the door's
 * next sync: the sync trigger watches qr_token), the new holder's name and email, and a page of
 * their own. Passing it on again replaces that page too.
 */
export async function passOn(trx: Db, ticketId: number, name: string, email: string, at: Date): Promise<string> {
  const holderSecret = randomSecret();
  await trx
    .updateTable('tickets')
    .set({
      qr_token: indexedSecret(),
      attendee_name: name,
      attendee_email: email,
      holder_secret: holderSecret,
      transferred_at: at,
    })
    .where('id', '=', ticketId)
    .execute();
  return holderSecret;
}

/** The ticket behind a holder's page, and its order. */
export async function ticketOfHolder(db: Db, holderSecret: string) {
  return db.selectFrom('tickets').select(['id', 'order_id', 'ref']).where('holder_secret', '=', holderSecret).executeTakeFirst();
}
