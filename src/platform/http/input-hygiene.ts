import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

/**
 * Text PostgreSQL cannot store, and bodies a route does not take, are settled here, once, for
 * every route:
 *
 * - In the URL (path and query), a percent-escape that decodes to NUL, to bytes that are not
 *   UTF-8 (`%FF`, an encoded surrogate) or a `%` without two hex digits is rewritten to U+FFFD
 *   (or `%25`) before routing, so the route sees an ordinary unknown value and answers as it
 *   does for any other: 404 for a slug or ref, its default for a report option.
 * - In a parsed body (JSON or form), a string or key holding NUL or a lone UTF-16 surrogate is a
 *   validation error in the route's style (`config.validationError`), naming the field.
 * - A form-encoded body is only read by routes that take forms (buyer pages, `config.html`, and
 *   routes with `config.forms`); elsewhere it is refused like any other non-JSON body.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads `application/x-www-form-urlencoded` bodies (besides JSON). */
    forms?: boolean;
  }
}

const ESCAPE_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const STRAY_PERCENT = /%(?![0-9A-Fa-f]{2})/g;
const decoder = new TextDecoder('utf-8', { fatal: false });

/** The URL with every percent-escape run that is not clean UTF-8 text re-encoded as such. */
export function cleanUrl(url: string): string {
  if (!url.includes('%')) return url;
  return url.replace(STRAY_PERCENT, '%25').replace(ESCAPE_RUN, (run) => {
    const bytes = Buffer.from(run.replaceAll('%', ''), 'hex');
    if (!bytes.includes(0) && isUtf8(bytes)) return run;
    return encodeURIComponent(decoder.decode(bytes).replaceAll('\0', '\uFFFD'));
  });
}

// NUL, or any surrogate (the precise lone-surrogate test below runs only when this matches)
const SUSPECT = /[\0\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unstorable(s: string): string | null {
  if (!SUSPECT.test(s)) return null;
  if (s.includes('\0')) return 'must not contain a NUL character';
  return LONE_SURROGATE.test(s) ? 'must not contain a lone UTF-16 surrogate' : null;
}

/** Field paths (dot-joined, like validation errors) of strings and keys that cannot be stored. */
export function unstorableFields(
  value: unknown,
  path = '',
  out: Record<string, string[]> = {},
  depth = 0,
): Record<string, string[]> {
  if (typeof value === 'string') {
    const why = unstorable(value);
    if (why) (out[path || 'body'] ??= []).push(why);
  } else if (Array.isArray(value)) {
    // bodies deeper than this were already refused by the routes' schemas or the JSON parser
    if (depth < 64) value.forEach((v, i) => unstorableFields(v, path ? `${path}.${i}` : String(i), out, depth + 1));
  } else if (value !== null && typeof value === 'object' && depth < 64) {
    for (const [k, v] of Object.entries(value)) {
      const why = unstorable(k);
      const safeKey = why ? k.replace(/[\0\uD800-\uDFFF]/g, '\uFFFD') : k;
      const at = path ? `${path}.${safeKey}` : safeKey;
      if (why) (out[at] ??= []).push(`name ${why}`);
      unstorableFields(v, at, out, depth + 1);
    }
  }
  return out;
}

function refusal(request: FastifyRequest, message: string, fields?: Record<string, string[]>): AppError {
  const style = request.routeOptions.config.validationError;
  if (style) return new AppError(style.status === 400 ? 'bad_request' : 'unprocessable', style.code, message, { fields });
  return new AppError(
    fields ? 'bad_request' : 'unsupported_media_type',
    fields ? 'bad_request' : 'unsupported_media_type',
    message,
    {
      fields,
    },
  );
}

function isForm(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^\s*application\/x-www-form-urlencoded\s*(;|$)/i.test(type);
}

export function inputHygiene(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const headers = request.headers;
    for (const name in headers) {
      const value = headers[name];
      const values = Array.isArray(value) ? value : [value];
      if (values.some((v) => typeof v === 'string' && v.includes('\0'))) {
        done(new AppError('bad_request', 'bad_request', `The ${name} header contains a NUL character`));
        return;
      }
    }
    done();
  });
  // a callback hook, not an async one: it runs on every request and has nothing to await
  app.addHook('preValidation', (request, _reply, done) => {
    const body = request.body;
    if (body === undefined || body === null) return done();
    const config = request.routeOptions.config;
    if (isForm(request) && !config.html && !config.forms) {
      return done(refusal(request, `Unsupported content type ${String(request.headers['content-type'])}; send application/json`));
    }
    if (typeof body !== 'object' && typeof body !== 'string') return done();
    const fields = unstorableFields(body);
    const names = Object.keys(fields);
    if (names.length > 0) {
      return done(refusal(request, `Invalid body: ${names.map((n) => `${n} ${fields[n]!.join(', ')}`).join('; ')}`, fields));
    }
    done();
  });
}
