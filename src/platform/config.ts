import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  databaseUrl: string | null;
  /** a streaming replica the reports read from (DATABASE_READ_URL); null: the primary */
  databaseReadUrl: string | null;
  dataDir: string;
  smtpUrl: string | null;
  mailFrom: string;
  production: boolean;
  rateLimitPerMin: number;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  logLevel: string;
  /** How long a token lookup is reused by this instance (ms); 0 looks every request up. */
  tokenCacheMs: number;
  /**
   * How long this instance reuses an event's catalogue rows (event, ticket types, goods, sessions)
   * read from the database (ms). They change only by import; 0 reads them every request.
   */
  catalogueCacheMs: number;
  /** SMTP connect, greeting and socket timeouts (ms): a hanging mail server must not hold the dispatcher. */
  smtpTimeoutMs: number;
  /** Seconds between webhook attempts (contract section 8; ADMIT_WEBHOOK_RETRY_SCHEDULE). */
  webhookRetrySchedule: number[];
  /** Webhook targets may be private or loopback addresses (ADMIT_WEBHOOK_ALLOW_PRIVATE=1). */
  webhookAllowPrivate: boolean;
  /** Give up on one webhook attempt after this long (ms). */
  webhookTimeoutMs: number;
  /**
   * On SIGTERM, how long /readyz answers 503 (and responses say `Connection: close`) while requests
   * are still served, so a balancer's health check takes the instance out before it stops
   * listening (ADMIT_DRAIN_MS; 0 stops at once).
   */
  drainMs: number;
}

export const DEFAULT_WEBHOOK_SCHEDULE = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400];

function scheduleVar(env: NodeJS.ProcessEnv, name: string): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return DEFAULT_WEBHOOK_SCHEDULE;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 50 || !parts.every((p) => /^\d{1,7}$/.test(p))) {
    throw new ConfigError(`${name} must be comma-separated whole seconds (at most 50), got "${raw}"`);
  }
  return parts.map(Number);
}

export class ConfigError extends Error {}

function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function urlVar(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a URL`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got ${url.protocol}`);
  }
  return raw;
}

/** DATABASE_READ_URL: only beside DATABASE_URL (the embedded database has no replica). */
function readUrl(env: NodeJS.ProcessEnv): string | null {
  const url = urlVar(env, 'DATABASE_READ_URL', ['postgres:', 'postgresql:']);
  if (url && !env.DATABASE_URL) throw new ConfigError('DATABASE_READ_URL needs DATABASE_URL (the primary) as well');
  return url;
}

/** Reads and validates the environment once at boot; see the README's configuration table. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intVar(env, 'PORT', 3000, 0, 65535);
  const baseUrl = (urlVar(env, 'BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    port,
    host: env.HOST || '127.0.0.1',
    baseUrl,
    databaseUrl: urlVar(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseReadUrl: readUrl(env),
    dataDir: path.resolve(env.ADMIT_DATA_DIR || './data'),
    smtpUrl: urlVar(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: env.MAIL_FROM || 'tickets@localhost',
    production: env.NODE_ENV === 'production',
    rateLimitPerMin: intVar(env, 'ADMIT_RATE_LIMIT_PER_MIN', 1200, 0, 10_000_000),
    bodyLimit: 1024 * 1024,
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    tokenCacheMs: 5_000,
    catalogueCacheMs: 1_000,
    smtpTimeoutMs: 10_000,
    webhookRetrySchedule: scheduleVar(env, 'ADMIT_WEBHOOK_RETRY_SCHEDULE'),
    webhookAllowPrivate: env.ADMIT_WEBHOOK_ALLOW_PRIVATE === '1',
    webhookTimeoutMs: 15_000,
    drainMs: intVar(env, 'ADMIT_DRAIN_MS', 0, 0, 600_000),
  };
}
