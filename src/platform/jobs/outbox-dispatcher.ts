import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import type { Job } from './jobs.ts';
import { mailerFor, type MailMessage } from '../mail/mailer.ts';

/**
 * What to do with one outbox message. A mail handler returns the message to send (null: nothing
 * to send any more); an action handler does its work and returns nothing.
 */
export type OutboxHandler =
  | { type: 'mail'; render(ctx: AppContext, payload: Record<string, unknown>): Promise<MailMessage | null>; once?: OnceGuard }
  | { type: 'action'; run(ctx: AppContext, payload: Record<string, unknown>): Promise<void> };

/**
 * A mail that must go at most once per key of its own (a message to one order), beyond the
 * outbox's at-least-once: `done` says it went already (the repeat sends nothing), `sent` records
 * that it went, right after the send; `failed` records that the outbox gave up on it. Only a crash
 * between the send and `sent` repeats it, with the same Message-ID (receivers drop the repeat).
 */
export interface OnceGuard {
  done(ctx: AppContext, payload: Record<string, unknown>): Promise<boolean>;
  sent(ctx: AppContext, payload: Record<string, unknown>): Promise<void>;
  failed(ctx: AppContext, payload: Record<string, unknown>, error: string): Promise<void>;
}

/**
 * A claim lasts LEASE_MS; one message's work is cut off after WORK_MS (a send that hangs past it
 * counts as failed and is retried), and a message is only started while at least WORK_MS of the
 * claim is left, so no message is worked on past its lease. An instance that dies holding a claim
 * leaves its messages to the others one lease later.
 */
const LEASE_MS = 60_000;
const WORK_MS = 25_000;
const MAX_ATTEMPTS = 10;
const BATCH = 20;

export function backoffMs(attempts: number): number {
  return Math.min(60 * 60_000, 5_000 * 2 ** Math.max(0, attempts - 1));
}

/**
 * Claims due messages with SKIP LOCKED and a lease (next_attempt_at pushed past the work), commits
 * the claim, does the work, then marks the row sent. Any number of instances can run this. A crash
 * after sending but before marking re-sends once the lease ends: delivery is at-least-once, and
 * every mail carries a Message-ID derived from its outbox id so receivers can drop the repeat.
 */
export async function dispatchOutbox(
  ctx: AppContext,
  handlers: Record<string, OutboxHandler>,
  limits: { leaseMs: number; workMs: number } = { leaseMs: LEASE_MS, workMs: WORK_MS },
): Promise<number> {
  const now = ctx.clock.now();
  const claimed = await ctx.db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('outbox')
      .select(['id', 'kind', 'payload', 'attempts'])
      .where('status', '=', 'pending')
      // never tried: due at once (whatever clock wrote it); retried: due after its backoff or lease
      .where((eb) => eb.or([eb('attempts', '=', 0), eb('next_attempt_at', '<=', now)]))
      .orderBy('id')
      .limit(BATCH)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length) {
      await trx
        .updateTable('outbox')
        .set({ attempts: sql`attempts + 1`, next_attempt_at: new Date(now.getTime() + limits.leaseMs) })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
    }
    return rows;
  });
  const mailer = mailerFor(ctx.config);
  const claimedAt = Date.now();
  for (const [n, row] of claimed.entries()) {
    if (Date.now() - claimedAt > limits.leaseMs - limits.workMs) {
      // too little of the claim left: hand the rest back untouched for the next run
      await ctx.db
        .updateTable('outbox')
        .set({ attempts: sql`attempts - 1`, next_attempt_at: ctx.clock.now() })
        .where(
          'id',
          'in',
          claimed.slice(n).map((r) => r.id),
        )
        .execute();
      return n;
    }
    const handler = handlers[row.kind];
    try {
      if (!handler) throw new Error(`no handler for outbox kind ${row.kind}`);
      await withDeadline(limits.workMs, async () => {
        if (handler.type === 'mail') {
          if (handler.once && (await handler.once.done(ctx, row.payload))) return;
          const msg = await handler.render(ctx, row.payload);
          if (msg) {
            if (!mailer.delivers && ctx.config.production) throw new Error('SMTP_URL is not configured');
            await mailer.send({ ...msg, messageId: `<outbox-${row.id}@admit>` });
            await handler.once?.sent(ctx, row.payload);
          } else await handler.once?.failed(ctx, row.payload, 'nothing to send');
        } else {
          await handler.run(ctx, row.payload);
        }
      });
      await ctx.db
        .updateTable('outbox')
        .set({ status: 'sent', sent_at: ctx.clock.now(), last_error: null })
        .where('id', '=', row.id)
        .execute();
    } catch (err) {
      const attempts = row.attempts + 1;
      const failed = attempts >= MAX_ATTEMPTS;
      if (failed && handler?.type === 'mail' && handler.once) {
        await handler.once.failed(ctx, row.payload, String((err as Error).message ?? err)).catch(() => undefined);
      }
      await ctx.db
        .updateTable('outbox')
        .set({
          status: failed ? 'failed' : 'pending',
          last_error: String((err as Error).message ?? err).slice(0, 500),
          next_attempt_at: new Date(ctx.clock.now().getTime() + backoffMs(attempts)),
        })
        .where('id', '=', row.id)
        .execute();
      ctx.log.warn(
        { outbox: row.id, kind: row.kind, attempts, err: (err as Error).message },
        failed ? 'outbox message failed for good' : 'outbox message will be retried',
      );
    }
  }
  return claimed.length;
}

async function withDeadline(ms: number, work: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      work(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`gave up after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function outboxJob(handlers: Record<string, OutboxHandler>): Job {
  return {
    name: 'outbox',
    every: 2_000,
    async run(ctx) {
      let total = 0;
      for (let n = await dispatchOutbox(ctx, handlers); n > 0; n = await dispatchOutbox(ctx, handlers)) {
        total += n;
        if (total > 1000) break;
      }
      return total;
    },
  };
}
