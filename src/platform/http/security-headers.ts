import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { randomSecret } from '../secrets.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * This response's CSP nonce: a page's own inline `<script>` carries `nonce="<it>"`, and the
     * page's Content-Security-Policy allows scripts with that nonce only. Fresh per request, so a
     * script injected into the page (which cannot know it) does not run.
     */
    readonly cspNonce: string;
  }
}

/** Sources a route adds to the page policy (a payment provider's script and API origins). */
export interface CspSources {
  default?: readonly string[];
  script?: readonly string[];
}

/**
 * Which of a page's own inline scripts may run: those carrying this response's nonce, or those
 * whose text hashes to one of `hashes` (scriptHash). A hash suits a script that is the same for
 * every visitor: the page can then be shared between responses byte for byte.
 */
export type InlineScripts = { nonce: string } | { hashes: readonly string[] };

/** The CSP source allowing exactly this inline script's text (`'sha256-…'`). */
export function scriptHash(code: string): string {
  return `'sha256-${createHash('sha256').update(code, 'utf8').digest('base64')}'`;
}

/**
 * The pages' Content-Security-Policy: inline styles, scripts only from our origin or allowed by
 * this response's nonce or their own hash (no `'unsafe-inline'` for scripts: an injected
 * `<script>` or event handler attribute never runs), no third-party origins, no framing.
 */
export function pageCsp(inline: InlineScripts, extra: CspSources = {}): string {
  const own = 'nonce' in inline ? [`'nonce-${inline.nonce}'`] : inline.hashes;
  return [
    ['default-src', "'self'", ...(extra.default ?? [])].join(' '),
    "img-src 'self' data:",
    "style-src 'self' 'unsafe-inline'",
    ['script-src', "'self'", ...own, ...(extra.script ?? [])].join(' '),
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** Nonces are made when a page first asks for one: API responses never need one. */
const nonces = new WeakMap<object, string>();
function nonceOf(request: object): string {
  let nonce = nonces.get(request);
  // 128 bits from the pool (base64url: CSP's nonce grammar takes '-' and '_'); randomBytes per
  // page was about 6 % of the event page's busy time, one call into the CSPRNG a response
  if (!nonce) nonces.set(request, (nonce = randomSecret(16)));
  return nonce;
}

/** Cache-Control directives that keep a response out of shared caches (or make them ask each time). */
const PRIVATE = /(?:^|,)\s*(?:no-store|private|no-cache)\s*(?:,|$)/i;

/**
 * Headers on every response. Pages get a strict CSP (see pageCsp) and a Referer only to our own
 * origin: capability URLs (/pay/<secret>, /o/<secret>) must never leak through a Referer header
 * to another site. `same-origin` rather than `no-referrer` because under `no-referrer` browsers
 * send `Origin: null` with every form post, and a forged post through a cross-origin redirect
 * says the same (see verifyCsrf).
 */
export function securityHeaders(app: FastifyInstance): void {
  app.decorateRequest('cspNonce', {
    getter(this: object) {
      return nonceOf(this);
    },
  });
  // a callback hook, not an async one: it runs on every response and has nothing to await
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html')) {
      if (!reply.hasHeader('content-security-policy')) {
        reply.header('content-security-policy', pageCsp({ nonce: request.cspNonce }));
        // A page from a shared cache would hand one nonce to many visitors: anyone could read it
        // from their own copy and put it on a script injected for the others. Pages under this
        // policy get `no-store` unless the route already chose no-store, private or no-cache.
        const cache = reply.getHeader('cache-control');
        if (typeof cache !== 'string' || !PRIVATE.test(cache)) reply.header('cache-control', 'no-store');
      }
      reply.header('x-frame-options', 'DENY');
    }
    done(null, payload);
  });
}
