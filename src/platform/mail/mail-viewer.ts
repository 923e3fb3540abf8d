import type { FastifyInstance } from 'fastify';

/** Dev mail viewer at /_mail (not built yet). */
export async function mailViewerRoutes(_app: FastifyInstance): Promise<void> {}
