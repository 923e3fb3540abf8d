import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { errorSchema, sendError, statusOf, toAppError } from './errors.ts';
import { redactUrl, requestLogger } from '../logger.ts';
import { addMethodNotAllowed, watchRoutes } from './method-not-allowed.ts';
import { renderErrorPage } from './html.ts';
import { securityHeaders } from './security-headers.ts';
import { cleanUrl, inputHygiene } from './input-hygiene.ts';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    /** set when the instance drains before a shutdown (server.ts) */
    draining: { active: boolean };
  }
}

export interface BuildOptions {
  /** The route table (src/routes.ts): the platform knows no module's routes. */
  routes: (app: FastifyInstance, ctx: AppContext) => Promise<void>;
  /** Extra routes (tests), registered with the others so they get the 405 pass too. */
  extend?: (app: FastifyInstance) => void;
}

/** Trusts the socket's peer and the n-1 proxies before it: hop 0 is the socket's address. */
const hops = (n: number) => (_address: string, hop: number) => hop < n;

export async function createHttpApp(ctx: AppContext, opts: BuildOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as unknown as FastifyBaseLogger,
    childLoggerFactory: (logger, bindings, options) =>
      requestLogger(logger, bindings, options as Record<string, unknown>) as FastifyBaseLogger,
    bodyLimit: ctx.config.bodyLimit,
    genReqId: () => randomUUID(),
    // a hop count or the proxies' addresses (config.ts): never `true`, which believes the
    // leftmost X-Forwarded-For address, the one a client can write itself
    trustProxy: typeof ctx.config.trustProxy === 'number' ? hops(ctx.config.trustProxy) : ctx.config.trustProxy,
    requestTimeout: 30_000,
    connectionTimeout: 60_000,
    // an unknown ref or slug of any reasonable length is a 404 from its route; Node's header
    // limit (16 KiB) still bounds the request line
    routerOptions: { maxParamLength: 8192, ignoreTrailingSlash: true },
    // NUL, bytes that are not UTF-8 and stray '%' in the URL become U+FFFD before routing
    rewriteUrl: (req) => cleanUrl(req.url ?? '/'),
    // Router-level failures (over-long or malformed path segments) never reach setErrorHandler.
    frameworkErrors: (err, request, reply) => {
      const code = (err as { code?: string }).code;
      const appErr =
        code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new AppError('uri_too_long', 'uri_too_long', 'A path segment is too long')
          : new AppError('bad_request', 'bad_request', 'The request URL is malformed');
      return sendError(reply, appErr);
    },
    ajv: {
      customOptions: {
        // Bodies are checked as sent: no stripping of unknown fields, no type coercion.
        removeAdditional: false,
        coerceTypes: false,
        useDefaults: false,
        allErrors: false,
      },
    },
  });
  app.decorate('ctx', ctx);
  app.decorate('draining', { active: false });
  // while draining, every response closes its connection: clients and balancers reconnect elsewhere
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (app.draining.active) reply.header('connection', 'close');
    done(null, payload);
  });
  app.decorateRequest('principal', null);
  app.addSchema(errorSchema);
  securityHeaders(app);
  inputHygiene(app);

  await app.register(formbody, { bodyLimit: ctx.config.bodyLimit });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'admit API',
        version: '1',
        description:
          'Machine API under /api/v1 and the account-scoped API under /{account_slug}. ' +
          'Every operation takes `Authorization: Bearer <token>`.',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => (json.$id as string) || `def-${i}` },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });

  app.setErrorHandler((err, request, reply) => {
    const appErr = toAppError(err, request);
    if (appErr.kind === 'internal' || appErr.kind === 'unavailable') {
      request.log.error({ err: appErr.cause ?? err, url: redactUrl(request.url) }, 'unhandled error');
    }
    if (request.routeOptions?.config?.html) {
      // a page that needs a step first (signing in) sends the browser there
      if (typeof appErr.extra?.location === 'string' && appErr.kind === 'unauthorized') {
        return reply.code(303).header('location', appErr.extra.location).send();
      }
      return reply
        .code(statusOf(appErr))
        .type('text/html; charset=utf-8')
        .send(renderErrorPage(ctx, appErr, request.id));
    }
    return sendError(reply, appErr);
  });
  app.setNotFoundHandler((request, reply) => {
    sendError(
      reply,
      new AppError('not_found', 'not_found', `No route for ${request.method} ${redactUrl(request.url.split('?')[0] ?? '')}`),
    );
  });

  const seen = watchRoutes(app);
  await opts.routes(app, ctx);
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  opts.extend?.(app);
  await app.after();
  addMethodNotAllowed(app, seen);
  return app;
}
