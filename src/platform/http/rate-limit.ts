import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { Principal } from './auth.ts';

const WINDOW_MS = 60_000;
const SYNC_MS = 1_000;

interface Bucket {
  windowStart: number;
  /** count in the shared table at the last sync (all instances) */
  shared: number;
  /** requests seen here since the last sync */
  unsynced: number;
  lastSync: number;
}

/**
 * Fixed one-minute windows per token and per client address, shared by every instance through
 * the rate_limits table. Each instance counts locally and adds its delta to the shared row once a
 * second or when its unshared count nears what is left of the budget, so the hot path rarely
 * touches the database far from the limit and N instances enforce one budget.
 */
class RateLimiter {
  #buckets = new Map<string, Bucket>();
  constructor(private ctx: AppContext) {}

  async hit(key: string, limit = this.ctx.config.rateLimitPerMin): Promise<void> {
    const now = this.ctx.clock.now().getTime();
    const windowStart = now - (now % WINDOW_MS);
    let b = this.#buckets.get(key);
    if (!b || b.windowStart !== windowStart) {
      b = { windowStart, shared: 0, unsynced: 0, lastSync: 0 };
      this.#buckets.set(key, b);
      if (this.#buckets.size > 50_000) this.#evict(windowStart);
    }
    b.unsynced += 1;
    // Sync once a second, and sooner as the budget runs down: when what this instance counted
    // since its last look reaches an eighth of what was left then. Several instances spending one
    // budget then overshoot it by little, and near the limit every request is counted in the
    // shared row before it is let through. Once the shared count is over, refuse without asking.
    const left = limit - b.shared;
    if (now - b.lastSync >= SYNC_MS || (left > 0 && b.unsynced * 8 >= left)) await this.#sync(key, b, now);
    if (b.shared + b.unsynced > limit) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
      throw new AppError('rate_limited', 'rate_limited', `Too many requests; try again in ${retryAfter} s`, {
        extra: { retry_after: retryAfter },
      });
    }
  }

  async #sync(key: string, b: Bucket, now: number): Promise<void> {
    const delta = b.unsynced;
    b.unsynced = 0;
    b.lastSync = now;
    const r = await sql<{ count: number }>`
      insert into rate_limits (key, window_start, count) values (${key}, ${new Date(b.windowStart)}, ${delta})
      on conflict (key, window_start) do update set count = rate_limits.count + excluded.count
      returning count`.execute(this.ctx.db);
    b.shared = r.rows[0]?.count ?? b.shared + delta;
    if (Math.random() < 0.01) {
      await sql`delete from rate_limits where window_start < ${new Date(b.windowStart - WINDOW_MS)}`.execute(this.ctx.db);
    }
  }

  #evict(windowStart: number): void {
    for (const [k, v] of this.#buckets) if (v.windowStart !== windowStart) this.#buckets.delete(k);
  }
}

const limiters = new WeakMap<AppContext, RateLimiter>();

function limiterOf(ctx: AppContext): RateLimiter {
  let limiter = limiters.get(ctx);
  if (!limiter) limiters.set(ctx, (limiter = new RateLimiter(ctx)));
  return limiter;
}

export async function rateLimit(ctx: AppContext, request: FastifyRequest, principal: Principal | null): Promise<void> {
  if (ctx.config.rateLimitPerMin <= 0) return;
  const limiter = limiterOf(ctx);
  if (principal) await limiter.hit(`token:${principal.tokenId}`);
  await limiter.hit(`ip:${request.ip}`);
}

/**
 * A budget of its own for one kind of action (e.g. checkout starts per address and per event),
 * shared by all instances like the request limits. Off when rate limiting is off.
 */
export async function limitAction(ctx: AppContext, key: string, perMinute: number): Promise<void> {
  if (ctx.config.rateLimitPerMin <= 0) return;
  await limiterOf(ctx).hit(key, perMinute);
}

/**
 * Like limitAction, but on even when request rate limiting is turned off: for budgets that are
 * part of security (sign-in attempts per address and per person), not of load.
 */
export async function limitAlways(ctx: AppContext, key: string, perMinute: number): Promise<void> {
  await limiterOf(ctx).hit(key, perMinute);
}
