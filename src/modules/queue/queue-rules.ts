/**
 * When an event's on-sale queue runs and whom it admits (contract section 13). Pure.
 *
 * - It runs from 30 minutes before `sales_start_at` until the sales end (the event's
 *   `sales_end_at`, else its start): an event without a sales start has no on-sale moment and no queue.
 * - Before the start, visitors wait in a waiting room with no place. At the start, the early ones
 *   get places 1..n at random; anyone arriving later gets the next place.
 * - Places are admitted at `admit_per_minute`, evenly: place 1 at the start, place p
 *   (p - 1) * 60 / rate seconds after it. Over any stretch of time the number admitted is the
 *   rate times its length, to one place.
 */

export const WAITING_ROOM_MS = 30 * 60_000;
/** How long an admission's pass lets its holder check out. */
export const PASS_MS = 15 * 60_000;

export interface QueueSettings {
  enabled?: boolean;
  admit_per_minute?: number;
}

export interface QueueEvent {
  queue: QueueSettings | null;
  sales_start_at: Date | string | null;
  sales_end_at: Date | string | null;
  starts_at: Date | string;
}

export const DEFAULT_ADMIT_PER_MINUTE = 100;

/** The queue's start and rate while it runs at `now`, else null. */
export function runningQueue(e: QueueEvent, now: Date): { start: Date; rate: number } | null {
  if (!e.queue?.enabled || !e.sales_start_at) return null;
  const start = new Date(e.sales_start_at);
  const end = new Date(e.sales_end_at ?? e.starts_at);
  if (now.getTime() < start.getTime() - WAITING_ROOM_MS || now >= end) return null;
  return { start, rate: Math.max(1, e.queue.admit_per_minute ?? DEFAULT_ADMIT_PER_MINUTE) };
}

/** The highest place admitted at `now` (0 before the start). */
export function admittedUpTo(start: Date, rate: number, now: Date): number {
  const ms = now.getTime() - start.getTime();
  if (ms < 0) return 0;
  return Math.floor((ms * rate) / 60_000) + 1;
}

/** Seconds until `place` is admitted (0 when it is). */
export function waitSeconds(place: number, start: Date, rate: number, now: Date): number {
  if (place <= admittedUpTo(start, rate, now)) return 0;
  const turn = start.getTime() + ((place - 1) * 60_000) / rate;
  return Math.max(1, Math.ceil((turn - now.getTime()) / 1000));
}
