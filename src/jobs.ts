import type { Job } from './platform/jobs/jobs.ts';
import { catalogueFeed } from './platform/cache-feed.ts';
import { outboxJob } from './platform/jobs/outbox-dispatcher.ts';
import { holdSweeper } from './modules/orders/orders.service.ts';
import { plannerStatistics } from './modules/orders/planner-statistics.ts';
import { outboxHandlers } from './outbox-handlers.ts';
import { feeFiller } from './modules/payments/payments.service.ts';
import { refundReconciler } from './modules/refunds/refund-order.service.ts';
import { counterCompactor } from './modules/reports/compact-counters.repo.ts';
import { webhookJob } from './modules/webhooks/delivery.service.ts';
import { waitlistJob } from './modules/waitlist/offer.service.ts';
import { messagesJob } from './modules/messages/messages.service.ts';

/**
 * Every periodic job of the service. Each must be safe when several instances run it at once
 * (claim work with row locks or SKIP LOCKED).
 */
export const allJobs: Job[] = [
  catalogueFeed,
  holdSweeper,
  outboxJob(outboxHandlers),
  feeFiller,
  refundReconciler,
  counterCompactor,
  webhookJob,
  plannerStatistics,
  waitlistJob,
  messagesJob,
];
