import type { Db } from '../db/database.ts';

/** Kinds of outbox messages; the dispatcher (platform/jobs/outbox-dispatcher.ts) handles each. */
export type OutboxKind = 'mail.tickets' | 'mail.refund' | 'mail.late_payment' | (string & {});

/**
 * Records a side effect in the caller's transaction. It leaves the building only after commit,
 * when a dispatcher on any instance claims it; a rolled-back change never sends anything.
 */
export async function enqueue(
  db: Db,
  msg: { accountId: number | null; kind: OutboxKind; payload: Record<string, unknown> },
): Promise<void> {
  await db
    .insertInto('outbox')
    .values({ account_id: msg.accountId, kind: msg.kind, payload: JSON.stringify(msg.payload) })
    .execute();
}

/** The latest mail messages in the outbox, newest first, whatever their state (the development mail viewer). */
export function listRecentMail(db: Db, limit: number) {
  return db
    .selectFrom('outbox')
    .select(['id', 'kind', 'payload', 'status', 'created_at'])
    .where('kind', 'like', 'mail.%')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
