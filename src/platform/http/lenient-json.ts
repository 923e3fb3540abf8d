import type { FastifyInstance } from 'fastify';

/**
 * Inside this scope, `Content-Type: application/json` with an empty body reads as no body
 * (scanning apps and HTTP clients often send the header on bodiless POST and DELETE) instead
 * of being refused. Non-empty bodies go through Fastify's own safe JSON parser.
 */
export function emptyJsonIsNoBody(scope: FastifyInstance): void {
  const json = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (String(body).trim() === '') return done(null, undefined);
    return json(request, body as string, done);
  });
}
