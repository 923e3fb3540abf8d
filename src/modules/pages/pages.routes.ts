import type { FastifyInstance } from 'fastify';

/** Routes of the pages module (not built yet). */
export async function pagesRoutes(_app: FastifyInstance): Promise<void> {}
