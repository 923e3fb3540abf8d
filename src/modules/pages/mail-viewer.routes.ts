import type { FastifyInstance } from 'fastify';
import { html } from '../../platform/http/html.ts';
import { outboxHandlers } from '../outbox-handlers.ts';

/**
 * /_mail: the mail the service would have sent, for development without SMTP_URL. It shows
 * reset and invitation links, so it is served only where the developer alone can reach it: a
 * loopback listener outside production without SMTP, or when ADMIT_DEV_MAIL=1 says so.
 */
export async function mailViewerRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.ctx;
  if (!config.devMail) return;
  app.get(
    '/_mail',
    {
      config: { html: true },
      schema: { hide: true, querystring: { type: 'object', properties: { format: { type: 'string' } } }, response: { 200: {} } },
    },
    async (request, reply) => {
      const rows = await app.ctx.db
        .selectFrom('outbox')
        .select(['id', 'kind', 'payload', 'status', 'created_at'])
        .where('kind', 'like', 'mail.%')
        .orderBy('id', 'desc')
        .limit(50)
        .execute();
      const mails = [];
      for (const r of rows) {
        const h = outboxHandlers[r.kind];
        const msg = h?.type === 'mail' ? await h.render(app.ctx, r.payload).catch(() => null) : null;
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
      if ((request.query as { format?: string }).format === 'json') return reply.type('application/json').send({ mails });
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(
          html`<!doctype html>
            <html lang="en">
              <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <title>Outbox mail</title>
                <style>
                  body {
                    font-family: system-ui, sans-serif;
                    max-width: 50rem;
                    margin: 2rem auto;
                    padding: 0 1rem;
                  }
                  article {
                    border: 1px solid #ccc;
                    border-radius: 8px;
                    padding: 1rem;
                    margin: 1rem 0;
                  }
                  pre {
                    white-space: pre-wrap;
                  }
                </style>
              </head>
              <body>
                <main>
                  <h1>Outbox mail (development)</h1>
                  <p>${mails.length ? '' : 'No mail yet.'}</p>
                  ${mails.map(
                    (m) =>
                      html`<article>
                        <h2>${m.subject}</h2>
                        <p>To ${m.to} · ${m.kind} · ${m.status}</p>
                        <pre>${m.text}</pre>
                        ${
                          m.attachments.length
                            ? html`<p>
                                Attached:
                                ${m.attachments.map((x, i) => html`${i ? ', ' : ''}${x.filename} (${x.content_type}, ${x.size} bytes${x.inline ? ', inline' : ''})`)}
                              </p>`
                            : ''
                        }
                      </article>`,
                  )}
                </main>
              </body>
            </html>`.value,
        );
    },
  );
}
