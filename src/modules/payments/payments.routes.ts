import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/http/auth.ts';
import { ignoreBodies } from '../../platform/http/ignore-body.ts';
import { errorResponses, orderShape, refParams } from '../orders/orders.schemas.ts';
import { cancelOrder } from './cancel-order.service.ts';

/** Machine API routes of payments: canceling a pending order (voiding a card-present payment first). */
export async function paymentsRoutes(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    ignoreBodies(scope);
    scope.post<{ Params: { ref: string } }>(
      '/orders/:ref/cancel',
      {
        config: { capability: 'orders.manage' },
        schema: {
          tags: ['orders'],
          summary: 'Cancel a pending order (stock released); any body is ignored',
          params: refParams,
          response: { 200: orderShape, ...errorResponses(401, 403, 404, 422, 429, 500, 502) },
        },
      },
      async (request) => cancelOrder(app.ctx, principalOf(request), request.params.ref),
    );
  });
}
