import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * This response's CSP nonce: a page's own inline `<script>` carries `nonce="<it>"`, and the
     * page's Content-Security-Policy allows scripts with that nonce only. Fresh per request, so a
     * script injected into the page (which cannot know it) does not run.
     */
    cspNonce: string;
  }
}

/** Sources a route adds to the page policy (a payment provider's script and API origins). */
export interface CspSources {
  default?: readonly string[];
  script?: readonly string[];
}

/**
 * The pages' Content-Security-Policy: inline styles, scripts only from our origin or carrying
 * this response's nonce (no `'unsafe-inline'` for scripts: an injected `<script>` or event
 * handler attribute never runs), no third-party origins, no framing.
 */
export function pageCsp(nonce: string, extra: CspSources = {}): string {
  return [
    ['default-src', "'self'", ...(extra.default ?? [])].join(' '),
    "img-src 'self' data:",
    "style-src 'self' 'unsafe-inline'",
    ['script-src', "'self'", `'nonce-${nonce}'`, ...(extra.script ?? [])].join(' '),
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ');
}

const newNonce = () => randomBytes(16).toString('base64');

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
  app.decorateRequest('cspNonce', '');
  // callback hooks, not async ones: they run on every request and have nothing to await
  app.addHook('onRequest', (request, _reply, done) => {
    request.cspNonce = newNonce();
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html')) {
      if (!reply.hasHeader('content-security-policy')) {
        // should a response come without the onRequest hook having run, it gets a nonce here
        reply.header('content-security-policy', pageCsp((request.cspNonce ||= newNonce())));
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
