import { html } from '../http/html.ts';
import type { RecentMail } from './mail-viewer.service.ts';

/** The development mail viewer's page: each message's subject, recipient, text and attachments. */
export function mailViewerPage(mails: RecentMail[]): string {
  return html`<!doctype html>
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
            </html>`.value;
}
