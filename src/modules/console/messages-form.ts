import type { OrderStatus } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { BODY_MAX, ORDER_STATUSES, SUBJECT_MAX, type MessageInput } from '../messages/messages.service.ts';
import { fromLocalInput } from './catalogue-form.ts';
import type { FieldErrors } from './console-layout.view.ts';
import { t } from './console-lang.ts';

/** The message form as typed: kept as it is to show it again beside its errors. */
export interface MessageDraft {
  subject: string;
  body: string;
  ticket_types: string[];
  /** an order status, or `any` */
  status: string;
  /** '' (either), 'yes' or 'no' */
  checked_in: string;
  when: 'now' | 'later';
  /** a datetime-local value in the event's time zone */
  send_at: string;
}

export const emptyDraft = (): MessageDraft => ({
  subject: '',
  body: '',
  ticket_types: [],
  status: 'paid',
  checked_in: '',
  when: 'now',
  send_at: '',
});

export function readDraft(form: Record<string, string>, ticketTypes: string[]): MessageDraft {
  return {
    subject: form.subject ?? '',
    body: form.body ?? '',
    ticket_types: ticketTypes,
    status: form.status ?? 'paid',
    checked_in: form.checked_in === 'yes' || form.checked_in === 'no' ? form.checked_in : '',
    when: form.when === 'later' ? 'later' : 'now',
    send_at: form.send_at ?? '',
  };
}

/**
 * The draft as the service's input, with the console's own words for the mistakes a person makes
 * in this form (the service checks again and may add its own).
 */
export function draftInput(d: MessageDraft, tz: string): { input: MessageInput; errors: FieldErrors } {
  const m = t();
  const errors: Record<string, string[]> = {};
  if (!d.subject.trim()) errors.subject = [m.msgErrSubject];
  else if (d.subject.trim().length > SUBJECT_MAX) errors.subject = [m.msgErrTooLong(SUBJECT_MAX)];
  if (!d.body.trim()) errors.body = [m.msgErrBody];
  else if (d.body.length > BODY_MAX) errors.body = [m.msgErrTooLong(BODY_MAX)];
  let sendAt: string | undefined;
  if (d.when === 'later') {
    const at = fromLocalInput(d.send_at, tz);
    if (!at) errors.send_at = [m.msgErrSendAt];
    else sendAt = at;
  }
  const status = d.status === 'any' ? ORDER_STATUSES : ORDER_STATUSES.filter((s) => s === d.status);
  const input: MessageInput = {
    subject: d.subject,
    body: d.body,
    to: {
      ...(d.ticket_types.length ? { ticket_types: d.ticket_types } : {}),
      status: (status.length ? status : ['paid']) as OrderStatus[],
      ...(d.checked_in ? { checked_in: d.checked_in === 'yes' } : {}),
    },
    ...(sendAt ? { send_at: sendAt } : {}),
  };
  return { input, errors };
}

/** The service's refusal by the form's field names (`to.ticket_types` is the checkboxes). */
export function formErrors(err: unknown): FieldErrors | null {
  if (!(err instanceof AppError) || err.code !== 'validation_failed' || !err.fields) return null;
  const out: Record<string, string[]> = {};
  for (const [path, msgs] of Object.entries(err.fields)) (out[path.replace(/^to\./, '')] ??= []).push(...msgs);
  return out;
}
