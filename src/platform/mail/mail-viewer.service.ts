import type { AppContext } from '../context.ts';
import { listRecentMail } from '../jobs/outbox.ts';
import type { OutboxHandler } from '../jobs/outbox-dispatcher.ts';

/** The mail the service would have sent, rendered as the dispatcher would render it (development without SMTP). */

const SHOWN = 50;

/** The latest mail messages; one whose handler cannot render it (any more) is left out. */
export async function recentMails(ctx: AppContext, handlers: Readonly<Record<string, OutboxHandler>>) {
  const rows = await listRecentMail(ctx.db, SHOWN);
  const mails = [];
  for (const r of rows) {
    const h = handlers[r.kind];
    const msg = h?.type === 'mail' ? await h.render(ctx, r.payload).catch(() => null) : null;
    if (msg) {
      // attachments by name, type and size: their bytes are for the SMTP server
      const attachments = (msg.attachments ?? []).map((x) => ({
        filename: x.filename,
        content_type: x.contentType,
        size: typeof x.content === 'string' ? Buffer.byteLength(x.content) : x.content.length,
        inline: Boolean(x.cid),
      }));
      mails.push({ id: r.id, kind: r.kind, status: r.status, created_at: r.created_at, ...msg, attachments });
    }
  }
  return mails;
}

export type RecentMail = Awaited<ReturnType<typeof recentMails>>[number];
