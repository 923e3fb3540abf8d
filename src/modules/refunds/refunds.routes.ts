import type { FastifyInstance } from 'fastify';

/** Routes of the refunds module (not built yet). */
export async function refundsRoutes(_app: FastifyInstance): Promise<void> {}
