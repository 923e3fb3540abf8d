import type { AppContext } from '../../platform/context.ts';
import type { MailMessage } from '../../platform/mail/mailer.ts';
import { negotiate } from '../i18n/i18n.ts';
import { buyerMailHtml } from '../orders/orders.mail.ts';
import { entryForMail } from './waitlist.repo.ts';

/** Where a person leaves the list: a page whose button posts the removal (a link alone changes nothing). */
export function leaveUrl(ctx: AppContext, secret: string): string {
  return `${ctx.config.baseUrl}/waiting-list/${secret}`;
}

async function load(ctx: AppContext, payload: Record<string, unknown>) {
  const entry = await entryForMail(ctx.db, Number(payload.entry_id));
  if (!entry) return null;
  const loc = negotiate({ choice: entry.locale, fallback: entry.event_locale });
  return { entry, loc, from: `${entry.event_name} (${entry.account_name})` };
}

/** The confirmation of a place on the list, with the link to leave it. */
export async function renderWaitlistJoinedMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const got = await load(ctx, payload);
  if (!got || got.entry.status !== 'waiting') return null;
  const { entry, loc, from } = got;
  const { m } = loc;
  const url = leaveUrl(ctx, entry.leave_secret);
  const lines = [m.waitlistJoinedLead(entry.quantity, entry.type_name, entry.event_name)];
  return {
    to: entry.email,
    fromName: from,
    subject: m.waitlistJoinedSubject(entry.event_name),
    text: `${lines.join('\n\n')}\n\n${m.waitlistLeaveLine(url)}\n`,
    html: await buyerMailHtml(ctx, entry.account_id, loc, m.waitlistJoinedTitle, lines, {
      href: url,
      text: m.waitlistLeaveButton,
    }),
  };
}

/** The offer: the units reserved on a pending order, its pay link and until when it holds. */
export async function renderWaitlistOfferMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const got = await load(ctx, payload);
  // sent only while the offer stands: a removed entry or an ended order mails nothing
  if (!got || got.entry.status !== 'offered' || got.entry.order_status !== 'pending' || !got.entry.order_secret) return null;
  const { entry, loc, from } = got;
  const { m } = loc;
  const url = `${ctx.config.baseUrl}/pay/${entry.order_secret}`;
  const lines = [
    m.waitlistOfferLead(entry.quantity, entry.type_name, entry.event_name, loc.dateTime(entry.event_starts_at, entry.timezone)),
    m.amountDue(loc.money(Number(entry.order_total_cents), entry.order_currency!)),
    ...(entry.order_expires_at ? [m.waitlistOfferUntil(loc.dateTime(entry.order_expires_at, entry.timezone))] : []),
    m.keepPayLinkPrivate,
  ];
  return {
    to: entry.email,
    fromName: from,
    subject: m.waitlistOfferSubject(entry.event_name),
    text: `${lines.join('\n\n')}\n\n${m.payHere(url)}\n`,
    html: await buyerMailHtml(ctx, entry.account_id, loc, m.waitlistOfferTitle(entry.event_name), lines, {
      href: url,
      text: m.payNow,
    }),
  };
}
