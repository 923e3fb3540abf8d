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
