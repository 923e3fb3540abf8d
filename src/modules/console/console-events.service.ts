import type { AppContext } from '../../platform/context.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { createCodes } from '../discounts/discounts.service.ts';
import { getEventConfig, type EventConfig } from '../events/event-config.service.ts';
import { getEventId } from '../events/events.service.ts';

/** What the console's "Generate codes" form asks for. */
export interface GenerateCodes {
  count: number;
  prefix: string;
  percent_off: number;
  max_uses: number | null;
}

/** An unknown event is the console's 404 "No such event" (not the API's message naming the slug). */
const noSuchEvent = (err: unknown): never => {
  if (err instanceof AppError && err.kind === 'not_found') throw notFound('No such event');
  throw err;
};

/** The configuration document of an account's event and its ETag. */
export async function loadEventConfig(ctx: AppContext, accountId: number, slug: string): Promise<EventConfig> {
  try {
    return await getEventConfig(ctx, accountId, slug);
  } catch (err) {
    return noSuchEvent(err);
  }
}

/** Random discount codes for an event, written by the discounts module. */
export async function generateCodes(ctx: AppContext, accountId: number, slug: string, input: GenerateCodes): Promise<void> {
  const eventId = await getEventId(ctx, accountId, slug).catch(noSuchEvent);
  await createCodes(ctx, accountId, eventId, input);
}
