import type { FastifyInstance } from 'fastify';

/** Routes of the reports module (not built yet). */
export async function reportsRoutes(_app: FastifyInstance): Promise<void> {}
