import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/http/auth.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { getAccount } from './accounts.service.ts';

export const accountSchema = {
  type: 'object',
  required: ['slug', 'name'],
  additionalProperties: false,
  properties: {
    slug: { type: 'string' },
    name: { type: 'string' },
    region: { type: 'string', description: 'present only where the platform places accounts by region' },
  },
} as const;

export async function accountsRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/account',
    {
      config: { capability: 'events.view' },
      schema: {
        tags: ['account'],
        summary: 'The account the token belongs to',
        response: { 200: accountSchema, ...errorResponses(401, 403, 429, 500) },
      },
    },
    async (request) => getAccount(app.ctx, principalOf(request).accountId),
  );
}
