import type { FastifyInstance } from 'fastify';
import type { AppContext } from './platform/context.ts';
import { createHttpApp, type BuildOptions } from './platform/http/app.ts';
import { routes } from './routes.ts';

/** The HTTP application: the platform's server with the route table of every module. */
export function buildApp(ctx: AppContext, opts: Omit<BuildOptions, 'routes'> = {}): Promise<FastifyInstance> {
  return createHttpApp(ctx, { ...opts, routes });
}
