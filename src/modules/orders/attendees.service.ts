import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { enqueue } from '../../platform/jobs/outbox.ts';
import { lockOrderTicket, passOn, setAttendee } from './attendees.repo.ts';
import { logOrder } from './order-state.repo.ts';
import { isEmail } from './orders.service.ts';
import { selfServiceRights, type SelfServiceRights } from './self-service.ts';

/**
 * Naming a ticket's attendee and passing a ticket on, for the buyer on the order page (within the
 * event's self-service rules) and for staff in the console (any time before the ticket is void).
 * Each runs under the order's row lock: two tabs transferring the same ticket at once make one
 * holder, the second sees the first's result.
 */

export type Actor = { kind: 'buyer' } | { kind: 'staff'; email: string };

export interface OrderRef {
  id: number;
  account_id: number;
}

export interface AttendeeInput {
  name: string;
  email: string;
}

const closed = (what: string) => new AppError('unprocessable', 'self_service_closed', what);

type OrderRights = SelfServiceRights & { status: string };

/** The order's status and what its buyer may still do; with `lock`, under the order's row lock. */
async function orderRights(db: Db, orderId: number, now: Date, lock: boolean): Promise<OrderRights> {
  const query = db
    .selectFrom('orders as o')
    .innerJoin('events as e', 'e.id', 'o.event_id')
    .select(['o.status', 'e.starts_at', 'e.self_service'])
    .where('o.id', '=', orderId);
  const o = await (lock ? query.forUpdate('o') : query).executeTakeFirstOrThrow();
  return { ...selfServiceRights(o.self_service, { status: o.status, event_starts_at: o.starts_at }, now), status: o.status };
}

/** The order locked (in the caller's transaction), with what its buyer may still do. */
export const lockOrderRights = (trx: Db, orderId: number, now: Date) => orderRights(trx, orderId, now, true);

/**
 * The same without the lock: for a check whose writes come later under a lock of their own that
 * checks again what they depend on (a refund: the order's status, its balance, the tickets).
 */
export const readOrderRights = (db: Db, orderId: number, now: Date) => orderRights(db, orderId, now, false);

function checkInput(input: AttendeeInput, emailRequired: boolean): AttendeeInput {
  const name = input.name.trim();
  const email = input.email.trim();
  const fields: Record<string, string[]> = {};
  if (!name || name.length > 200) fields.name = ['Enter a name of up to 200 characters'];
  if (email ? !isEmail(email) : emailRequired) fields.email = ['Enter an email address'];
  if (Object.keys(fields).length) throw new AppError('unprocessable', 'invalid_attendee', 'Check the name and email', { fields });
  return { name, email };
}

const actorOf = (by: Actor) => (by.kind === 'buyer' ? 'buyer' : by.email);

/** Names a valid ticket's attendee (a transferred one is its holder's: only staff rename it). */
export async function renameAttendee(
  ctx: AppContext,
  order: OrderRef,
  ref: string,
  input: AttendeeInput,
  by: Actor,
): Promise<void> {
  const given = checkInput(input, false);
  await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    const rights = await lockOrderRights(trx, order.id, now);
    if (by.kind === 'buyer' && !rights.edit) throw closed('Attendees can no longer be named on this order');
    const t = await lockOrderTicket(trx, order.id, ref);
    if (!t) throw notFound('No such ticket on this order');
    if (t.status !== 'valid') throw closed('This ticket is no longer valid');
    if (t.transferred && by.kind === 'buyer') throw closed('This ticket was passed on: its holder has it now');
    if (t.attendee_name === given.name && (t.attendee_email ?? '') === given.email) return;
    await setAttendee(trx, t.id, given.name, given.email || null);
    await logOrder(trx, order, 'attendee_changed', now, {
      ticket: t.ref,
      from: t.attendee_name,
      to: given.name,
      by: actorOf(by),
    });
  });
}

/**
 * Passes a valid ticket to someone else: a new QR code (the old one is refused at once, and by
 * the door after its next sync), their own page, and a mail to them with it.
 */
export async function transferTicket(
  ctx: AppContext,
  order: OrderRef,
  ref: string,
  input: AttendeeInput,
  by: Actor,
): Promise<void> {
  const given = checkInput(input, true);
  await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    const rights = await lockOrderRights(trx, order.id, now);
    if (rights.status !== 'paid') throw closed('Only the tickets of a paid order can be passed on');
    if (by.kind === 'buyer' && !rights.transfer) throw closed('Tickets of this event cannot be passed on here');
    const t = await lockOrderTicket(trx, order.id, ref);
    if (!t) throw notFound('No such ticket on this order');
    if (t.status !== 'valid') throw closed('This ticket is no longer valid');
    await passOn(trx, t.id, given.name, given.email, now);
    await logOrder(trx, order, 'ticket_transferred', now, {
      ticket: t.ref,
      to: given.name,
      to_email: given.email,
      by: actorOf(by),
    });
    await enqueue(trx, { accountId: order.account_id, kind: 'mail.ticket_transferred', payload: { ticket_id: t.id } });
  });
}
