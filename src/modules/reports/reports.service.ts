import type { AppContext } from '../../platform/context.ts';
import type { Principal } from '../../platform/http/auth.ts';
import { canSeeEvent } from '../../platform/http/auth.ts';
import { iso } from '../../platform/time.ts';
import { findEventBySlug } from '../events/events.repo.ts';
import { loadVisibleEvent } from '../events/events.service.ts';
import { availabilityReport, type AvailabilityReport } from './availability.ts';
import { incomeReport, type IncomeReport } from './income.ts';
import { ordersReport, type OrdersReport, type ReportQuery } from './orders-report.ts';
import { resolveRange } from './range.ts';

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

export async function getIncome(ctx: AppContext, p: Principal, slug: string, q: ReportQuery): Promise<IncomeReport> {
  const event = await loadVisibleEvent(ctx, p, slug);
  const now = ctx.clock.now();
  const range = resolveRange({ range: one(q.range), from: one(q.from), to: one(q.to) }, now, event.timezone);
  return incomeReport(ctx.db, event, range, one(q.on) === 'started' ? 'started' : 'paid', now);
}

export async function getAvailability(ctx: AppContext, p: Principal, slug: string): Promise<AvailabilityReport> {
  const event = await loadVisibleEvent(ctx, p, slug);
  return availabilityReport(ctx.db, event, ctx.clock.now(), p.scopes.has('invitations.view'));
}

export async function getOrdersReport(ctx: AppContext, p: Principal, slug: string, q: ReportQuery): Promise<OrdersReport> {
  const event = await loadVisibleEvent(ctx, p, slug);
  return ordersReport(ctx.db, event, q, ctx.clock.now());
}

/** Saved reports, oldest first; `[]` for an unknown event (the spec lists no 404 here). */
export async function getSavedReports(ctx: AppContext, p: Principal, slug: string) {
  if (!canSeeEvent(p, slug)) return [];
  const event = await findEventBySlug(ctx.db, p.accountId, slug);
  if (!event) return [];
  const rows = await ctx.db
    .selectFrom('saved_reports')
    .select(['id', 'name', 'query', 'created_at'])
    .where('account_id', '=', p.accountId)
    .where('event_id', '=', event.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, query: r.query, created_at: iso(r.created_at) }));
}
