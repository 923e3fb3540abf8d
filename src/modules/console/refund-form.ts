import type { RefundAsk } from '../refunds/refund-order.service.ts';
import { parseMoney } from './catalogue-form.ts';
import type { RefundForm, RefundScope } from './console.refund.view.ts';

/**
 * The refund form read into what the refunds service is asked, or every problem with it at once
 * (each beside its field). What the service alone can know (the amount beyond what is left, a
 * ticket no longer valid) it answers the same way.
 */
export function readRefundForm(
  form: Record<string, string>,
  tickets: string[],
  currency: string,
): { form: RefundForm; ask: RefundAsk; errors?: Record<string, string[]> } {
  const scope: RefundScope = form.scope === 'tickets' || form.scope === 'amount' ? form.scope : 'all';
  const read: RefundForm = {
    scope,
    tickets: tickets.map((t) => t.trim()).filter(Boolean),
    amount: (form.amount ?? '').trim(),
    reason: (form.reason ?? '').trim(),
  };
  const errors: Record<string, string[]> = {};
  const cents = read.amount ? parseMoney(read.amount, currency) : null;
  if (read.amount && cents === null) errors.amount = ['Enter an amount such as 12.50'];
  else if (cents === 0) errors.amount = ['Enter an amount above zero'];
  if (scope === 'tickets' && read.tickets.length === 0) errors.tickets = ['Choose at least one ticket'];
  if (scope === 'amount' && !read.amount) errors.amount = ['Enter the amount to refund'];
  // money moves: a choice that says two things is asked again, never guessed
  if (scope === 'all' && read.amount)
    errors.amount = [
      'To refund part of the balance, choose “An amount only” or “Chosen tickets”; to refund everything, leave this empty',
    ];
  if (scope === 'amount' && read.tickets.length)
    errors.tickets = ['Tickets become void only with “Chosen tickets”; untick them to refund an amount only'];
  if (read.reason.length > 500) errors.reason = ['Keep the reason under 500 characters'];
  const ask: RefundAsk = { ...(read.reason ? { reason: read.reason } : {}) };
  if (scope === 'tickets') ask.ticket_refs = read.tickets;
  if (scope !== 'all' && cents !== null) ask.amount_cents = cents;
  return Object.keys(errors).length ? { form: read, ask, errors } : { form: read, ask };
}
