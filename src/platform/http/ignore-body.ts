import type { FastifyInstance } from 'fastify';

/**
 * For routes whose body the spec says is ignored (refund, cancel): inside this scope any body,
 * of any content type, even malformed, is drained and dropped instead of parsed.
 */
export function ignoreBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, payload, done) => {
    payload.on('error', () => done(null, undefined));
    payload.on('end', () => done(null, undefined));
    payload.resume();
  });
}
