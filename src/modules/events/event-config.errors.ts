import { AppError } from '../../platform/errors.ts';

/** 422: the document is not a valid event; `fields` keyed by JSON path (`$.ticket_types[0].price`). */
export const validationFailed = (fields: Record<string, string[]>): AppError =>
  new AppError(
    'unprocessable',
    'validation_failed',
    `Invalid event configuration: ${Object.entries(fields)
      .map(([k, v]) => `${k} ${v.join(', ')}`)
      .join('; ')}`,
    { fields },
  );

/** 409: a change existing orders (or another writer) forbid, naming the document's path. */
export const configConflict = (path: string, message: string): AppError =>
  new AppError('conflict', 'conflict', `${path}: ${message}`, { fields: { [path]: [message] }, extra: { path } });
