import type { FastifyInstance } from 'fastify';
import { ping } from '../db/database.ts';

const healthSchema = {
  hide: true,
  response: {
    200: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
    503: { $ref: 'Error#' },
  },
} as const;

/**
 * /healthz: the process is up and the database answers. /readyz: also not draining or shutting
 * down (a balancer stops sending requests to it).
 */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  let closing = false;
  app.addHook('onClose', async () => {
    closing = true;
  });
  app.get('/healthz', { schema: healthSchema }, async (_req, reply) => {
    try {
      await ping(app.ctx.db);
      return { status: 'ok' };
    } catch {
      return reply.code(503).send({ error: { code: 'unavailable', message: 'database unreachable' } });
    }
  });
  app.get('/readyz', { schema: healthSchema }, async (_req, reply) => {
    if (closing || app.draining.active) return reply.code(503).send({ error: { code: 'unavailable', message: 'shutting down' } });
    try {
      await ping(app.ctx.db);
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ error: { code: 'unavailable', message: 'database unreachable' } });
    }
  });
}
