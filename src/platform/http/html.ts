import type { AppContext } from '../context.ts';
import type { AppError } from '../errors.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Tagged template that escapes every interpolation unless it is already `SafeHtml`. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += renderValue(v) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

function renderValue(v: unknown): string {
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(renderValue).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(v);
}

export function raw(value: string): SafeHtml {
  return new SafeHtml(value);
}

/** A minimal, self-contained error page for buyer-facing routes. */
export function renderErrorPage(_ctx: AppContext, err: AppError, requestId: string): string {
  const title =
    err.kind === 'not_found' ? 'Page not found' : err.kind === 'internal' ? 'Something went wrong' : 'That did not work';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>${title}</title>
        <style>
          body {
            font-family: system-ui, sans-serif;
            max-width: 40rem;
            margin: 3rem auto;
            padding: 0 1rem;
            color: #1a1a1a;
          }
        </style>
      </head>
      <body>
        <main>
          <h1>${title}</h1>
          <p>${err.message}</p>
          ${err.kind === 'internal' ? html`<p><small>Reference: ${requestId}</small></p>` : ''}
        </main>
      </body>
    </html>`.value;
}
