import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { METRICS_CONTENT_TYPE, observeRequest, registerScrapeGauges, scrape } from '../metrics.ts';

const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/;

/**
 * A scraper on the machine itself: the connection comes from loopback and no proxy forwarded it.
 * A reverse proxy on the same host connects from loopback too, so a forwarded request is never
 * taken for a local one, whatever ADMIT_TRUST_PROXY says.
 */
function localScraper(request: FastifyRequest): boolean {
  const h = request.headers;
  if (h['x-forwarded-for'] !== undefined || h.forwarded !== undefined || h['x-real-ip'] !== undefined) return false;
  return LOOPBACK.test(request.socket.remoteAddress ?? '') && LOOPBACK.test(request.ip);
}

function tokenMatches(request: FastifyRequest, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1]!);
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * GET /metrics in the Prometheus text format, when ADMIT_METRICS=1 (contract section 16), and the
 * request timing every route reports into it. Off, the path is an ordinary 404.
 */
/** Called on the root instance (not registered as a plugin): its hook must see every route. */
export function metricsRoutes(app: FastifyInstance): void {
  const { enabled, token } = app.ctx.config.metrics;
  if (!enabled) return;
  registerScrapeGauges(app.ctx.db, app.ctx.poolStats);
  app.addHook('onResponse', async (request, reply) => {
    // the route's pattern keeps the label set bounded; URLs no route matched share one label
    const route = request.routeOptions.url ?? 'unmatched';
    observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!(token !== null && tokenMatches(request, token)) && !localScraper(request)) {
      throw new AppError('forbidden', 'forbidden', 'Metrics are served to the machine itself or with the metrics token');
    }
    reply.header('content-type', METRICS_CONTENT_TYPE).header('cache-control', 'no-store');
    return scrape();
  });
}
