import type { FastifyInstance } from 'fastify';

/** Routes of the themes module (not built yet). */
export async function themesRoutes(_app: FastifyInstance): Promise<void> {}
