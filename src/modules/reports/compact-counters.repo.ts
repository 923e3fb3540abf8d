import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { Job } from '../../platform/jobs/jobs.ts';

const TWO_DAYS_MS = 2 * 86_400_000;
const BATCH = 20_000;

/**
 * Folds the write shards of the report counters (migrations 0009 and 0021) that started more
 * than two days ago into shard 0: shards only matter while orders and payments still land in a
 * day or quarter, and every extra row is read by the reports. Totals do not change. Rows are
 * claimed with SKIP LOCKED, so several instances can run it at once; a late writer's upsert
 * waits for the row and then inserts anew. Returns the larger of the two tables' rows folded.
 */
export async function compactReportCounters(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - TWO_DAYS_MS);
  const income = await sql<{ folded: number }>`
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
  const report = await sql<{ folded: number }>`
    with moved as (
      delete from order_report_counters d
      where (d.event_id, d.stamp, d.grain, d.at, d.currency, d.status, d.audience_id, d.codes_key, d.took_money, d.shard) in (
        select c.event_id, c.stamp, c.grain, c.at, c.currency, c.status, c.audience_id, c.codes_key, c.took_money, c.shard
        from order_report_counters c
        where c.shard <> 0 and c.at < ${cutoff}
        order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 limit ${BATCH} for update skip locked)
      returning d.*)
    select count(*)::int as folded, admit_add_order_figures((
      select jsonb_agg(m) from (
        select event_id, stamp, grain, at, currency, status, audience_id, codes_key, took_money, 0 as shard, orders, units,
          gross_cents, discount_cents, refund_cents from moved) m)) as done
    from moved`.execute(db);
  return Math.max(income.rows[0]?.folded ?? 0, report.rows[0]?.folded ?? 0);
}

export const counterCompactor: Job = {
  name: 'compact-report-counters',
  every: 10 * 60_000,
  async run(ctx) {
    while ((await compactReportCounters(ctx.db, ctx.clock.now())) === BATCH);
  },
};
