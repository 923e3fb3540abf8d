import type { FastifyInstance } from 'fastify';

/** Routes of the orders module (not built yet). */
export async function ordersRoutes(_app: FastifyInstance): Promise<void> {}
