import { sql } from 'kysely';
import { changeFeedOf, clearFollowedCaches, FEED_GRACE_MS, forgetAccounts } from './cache.ts';
import type { Db } from './db/database.ts';
import type { Job } from './jobs/job.ts';

/**
 * Polls for the accounts whose catalogue other transactions changed (migration 0037) and forgets
 * what the followed caches hold of them; each successful poll keeps the feed live, and with it the
 * caches' long keeping, for FEED_GRACE_MS. The rule is the door sync's: a poll reads the accounts
 * marked by transactions at or after the oldest one still running when the last poll looked
 * (pg_snapshot_xmin), so a transaction that commits late, after a younger one was seen, is still
 * read. A poll is one indexed statement and needs no session (it works through PgBouncer).
 *
 * The first poll forgets everything: what was cached before it was kept for the short time only,
 * and a change committed before it is not in its range. A failed poll leaves the feed dead (the
 * caches keep their entries for the short time again) and keeps the range, so the next poll that
 * succeeds reads what changed meanwhile.
 */
export async function pollCatalogueChanges(db: Db): Promise<{ accounts: number }> {
  const feed = changeFeedOf(db);
  const sent = performance.now();
  try {
    const { rows } = await sql<{ xmin: string; accounts: Array<number | string> | null }>`
      select pg_snapshot_xmin(pg_current_snapshot())::text as xmin,
        (select array_agg(account_id) from catalogue_versions where changed_xid >= ${feed.xmin ?? '0'}::xid8) as accounts`.execute(
      db,
    );
    const row = rows[0]!;
    const accounts = row.accounts ?? [];
    if (feed.xmin === null) clearFollowedCaches(db);
    else forgetAccounts(db, accounts);
    feed.xmin = row.xmin;
    feed.liveUntil = sent + FEED_GRACE_MS;
    return { accounts: accounts.length };
  } catch (err) {
    feed.liveUntil = 0;
    throw err;
  }
}

/** Four polls a second: another instance's change to a catalogue is seen within about 250 ms. */
export const catalogueFeed: Job = {
  name: 'catalogue-feed',
  every: 250,
  run: (ctx) => pollCatalogueChanges(ctx.db),
};
