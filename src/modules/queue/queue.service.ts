import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../platform/context.ts';
import { appSecret, randomSecret } from '../../platform/secrets.ts';
import { arrive, findVisitor, markAdmitted, rejoin } from './queue.repo.ts';
import { admittedUpTo, PASS_MS, runningQueue, waitSeconds, type QueueEvent } from './queue-rules.ts';

/**
 * The on-sale queue in front of an event page and its checkout (contract section 13). A browser
 * is known by a random visitor cookie (its hash in the database); admission gives a pass cookie,
 * an HMAC over the event, the visitor and its expiry: it cannot be forged without the app's
 * secret, and it is worth nothing without the visitor cookie it was issued to.
 */

export interface QueuedEvent extends QueueEvent {
  id: number;
}

/** The two cookies a browser carries for one event's queue. */
export const visitorCookie = (eventId: number) => `admit_q${eventId}`;
export const passCookie = (eventId: number) => `admit_qp${eventId}`;
/** The visitor's place, signed: the poll answers from it without reading the database. */
export const placeCookie = (eventId: number) => `admit_qs${eventId}`;

export type Gate =
  | { kind: 'open' }
  | { kind: 'admitted'; pass: string; expires: Date; visitor?: string }
  | {
      kind: 'waiting';
      start: Date;
      place: number | null;
      ahead: number;
      waitSeconds: number;
      visitor?: string;
      placeToken?: string;
    };

const hashOf = (visitor: string) => createHash('sha256').update(visitor).digest('hex');
const VISITOR = /^[A-Za-z0-9_-]{32}$/;

async function sign(ctx: AppContext, eventId: number, visitor: string, exp: number): Promise<string> {
  const key = await appSecret(ctx.db, 'queue-pass');
  return createHmac('sha256', key).update(`${eventId}|${visitor}|${exp}`).digest('base64url');
}

async function signPlace(ctx: AppContext, eventId: number, visitor: string, place: number): Promise<string> {
  const key = await appSecret(ctx.db, 'queue-place');
  return `${place}.${createHmac('sha256', key).update(`${eventId}|${visitor}|${place}`).digest('base64url')}`;
}

/** The place a signed place cookie carries, when it is this visitor's and untouched. */
async function placeOf(ctx: AppContext, eventId: number, visitor: string, token: string | undefined): Promise<number | null> {
  if (!token) return null;
  const place = Number(token.split('.')[0]);
  if (!Number.isSafeInteger(place) || place < 1) return null;
  const expected = Buffer.from(await signPlace(ctx, eventId, visitor, place));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected) ? place : null;
}

/** Whether the browser holds a pass for this event that is its own and still good. */
export async function hasValidPass(
  ctx: AppContext,
  eventId: number,
  visitor: string | undefined,
  pass: string | undefined,
): Promise<boolean> {
  if (!visitor || !pass || !VISITOR.test(visitor)) return false;
  const [expText, mac] = pass.split('.');
  const exp = Number(expText);
  if (!mac || !Number.isSafeInteger(exp) || exp <= ctx.clock.now().getTime()) return false;
  const expected = Buffer.from(await sign(ctx, eventId, visitor, exp));
  const given = Buffer.from(mac);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * What a browser reaching the event page gets: the page (no queue, or a valid pass), a new pass
 * (its place is admitted), or the queue page with its place and wait. A browser without a
 * visitor cookie gets one (`visitor` in the answer: the route sets it).
 */
export async function passGate(ctx: AppContext, event: QueuedEvent, cookies: { visitor?: string; pass?: string }): Promise<Gate> {
  const now = ctx.clock.now();
  const queue = runningQueue(event, now);
  if (!queue) return { kind: 'open' };
  if (await hasValidPass(ctx, event.id, cookies.visitor, cookies.pass)) return { kind: 'open' };
  const known = cookies.visitor && VISITOR.test(cookies.visitor) ? cookies.visitor : undefined;
  const visitor = known ?? randomSecret(24);
  const hash = hashOf(visitor);
  let row = known ? await findVisitor(ctx.db, event.id, hash) : undefined;
  if (!row || (row.place === null && now >= queue.start)) row = await arrive(ctx.db, event.id, hash, queue.start, now);
  const fresh = known ? {} : { visitor };
  if (row.place !== null && row.admitted_at && now.getTime() - new Date(row.admitted_at).getTime() >= PASS_MS) {
    // the pass ran out unused: back of the line
    await rejoin(ctx.db, event.id, row.id);
    row = (await findVisitor(ctx.db, event.id, hash))!;
  }
  if (row.place !== null && row.place <= admittedUpTo(queue.start, queue.rate, now)) {
    const admitted = await markAdmitted(ctx.db, row.id, now);
    const exp = admitted.getTime() + PASS_MS;
    return { kind: 'admitted', pass: `${exp}.${await sign(ctx, event.id, visitor, exp)}`, expires: new Date(exp), ...fresh };
  }
  const allowed = admittedUpTo(queue.start, queue.rate, now);
  return {
    kind: 'waiting',
    ...(row.place !== null ? { placeToken: await signPlace(ctx, event.id, visitor, row.place) } : {}),
    start: queue.start,
    place: row.place,
    ahead: row.place === null ? 0 : Math.max(0, row.place - allowed - 1),
    waitSeconds:
      row.place === null
        ? Math.max(0, Math.ceil((queue.start.getTime() - now.getTime()) / 1000))
        : waitSeconds(row.place, queue.start, queue.rate, now),
    ...fresh,
  };
}

/**
 * The queue page's poll: the same answer without admitting anyone or creating a visitor. A
 * browser whose place is known carries it signed (`placeCookie`): then nothing is read from the
 * database, which is what lets one instance answer tens of thousands of waiting browsers. The
 * page itself always asks the database before letting anyone in.
 */
export async function queueStatus(ctx: AppContext, event: QueuedEvent, visitor: string | undefined, placeToken?: string) {
  const now = ctx.clock.now();
  const queue = runningQueue(event, now);
  if (!queue) return { state: 'open' as const };
  if (!visitor || !VISITOR.test(visitor)) return { state: 'unknown' as const };
  let place = await placeOf(ctx, event.id, visitor, placeToken);
  let token: string | undefined;
  if (place === null) {
    const hash = hashOf(visitor);
    let row = await findVisitor(ctx.db, event.id, hash);
    if (!row) return { state: 'unknown' as const };
    if (row.place === null && now >= queue.start) row = await arrive(ctx.db, event.id, hash, queue.start, now);
    if (row.place === null)
      return {
        state: 'before_start' as const,
        wait_seconds: Math.max(0, Math.ceil((queue.start.getTime() - now.getTime()) / 1000)),
      };
    place = row.place;
    token = await signPlace(ctx, event.id, visitor, place);
  }
  const allowed = admittedUpTo(queue.start, queue.rate, now);
  const signed = token ? { placeToken: token } : {};
  if (place <= allowed) return { state: 'admitted' as const, place, ...signed };
  return {
    state: 'waiting' as const,
    place,
    ahead: place - allowed - 1,
    wait_seconds: waitSeconds(place, queue.start, queue.rate, now),
    ...signed,
  };
}

/** Whether the browser checkout must see a pass now. */
export const queueRuns = (event: QueuedEvent, now: Date) => runningQueue(event, now) !== null;
