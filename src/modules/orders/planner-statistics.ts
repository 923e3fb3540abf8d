import { refreshGrownStatistics } from '../../platform/db/statistics.ts';
import type { Job } from '../../platform/jobs/jobs.ts';

/** The tables a sale fills row by row, whose figures must keep up with them. */
export const GROWING_TABLES = ['orders', 'order_lines', 'order_log', 'order_discounts', 'tickets', 'payments'] as const;

export const plannerStatistics: Job = {
  name: 'planner-statistics',
  every: 1_000,
  run: (ctx) => refreshGrownStatistics(ctx.db, GROWING_TABLES),
};
