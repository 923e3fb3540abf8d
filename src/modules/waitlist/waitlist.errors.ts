import { AppError } from '../../platform/errors.ts';

/** Stable error codes of the waiting list. */
export const invalidEntry = (fields: Record<string, string[]>): AppError =>
  new AppError('unprocessable', 'validation_failed', 'The waiting list entry is not valid', { fields });
export const waitingListOff = (): AppError =>
  new AppError('conflict', 'waiting_list_disabled', "This event's waiting list is not enabled");
export const alreadyWaiting = (): AppError =>
  new AppError('conflict', 'already_waiting', 'This email address is already on the waiting list for this ticket type');
export const entryNotFound = (id: number | string): AppError =>
  new AppError('not_found', 'not_found', `No waiting list entry ${id}`);
export const entryClosed = (status: string): AppError =>
  new AppError('conflict', 'conflict', `The entry is ${status}: only a waiting or offered entry can be removed`);
export const nothingToOffer = (): AppError =>
  new AppError('conflict', 'conflict', 'Not enough units are free for this entry now, or it is not waiting');
