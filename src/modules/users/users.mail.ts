import type { AppContext } from '../../platform/context.ts';
import { escapeHtml } from '../../platform/http/html.ts';
import type { MailMessage } from '../../platform/mail/mailer.ts';

function layout(title: string, paragraphs: string[], link: { href: string; text: string }): string {
  return `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#1b1b1f;max-width:36rem;margin:auto;padding:1rem">
<h1 style="font-size:1.3rem">${escapeHtml(title)}</h1>
${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
<p><a href="${escapeHtml(link.href)}" style="display:inline-block;background:#2d4fd6;color:#fff;padding:.6rem 1rem;border-radius:6px;text-decoration:none">${escapeHtml(link.text)}</a></p>
<p style="color:#555;font-size:.875rem">If the button does not work, open this address: ${escapeHtml(link.href)}</p>
</body></html>`;
}

/** "You are invited to <account> as <role>", with the link to accept (valid 7 days). */
export async function renderInvitationMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const inv = await ctx.db
    .selectFrom('invitations as i')
    .innerJoin('accounts as a', 'a.id', 'i.account_id')
    .leftJoin('users as u', 'u.id', 'i.invited_by')
    .select(['i.email', 'i.role', 'i.accepted_at', 'a.name as account', 'u.name as inviter', 'u.email as inviter_email'])
    .where('i.id', '=', Number(payload.invitation_id))
    .executeTakeFirst();
  if (!inv || inv.accepted_at) return null;
  const url = `${ctx.config.baseUrl}/console/invite/${String(payload.token)}`;
  const who = inv.inviter || inv.inviter_email || 'Someone';
  const lines = [
    `${who} invited you to help run ${inv.account} on admit, as ${inv.role}.`,
    'Open the link to set your password and join. It works for 7 days.',
  ];
  return {
    to: inv.email,
    subject: `Join ${inv.account} on admit`,
    text: `${lines.join('\n\n')}\n\n${url}\n`,
    html: layout(`Join ${inv.account}`, lines, { href: url, text: 'Accept the invitation' }),
  };
}

export async function renderPasswordResetMail(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null> {
  const user = await ctx.db.selectFrom('users').select(['email']).where('id', '=', Number(payload.user_id)).executeTakeFirst();
  if (!user) return null;
  const url = `${ctx.config.baseUrl}/console/reset/${String(payload.token)}`;
  const lines = [
    'Someone (we hope you) asked to reset the password of your admit console account.',
    'Open the link within an hour to choose a new password. If it was not you, ignore this mail: nothing changes.',
  ];
  return {
    to: user.email,
    subject: 'Reset your admit password',
    text: `${lines.join('\n\n')}\n\n${url}\n`,
    html: layout('Reset your password', lines, { href: url, text: 'Choose a new password' }),
  };
}
