import { sql } from 'kysely';
import { changeFeedOf, clearFollowedCaches, FEED_GRACE_MS, forgetAccounts } from './cache.ts';
import type { Db } from './db/database.ts';
import type { Job } from './jobs/job.ts';

/**
 * Polls for the accounts whose catalogue or tokens other transactions changed (migrations 0037 and
 * 0038) and forgets what the followed caches hold of them; each successful poll keeps the feed
 * live, and with it the caches' long keeping, for FEED_GRACE_MS. The rule is the door sync's: a
 * poll reads the accounts marked by transactions at or after the oldest one still running when the
 * last poll looked (pg_snapshot_xmin), so a transaction that commits late, after a younger one was
 * seen, is still read. A poll is one indexed statement and needs no session (it works through
 * PgBouncer).
 *
 * A transaction open anywhere in the cluster (a long report, a dump) holds that range back, so the
 * same marks come back poll after poll: an account is forgotten again only when its mark names
 * another transaction than the one last forgotten.
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
    const { rows } = await sql<{ xmin: string; marks: Array<[string, string]> | null }>`
      select pg_snapshot_xmin(pg_current_snapshot())::text as xmin,
        (select json_agg(json_build_array(account_id::text, changed_xid::text)) from catalogue_versions
          where changed_xid >= ${feed.xmin ?? '0'}::xid8) as marks`.execute(db);
    const row = rows[0]!;
    const accounts = (row.marks ?? []).filter(([account, xid]) => feed.seen.get(account) !== xid);
    for (const [account, xid] of accounts) feed.seen.set(account, xid);
    const changed = accounts.map(([account]) => account);
    if (feed.xmin === null) clearFollowedCaches(db);
    else forgetAccounts(db, changed);
    // marks older than every running transaction are out of the next poll's range
    const xmin = BigInt(row.xmin);
    for (const [account, xid] of feed.seen) if (BigInt(xid) < xmin) feed.seen.delete(account);
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
