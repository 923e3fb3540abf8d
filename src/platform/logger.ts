import pino, { type DestinationStream, type Logger } from 'pino';

// Capability URLs carry their secret in the path: /o/<secret>, /pay/<secret>.
const CAPABILITY_PATH = /\/(o|pay)\/[^/?#\s]+/g;
const BEARER = /(adm_)[A-Za-z0-9_-]+/g;

/** Strips capability secrets and tokens out of anything that is about to be logged. */
export function redactUrl(url: string): string {
  return url.replace(CAPABILITY_PATH, '/$1/[redacted]').replace(BEARER, '$1[redacted]');
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', '*.access_secret', '*.secret'],
      censor: '[redacted]',
    },
    serializers: {
      req(req: { method: string; url: string; id: string; ip?: string }) {
        return { id: req.id, method: req.method, url: redactUrl(req.url), ip: req.ip };
      },
      res(res: { statusCode: number }) {
        return { statusCode: res.statusCode };
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

type ChildOptions = { level?: string } & Record<string, unknown>;
interface ParentLogger {
  level: string;
  child(bindings: Record<string, unknown>, options?: ChildOptions): unknown;
  isLevelEnabled?(level: string): boolean;
}
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Emit = Record<Level, (...args: unknown[]) => void>;

/**
 * A request's logger, made the first time something is logged through it. Fastify gives every
 * request a child of the server's logger bound to the request's id; making one (bindings
 * serialised, redaction set up) took about 5% of a cheap request's CPU (the event page, an
 * order) while nothing below the server's level is ever written. A child with a level of its own
 * (a route's logLevel) is made at once.
 */
class RequestLogger {
  private made: (ParentLogger & Emit) | undefined;

  constructor(
    private readonly parent: ParentLogger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: ChildOptions,
  ) {}

  private get real(): ParentLogger & Emit {
    return (this.made ??= this.parent.child(this.bindings, this.options) as ParentLogger & Emit);
  }

  private emit(level: Level, args: unknown[]): void {
    if (this.made || this.parent.isLevelEnabled?.(level) !== false) this.real[level](...args);
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  fatal(...args: unknown[]): void {
    this.emit('fatal', args);
  }
  error(...args: unknown[]): void {
    this.emit('error', args);
  }
  warn(...args: unknown[]): void {
    this.emit('warn', args);
  }
  info(...args: unknown[]): void {
    this.emit('info', args);
  }
  debug(...args: unknown[]): void {
    this.emit('debug', args);
  }
  trace(...args: unknown[]): void {
    this.emit('trace', args);
  }
  silent(): void {}

  child(bindings: Record<string, unknown>, options?: ChildOptions): unknown {
    return this.real.child(bindings, options);
  }
}

/** Fastify's childLoggerFactory: the request's child of the server's logger, made when first used. */
export function requestLogger(parent: ParentLogger, bindings: Record<string, unknown>, options: ChildOptions): unknown {
  if (options.level !== undefined) return parent.child(bindings, options);
  return new RequestLogger(parent, bindings, options);
}
