import type { AppContext } from '../../platform/context.ts';
import type { MessageFilter, OrderStatus } from '../../platform/db/schema.ts';
import type { Job } from '../../platform/jobs/job.ts';
import { iso } from '../../platform/time.ts';
import type { EventRow } from '../events/events.repo.ts';
import { invalidMessage } from './messages.errors.ts';
import {
  claimDueMessages,
  countRecipients,
  firstRecipient,
  insertMessage,
  listMessageRows,
  queueRecipients,
  ticketTypesByKey,
  type MessageRow,
} from './messages.repo.ts';

/** What a message is for, as the API and the console give it (contract section 15). */
export interface MessageInput {
  subject: string;
  body: string;
  to?: { ticket_types?: string[]; status?: OrderStatus | OrderStatus[]; checked_in?: boolean };
  /** RFC 3339; absent or not in the future: now */
  send_at?: string;
}

export interface MessageOut {
  id: number;
  subject: string;
  body: string;
  to: { ticket_types?: string[]; status: OrderStatus[]; checked_in?: boolean };
  send_at: string;
  state: 'scheduled' | 'sending' | 'sent';
  created_by: string;
  created_at: string;
  recipients: number;
  sent: number;
  failed: number;
}

export const SUBJECT_MAX = 200;
export const BODY_MAX = 20_000;
export const ORDER_STATUSES: OrderStatus[] = ['paid', 'pending', 'refunded', 'canceled'];

/**
 * Checks a message and resolves its filter: ticket type keys to the event's ids (an unknown key
 * is named), statuses to a list. Every problem is collected, by field, before anything is written.
 */
export async function checkMessage(
  ctx: AppContext,
  event: EventRow,
  input: MessageInput,
): Promise<{ subject: string; body: string; filter: MessageFilter; sendAt: Date | null }> {
  const fields: Record<string, string[]> = {};
  const say = (path: string, text: string) => (fields[path] ??= []).push(text);
  const subject = input.subject.trim();
  const body = input.body.replace(/\r\n/g, '\n');
  if (!subject) say('subject', 'Write a subject.');
  else if (subject.length > SUBJECT_MAX) say('subject', `At most ${SUBJECT_MAX} characters.`);
  if (!body.trim()) say('body', 'Write the message.');
  else if (body.length > BODY_MAX) say('body', `At most ${BODY_MAX} characters.`);

  const filter: MessageFilter = {};
  const keys = [...new Set(input.to?.ticket_types ?? [])];
  if (keys.length) {
    const found = await ticketTypesByKey(ctx.db, event.id, keys);
    const unknown = keys.filter((k) => !found.some((f) => f.key === k));
    for (const k of unknown) say('to.ticket_types', `Unknown ticket type "${k}" in this event.`);
    filter.ticket_types = keys;
    filter.ticket_type_ids = found.map((f) => f.id).sort((a, b) => a - b);
  }
  const status = input.to?.status;
  if (status !== undefined) {
    const list = [...new Set(Array.isArray(status) ? status : [status])];
    const bad = list.filter((s) => !ORDER_STATUSES.includes(s));
    for (const s of bad) say('to.status', `Unknown order status "${s}": one of ${ORDER_STATUSES.join(', ')}.`);
    if (list.length) filter.status = list;
  }
  if (input.to?.checked_in !== undefined) filter.checked_in = input.to.checked_in;

  let sendAt: Date | null = null;
  if (input.send_at !== undefined && input.send_at !== '') {
    const at = new Date(input.send_at);
    if (Number.isNaN(at.getTime())) say('send_at', 'Not a date and time.');
    else if (at.getTime() > ctx.clock.now().getTime()) sendAt = at;
  }
  if (Object.keys(fields).length) throw invalidMessage(fields);
  return { subject, body, filter, sendAt };
}

/**
 * Writes a message and, unless it waits for its time, queues its mails in the same transaction:
 * a crash leaves either both or neither. Answers the id and the number of recipients (for a
 * scheduled one, how many match now; the count is taken again when it goes).
 */
export async function createMessage(
  ctx: AppContext,
  event: EventRow,
  input: MessageInput,
  actor: string,
): Promise<{ id: number; recipients: number; scheduled: boolean }> {
  const { subject, body, filter, sendAt } = await checkMessage(ctx, event, input);
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const scheduled = sendAt !== null;
    const recipients = scheduled ? await countRecipients(trx, event.id, filter) : 0;
    const { id } = await insertMessage(trx, {
      account_id: event.account_id,
      event_id: event.id,
      subject,
      body,
      recipient_filter: filter,
      send_at: sendAt ?? now,
      state: scheduled ? 'scheduled' : 'sending',
      created_by: actor,
      created_at: now,
      recipients,
    });
    if (scheduled) return { id, recipients, scheduled };
    const queued = await queueRecipients(
      trx,
      { id, account_id: event.account_id, event_id: event.id, recipient_filter: filter },
      now,
    );
    return { id, recipients: queued, scheduled };
  });
}

export function presentMessage(r: MessageRow): MessageOut {
  const f = r.recipient_filter;
  return {
    id: r.id,
    subject: r.subject,
    body: r.body,
    to: {
      ...(f.ticket_types ? { ticket_types: f.ticket_types } : {}),
      status: f.status ?? ['paid'],
      ...(f.checked_in !== undefined ? { checked_in: f.checked_in } : {}),
    },
    send_at: iso(r.send_at),
    state: r.state,
    created_by: r.created_by,
    created_at: iso(r.created_at),
    recipients: r.recipients,
    sent: r.sent_count,
    failed: r.failed_count,
  };
}

/** An event's messages, newest first, with their delivery counts; `after` (the last id of the previous page) pages on. */
export async function listMessages(
  ctx: AppContext,
  event: EventRow,
  opts: { limit?: number; after?: number } = {},
): Promise<{ messages: MessageOut[]; next_after: number | null }> {
  const limit = Math.min(200, Math.max(1, opts.limit ?? 50));
  const rows = await listMessageRows(ctx.db, event.id, {
    limit: limit + 1,
    ...(opts.after !== undefined ? { before: opts.after } : {}),
  });
  const page = rows.slice(0, limit);
  return { messages: page.map(presentMessage), next_after: rows.length > limit ? page.at(-1)!.id : null };
}

/** How many orders a draft would reach and the first of them (the console's preview). */
export async function previewRecipients(ctx: AppContext, event: EventRow, filter: MessageFilter) {
  const [recipients, first] = await Promise.all([
    countRecipients(ctx.db, event.id, filter),
    firstRecipient(ctx.db, event.id, filter),
  ]);
  return { recipients, firstOrderId: first };
}

/**
 * Scheduled messages whose time has come: each is claimed with SKIP LOCKED and queued in the
 * transaction that moves it out of `scheduled`, so it goes once however many instances run this.
 */
export async function sendDueMessages(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const due = await claimDueMessages(trx, now, 20);
    for (const m of due) await queueRecipients(trx, m, now);
    return due.length;
  });
}

export const messagesJob: Job = { name: 'messages', every: 15_000, run: sendDueMessages };
