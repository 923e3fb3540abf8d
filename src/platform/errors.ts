/**
 * The single application error. `kind` is independent of HTTP; the HTTP layer maps it to a
 * status in one place (platform/http/errors.ts). `code` is the stable snake_case identifier
 * clients match on.
 */
export type ErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'precondition_failed'
  | 'unprocessable'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'uri_too_long'
  | 'method_not_allowed'
  | 'upstream'
  | 'unavailable'
  | 'internal';

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly fields?: Record<string, string[]>;
  readonly extra?: Record<string, unknown>;

  constructor(
    kind: ErrorKind,
    code: string,
    message: string,
    opts: { fields?: Record<string, string[]>; extra?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.kind = kind;
    this.code = code;
    if (opts.fields) this.fields = opts.fields;
    if (opts.extra) this.extra = opts.extra;
  }
}

export const notFound = (what = 'Not found'): AppError => new AppError('not_found', 'not_found', what);
export const forbidden = (message = 'This token may not do that'): AppError => new AppError('forbidden', 'forbidden', message);
export const unauthorized = (message = 'A valid bearer token is required'): AppError =>
  new AppError('unauthorized', 'unauthorized', message);
