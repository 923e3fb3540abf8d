import type { FastifyInstance } from 'fastify';

/**
 * Headers on every response. Pages get a strict CSP (inline styles only, no third-party origins,
 * no framing) and a Referer only to our own origin: capability URLs (/pay/<secret>, /o/<secret>)
 * must never leak through a Referer header to another site. `same-origin` rather than
 * `no-referrer` because under `no-referrer` browsers send `Origin: null` with every form post,
 * and a forged post through a cross-origin redirect says the same (see verifyCsrf).
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self' 'unsafe-inline'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

export function securityHeaders(app: FastifyInstance): void {
  // a callback hook, not an async one: it runs on every response and has nothing to await
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html')) {
      if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', PAGE_CSP);
      reply.header('x-frame-options', 'DENY');
    }
    done(null, payload);
  });
}
