import type { FastifyInstance } from 'fastify';
import type { OutboxHandler } from '../jobs/outbox-dispatcher.ts';
import { recentMails } from './mail-viewer.service.ts';
import { mailViewerPage } from './mail-viewer.view.ts';

/**
 * /_mail: the mail the service would have sent, for development without SMTP_URL. It shows
 * reset and invitation links, so it is served only where the developer alone can reach it: a
 * loopback listener outside production without SMTP, or when ADMIT_DEV_MAIL=1 says so. The
 * outbox's message kinds come from the composition (src/outbox-handlers.ts).
 */
export async function mailViewerRoutes(
  app: FastifyInstance,
  opts: { handlers: Readonly<Record<string, OutboxHandler>> },
): Promise<void> {
  const { config } = app.ctx;
  if (!config.devMail) return;
  app.get(
    '/_mail',
    {
      config: { html: true },
      schema: { hide: true, querystring: { type: 'object', properties: { format: { type: 'string' } } }, response: { 200: {} } },
    },
    async (request, reply) => {
      const mails = await recentMails(app.ctx, opts.handlers);
      if ((request.query as { format?: string }).format === 'json') return reply.type('application/json').send({ mails });
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(mailViewerPage(mails));
    },
  );
}
