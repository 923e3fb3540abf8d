import type { FastifyInstance } from 'fastify';
import { ignoreBodies } from '../../platform/http/ignore-body.ts';
import { actorOf } from '../../platform/http/auth.ts';
import { principalOf } from '../../platform/http/auth.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { loadVisibleOrder } from '../orders/orders.service.ts';
import { refParams } from '../orders/orders.schemas.ts';
import { refundOrder } from './refund-order.service.ts';

export async function refundsRoutes(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    ignoreBodies(scope);
    scope.post<{ Params: { ref: string } }>(
      '/orders/:ref/refund',
      {
        config: { capability: 'refund' },
        schema: {
          tags: ['orders'],
          summary: 'Refund the whole remaining balance through the order’s own payment rail; any body is ignored',
          params: refParams,
          response: {
            200: {
              type: 'object',
              additionalProperties: false,
              properties: {
                refunded_cents: { type: 'integer', description: 'present when refunded now' },
                already: { type: 'boolean', description: 'true when the order was already refunded' },
              },
            },
            ...errorResponses(401, 403, 404, 409, 422, 429, 500, 502, 503),
          },
        },
      },
      async (request) => {
        const p = principalOf(request);
        const order = await loadVisibleOrder(app.ctx, p, request.params.ref);
        return refundOrder(app.ctx, { ...order, by: actorOf(p) });
      },
    );
  });
}
