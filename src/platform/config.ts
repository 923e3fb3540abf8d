import { isIP } from 'node:net';
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
  /**
   * Whether /_mail shows the mail the service would have sent (with its reset and invitation
   * links): only on a loopback listener outside production without SMTP, unless ADMIT_DEV_MAIL
   * says otherwise (1 on, 0 off).
   */
  devMail: boolean;
  /**
   * Which proxies in front are trusted to append to X-Forwarded-For (ADMIT_TRUST_PROXY): a hop
   * count, or their addresses and CIDR ranges; false trusts none. The client address is the
   * rightmost address not trusted, never one the client wrote itself.
   */
  trustProxy: number | string[] | false;
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
  /**
   * GET /metrics (ADMIT_METRICS=1): served to loopback clients, or to anyone sending
   * ADMIT_METRICS_TOKEN as a bearer token.
   */
  metrics: { enabled: boolean; token: string | null };
  /** seals secrets the service reads back, e.g. wallet keys (ADMIT_SECRETS_KEY; platform/sealed-box.ts) */
  secretsKey?: string | null;
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

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/i;

function devMailVar(env: NodeJS.ProcessEnv, host: string): boolean {
  const raw = env.ADMIT_DEV_MAIL;
  if (raw === '1') return true;
  if (raw === '0') return false;
  if (raw !== undefined && raw !== '') throw new ConfigError(`ADMIT_DEV_MAIL must be 1 or 0, got "${raw}"`);
  return env.NODE_ENV !== 'production' && !env.SMTP_URL && LOOPBACK.test(host);
}

function metricsVar(env: NodeJS.ProcessEnv): Config['metrics'] {
  const raw = env.ADMIT_METRICS;
  if (raw !== undefined && raw !== '' && raw !== '0' && raw !== '1')
    throw new ConfigError(`ADMIT_METRICS must be 1 or 0, got "${raw}"`);
  const token = env.ADMIT_METRICS_TOKEN || null;
  // a guessable token would publish the figures to anyone: ask for one worth the name
  if (token !== null && token.length < 24) throw new ConfigError('ADMIT_METRICS_TOKEN must be at least 24 characters');
  return { enabled: raw === '1', token };
}

/** `2` (hops) or `10.0.0.1, 10.1.0.0/16, ::1`; anything else stops the process. */
export function trustProxyVar(raw: string | undefined): number | string[] | false {
  if (raw === undefined || raw.trim() === '' || raw.trim() === '0') return false;
  if (/^\d+$/.test(raw.trim())) {
    const hops = Number(raw.trim());
    if (hops > 20) throw new ConfigError(`ADMIT_TRUST_PROXY as a hop count must be at most 20, got ${hops}`);
    return hops;
  }
  const parts = raw.split(',').map((p) => p.trim());
  for (const p of parts) {
    const [addr, bits, more] = p.split('/');
    const family = isIP(addr ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (!family || more !== undefined || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(
        `ADMIT_TRUST_PROXY must be a hop count or proxy addresses/CIDRs separated by commas; "${p}" is neither`,
      );
    }
  }
  return parts;
}

/** Reads and validates the environment once at boot; see the README's configuration table. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intVar(env, 'PORT', 3000, 0, 65535);
  const baseUrl = (urlVar(env, 'BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const host = env.HOST || '127.0.0.1';
  return {
    port,
    host,
    baseUrl,
    databaseUrl: urlVar(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseReadUrl: readUrl(env),
    dataDir: path.resolve(env.ADMIT_DATA_DIR || './data'),
    smtpUrl: urlVar(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: env.MAIL_FROM || 'tickets@localhost',
    production: env.NODE_ENV === 'production',
    devMail: devMailVar(env, host),
    trustProxy: trustProxyVar(env.ADMIT_TRUST_PROXY),
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
    metrics: metricsVar(env),
    secretsKey: env.ADMIT_SECRETS_KEY || null,
  };
}
