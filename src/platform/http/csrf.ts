import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { appSecret } from '../secrets.ts';

const WINDOW_MS = 2 * 60 * 60 * 1000;
function sign(key: string, scope: string, window: number): string {
  return createHmac('sha256', key).update(`${scope}|${window}`).digest('base64url');
}

/**
 * A form token bound to what the form acts on (`scope`, e.g. "pay:<order id>" or
 * "checkout:<event id>") and to a two-hour window. Stateless: any instance can check it.
 */
export async function csrfToken(ctx: AppContext, scope: string): Promise<string> {
  const window = Math.floor(ctx.clock.now().getTime() / WINDOW_MS);
  return `${window}.${sign(await appSecret(ctx.db, 'csrf'), scope, window)}`;
}

/**
 * Checks the form token (current or previous window) and, when the browser sends one, that the
 * Origin is our own. `Origin: null` is refused too: a browser sends it after a cross-origin
 * redirect or from a sandboxed frame, never for our own pages' forms (they are served with
 * `Referrer-Policy: same-origin`, under which a same-origin post names its origin). Without that,
 * a foreign page could post our sign-in form, with a token it fetched, through a 307. Throws 403
 * `csrf_failed`.
 */
export async function verifyCsrf(ctx: AppContext, request: FastifyRequest, scope: string, token: unknown): Promise<void> {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== new URL(ctx.config.baseUrl).origin) {
    throw new AppError('forbidden', 'csrf_failed', 'This form was sent from another site');
  }
  const fail = () =>
    new AppError('forbidden', 'csrf_failed', 'This form has expired or was not sent from our page; reload and try again');
  if (typeof token !== 'string') throw fail();
  const [w, mac] = token.split('.');
  const window = Number(w);
  const now = Math.floor(ctx.clock.now().getTime() / WINDOW_MS);
  if (!mac || !Number.isInteger(window) || window > now || window < now - 1) throw fail();
  const expected = Buffer.from(sign(await appSecret(ctx.db, 'csrf'), scope, window));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw fail();
}
