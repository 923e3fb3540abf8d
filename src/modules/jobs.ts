import type { Job } from '../platform/jobs/jobs.ts';
import { holdSweeper } from './orders/orders.service.ts';

/**
 * Every periodic job of the service. Each must be safe when several instances run it at once
 * (claim work with row locks or SKIP LOCKED).
 */
export const allJobs: Job[] = [holdSweeper];
