import { AppError } from '../../platform/errors.ts';

/** Stable error codes of messages to attendees. */
export const invalidMessage = (fields: Record<string, string[]>): AppError =>
  new AppError('unprocessable', 'validation_failed', `The message is not valid: ${Object.values(fields).flat().join('; ')}`, {
    fields,
  });
