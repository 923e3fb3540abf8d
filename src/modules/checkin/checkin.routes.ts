import type { FastifyInstance } from 'fastify';

/** Routes of the checkin module (not built yet). */
export async function checkinRoutes(_app: FastifyInstance): Promise<void> {}
