import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../platform/http/schemas.ts';

/**
 * The door scanner's script in its parts, each a script of its own, served joined as one file
 * (`scanner.js`, last, starts the scanner with the other two): one request at the door, and one
 * file for the page to load and its service worker to keep offline.
 */
const SCANNER_PARTS = ['scanner-store.js', 'scanner-camera.js', 'scanner.js'];

/** The console's static files (the scanner's, the seating page's, the description preview's), read once; their URLs carry a hash of their content. */
const ASSETS = (() => {
  const here = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
  const require = createRequire(import.meta.url);
  const files: Record<string, { body: string; type: string }> = {
    'scanner.js': { body: SCANNER_PARTS.map(here).join('\n'), type: 'text/javascript; charset=utf-8' },
    'seating.js': { body: here('seating.js'), type: 'text/javascript; charset=utf-8' },
    'description-preview.js': { body: here('description-preview.js'), type: 'text/javascript; charset=utf-8' },
    'jsQR.js': { body: readFileSync(require.resolve('jsqr/dist/jsQR.js'), 'utf8'), type: 'text/javascript; charset=utf-8' },
    'icon.svg': { body: here('icon.svg'), type: 'image/svg+xml' },
  };
  const version = createHash('sha256')
    .update(
      Object.values(files)
        .map((f) => f.body)
        .join('\0'),
    )
    .digest('hex')
    .slice(0, 12);
  const worker = here('scanner-sw.js').replace('__VERSION__', version);
  return { files, version, worker };
})();

/** A console file's URL, versioned by content (served immutable). */
export const asset = (name: string) => `/console/assets/${name}?v=${ASSETS.version}`;

/** The console's own files (icon, the scanner's script and its QR decoder) and the scanner's service worker. */
export async function consoleAssetRoutes(app: FastifyInstance): Promise<void> {
  // ---- the service worker and the scanner's files
  app.get('/console/scanner-sw.js', { schema: { hide: true, response: { 200: { type: 'string' } } } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(ASSETS.worker),
  );
  app.get<{ Params: { file: string }; Querystring: { v?: string } }>(
    '/console/assets/:file',
    {
      schema: {
        hide: true,
        params: { type: 'object', required: ['file'], properties: { file: { type: 'string', maxLength: 100 } } },
        querystring: { type: 'object', properties: { v: { type: 'string', maxLength: 40 } } },
        response: { 200: { type: 'string' }, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const file = Object.hasOwn(ASSETS.files, request.params.file) ? ASSETS.files[request.params.file] : undefined;
      if (!file) return reply.callNotFound();
      const immutable = request.query.v === ASSETS.version;
      return reply
        .type(file.type)
        .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        .send(file.body);
    },
  );
}
