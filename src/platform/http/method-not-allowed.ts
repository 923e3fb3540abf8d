import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';
import { sendError } from './errors.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export type SeenRoutes = Map<string, Set<string>>;

/** Call on the root instance before any route is registered: remembers the API routes. */
export function watchRoutes(app: FastifyInstance): SeenRoutes {
  const seen: SeenRoutes = new Map();
  app.addHook('onRoute', (opts) => {
    if (!(opts.url.startsWith('/api/') || opts.url.startsWith('/:account'))) return;
    const set = seen.get(opts.url) ?? new Set<string>();
    for (const m of Array.isArray(opts.method) ? opts.method : [opts.method]) set.add(String(m));
    seen.set(opts.url, set);
  });
  return seen;
}

/**
 * Fastify answers 404 for a known path with an unknown method. Called after every route is
 * registered, this adds a 405 (with Allow) for the other methods on each API path.
 */
export function addMethodNotAllowed(app: FastifyInstance, seen: SeenRoutes): void {
  for (const [url, methods] of [...seen]) {
    const missing = METHODS.filter((m) => !methods.has(m));
    if (missing.length === 0) continue;
    const allow = [...methods].filter((m) => m !== 'HEAD').join(', ');
    app.route({
      method: missing,
      url,
      schema: { hide: true },
      handler: async (request, reply) => {
        void reply.header('allow', allow);
        return sendError(
          reply,
          new AppError('method_not_allowed', 'method_not_allowed', `${request.method} is not allowed here; use ${allow}`),
        );
      },
    });
  }
}
