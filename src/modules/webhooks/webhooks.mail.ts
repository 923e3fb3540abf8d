import type { AppContext } from '../../platform/context.ts';
import { escapeHtml } from '../../platform/http/html.ts';
import type { MailMessage } from '../../platform/mail/mailer.ts';

/** To the account's owners: an endpoint was disabled after five days of failures. */
export async function renderWebhookDisabledMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const ep = await ctx.db
    .selectFrom('webhook_endpoints as e')
    .innerJoin('accounts as a', 'a.id', 'e.account_id')
    .select(['e.url', 'e.account_id', 'a.name', 'a.slug'])
    .where('e.id', '=', Number(payload.endpoint_id))
    .executeTakeFirst();
  if (!ep) return null;
  const owners = await ctx.db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('u.email')
    .where('m.account_id', '=', ep.account_id)
    .where('m.role', '=', 'owner')
    .execute();
  if (!owners.length) return null;
  const lines = [
    `Every delivery to the webhook endpoint ${ep.url} of ${ep.name} has failed for five days, so admit stopped sending to it.`,
    'Nothing is lost: its deliveries wait. Fix the receiver, enable the endpoint again, and redeliver what failed.',
  ];
  const url = `${ctx.config.baseUrl}/console/a/${ep.slug}/webhooks`;
  return {
    to: owners.map((o) => o.email).join(', '),
    subject: `Webhook endpoint disabled: ${ep.url}`,
    text: `${lines.join('\n\n')}\n\n${url}\n`,
    html: `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;max-width:36rem;margin:auto">
${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}<p><a href="${escapeHtml(url)}">Open the webhooks page</a></p></body></html>`,
  };
}
