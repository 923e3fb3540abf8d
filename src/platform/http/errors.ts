import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorKind } from '../errors.ts';

const STATUS: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  uri_too_long: 414,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  upstream: 502,
  unavailable: 503,
};

export function statusOf(err: AppError): number {
  return STATUS[err.kind];
}

/** How a route wants request-validation failures reported (spec: invalid_body, validation_failed). */
export interface ValidationErrorStyle {
  status: 400 | 422;
  code: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    validationError?: ValidationErrorStyle;
    /** Buyer pages render errors as HTML instead of JSON. */
    html?: boolean;
  }
}

export interface ErrorBody {
  error: { code: string; message: string; fields?: Record<string, string[]>; request_id?: string; [k: string]: unknown };
}

/** Turns anything thrown in a request into an AppError; the one place that knows Fastify's codes. */
export function toAppError(err: unknown, request: FastifyRequest): AppError {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError & {
    validation?: Array<{ instancePath: string; message?: string; params?: Record<string, unknown> }>;
  };
  const style = request.routeOptions?.config?.validationError;
  if (fe.validation) {
    const fields: Record<string, string[]> = {};
    for (const v of fe.validation) {
      let field = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
      const extra = (v.params?.additionalProperty ?? v.params?.missingProperty) as string | undefined;
      if (extra) field = field ? `${field}.${extra}` : extra;
      const where = fe.validationContext ?? 'body';
      const key = field ? (where === 'body' ? field : `${where}.${field}`) : where;
      (fields[key] ??= []).push(describe(v));
    }
    const message = `Invalid ${fe.validationContext ?? 'request'}: ${Object.entries(fields)
      .map(([k, m]) => `${k} ${m.join(', ')}`)
      .join('; ')}`;
    if (fe.validationContext === 'params') {
      // a path segment that cannot name anything (too long, not a number) names nothing: 404, as for
      // any other unknown ref or slug
      return new AppError(
        'not_found',
        'not_found',
        `Nothing at this path (${Object.entries(fields)
          .map(([k, m]) => `${k.replace(/^params\./, '')} ${m.join(', ')}`)
          .join('; ')})`,
      );
    }
    if (style && fe.validationContext === 'body') {
      return new AppError(style.status === 400 ? 'bad_request' : 'unprocessable', style.code, message, { fields });
    }
    return new AppError('bad_request', 'bad_request', message, { fields });
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return new AppError('payload_too_large', 'payload_too_large', 'The request body is too large');
      }
      const media = fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE';
      const message = media
        ? `Unsupported content type ${String(request.headers['content-type'] ?? '')}; send application/json`
        : 'The request body is not valid JSON';
      if (style) return new AppError('unprocessable', style.code, message);
      if (media) return new AppError('unsupported_media_type', 'unsupported_media_type', message);
      return new AppError('bad_request', 'bad_request', message);
    }
  }
  if (fe instanceof SyntaxError || (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500)) {
    if (fe.statusCode === 413) return new AppError('payload_too_large', 'payload_too_large', 'The request body is too large');
    if (style) return new AppError('unprocessable', style.code, fe.message);
    return new AppError('bad_request', 'bad_request', fe.message || 'Bad request');
  }
  const pgCode = (err as { code?: string }).code ?? '';
  if (
    /^(57P0|08|53300)/.test(pgCode) ||
    /Connection terminated|not queryable|terminating connection|ECONNREFUSED|ECONNRESET|timeout exceeded when trying to connect/.test(
      String((err as Error).message),
    )
  ) {
    // The database went away (failover, restart, killed connection): nothing was committed; retry.
    return new AppError('unavailable', 'unavailable', 'The service is briefly unavailable; nothing was changed, please retry', {
      cause: err,
    });
  }
  if (pgCode === '22021' || pgCode === '22P05' || pgCode === '22001' || pgCode === '54000') {
    // text the database cannot store (a safety net: the input hygiene hook refuses it first)
    const message = 'The request holds text that cannot be stored (a NUL character, invalid UTF-8 or an over-long value)';
    if (style) return new AppError(style.status === 400 ? 'bad_request' : 'unprocessable', style.code, message);
    return new AppError('bad_request', 'bad_request', message);
  }
  if (pgCode === '55P03' || pgCode === '40001' || pgCode === '40P01') {
    return new AppError('unavailable', 'busy', 'Too busy right now; nothing was changed, please retry', { cause: err });
  }
  return new AppError('internal', 'internal_error', 'Something went wrong on our side', { cause: err });
}

function describe(v: { message?: string; params?: Record<string, unknown> }): string {
  if (v.params?.additionalProperty) return 'is not a known field';
  if (v.params?.missingProperty) return 'is required';
  if (v.params?.type === 'null' || v.message?.includes('null')) return v.message ?? 'must not be null';
  return v.message ?? 'is invalid';
}

export function errorBody(err: AppError, requestId?: string): ErrorBody {
  const body: ErrorBody = { error: { ...(err.extra ?? {}), code: err.code, message: err.message } };
  if (err.fields) body.error.fields = err.fields;
  if (requestId && err.kind === 'internal') body.error.request_id = requestId;
  return body;
}

export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  const status = statusOf(err);
  if (err.kind === 'rate_limited' && typeof err.extra?.retry_after === 'number') {
    void reply.header('retry-after', String(err.extra.retry_after));
  }
  return reply.code(status).type('application/json; charset=utf-8').send(errorBody(err, reply.request.id));
}

export const errorSchema = {
  $id: 'Error',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: true,
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        fields: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
        request_id: { type: 'string' },
      },
    },
  },
} as const;
