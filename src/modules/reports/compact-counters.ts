import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { Job } from '../../platform/jobs/jobs.ts';

const TWO_DAYS_MS = 2 * 86_400_000;
const BATCH = 20_000;

/**
 * Folds the write shards of income counters (migration 0009) that started more than two days
 * ago into shard 0: shards only matter while payments still land in a day or quarter, and
 * every extra row is read by the income reports. Totals do not change. Rows are claimed with SKIP LOCKED, so several
 * instances can run it at once; a late writer's upsert waits for the row and then inserts
 * anew. Returns the rows folded.
 */
export async function compactIncomeCounters(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - TWO_DAYS_MS);
  const r = await sql<{ folded: number }>`
    with moved as (
      delete from income_counters d
      where (d.event_id, d.stamp, d.grain, d.at, d.codes_key, d.shard) in (
        select c.event_id, c.stamp, c.grain, c.at, c.codes_key, c.shard from income_counters c
        where c.shard <> 0 and c.at < ${cutoff}
        order by 1, 2, 3, 4, 5, 6 limit ${BATCH} for update skip locked)
      returning d.*)
    select count(*)::int as folded, admit_add_income((
      select jsonb_agg(m) from (
        select event_id, stamp, grain, at, codes_key, 0 as shard, orders, gross_cents, discount_cents, refund_cents,
          refunded_orders, tax_cents, fees_cents, platform_fee_cents, unpriced_payments, units from moved) m)) as done
    from moved`.execute(db);
  return r.rows[0]?.folded ?? 0;
}

export const counterCompactor: Job = {
  name: 'compact-report-counters',
  every: 10 * 60_000,
  async run(ctx) {
    while ((await compactIncomeCounters(ctx.db, ctx.clock.now())) === BATCH);
  },
};
