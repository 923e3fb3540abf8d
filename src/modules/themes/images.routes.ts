import type { FastifyInstance } from 'fastify';
import { notFound } from '../../platform/errors.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { imageForUrl } from './themes.service.ts';

/**
 * Public image serving for theme images, at /_img/{id}/{sha256 prefix}. The hash in the path
 * makes the URL unguessable from the id alone and lets the response be cached forever.
 * Register in publicRoutes (no token: buyers' browsers load these).
 */
export async function imagesRoutes(app: FastifyInstance): Promise<void> {
  app.get('/_img/:id/:hash', {
    schema: {
      tags: ['themes'],
      summary: 'A stored theme image',
      params: {
        type: 'object',
        required: ['id', 'hash'],
        properties: { id: { type: 'string', maxLength: 20 }, hash: { type: 'string', maxLength: 64 } },
      },
      response: { ...errorResponses(404, 429, 500) },
    },
    handler: async (request, reply) => {
      const { id, hash } = request.params as { id: string; hash: string };
      if (!/^[1-9]\d{0,15}$/.test(id) || !/^[0-9a-f]{16,64}$/.test(hash)) throw notFound('No such image');
      const img = await imageForUrl(app.ctx, Number(id), hash);
      if (!img) throw notFound('No such image');
      return reply
        .header('content-type', img.contentType)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .send(Buffer.from(img.bytes));
    },
  });
}
