import { inReportSnapshot, type AppContext } from '../../platform/context.ts';
import type { Principal } from '../../platform/http/auth.ts';
import { canSeeEvent } from '../../platform/http/auth.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { iso } from '../../platform/time.ts';
import { findEventBySlug } from '../events/events.repo.ts';
import { loadVisibleEvent } from '../events/events.service.ts';
import { availabilityReport, type AvailabilityReport } from './availability.repo.ts';
import { incomeReport, type IncomeReport } from './income.service.ts';
import { ordersReport, type OrdersReport, type ReportQuery } from './orders-report.service.ts';
import { resolveRange } from '../../platform/date-range.ts';

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

export async function getIncome(ctx: AppContext, p: Principal, slug: string, q: ReportQuery): Promise<IncomeReport> {
  const event = await loadVisibleEvent(ctx, p, slug);
  const now = ctx.clock.now();
  const range = resolveRange({ range: one(q.range), from: one(q.from), to: one(q.to) }, now, event.timezone);
  return inReportSnapshot(ctx, (db) => incomeReport(db, event, range, one(q.on) === 'started' ? 'started' : 'paid', now));
}

export async function getAvailability(ctx: AppContext, p: Principal, slug: string): Promise<AvailabilityReport> {
  const event = await loadVisibleEvent(ctx, p, slug);
  return inReportSnapshot(ctx, (db) => availabilityReport(db, event, ctx.clock.now(), p.scopes.has('invitations.view')));
}

export async function getOrdersReport(ctx: AppContext, p: Principal, slug: string, q: ReportQuery): Promise<OrdersReport> {
  const event = await loadVisibleEvent(ctx, p, slug);
  return inReportSnapshot(ctx, (db) => ordersReport(db, event, q, ctx.clock.now()));
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

/** The orders report's parameters a saved report keeps (anything else in a query is dropped). */
const SAVED_KEYS = ['group', 'range', 'from', 'to', 'on', 'status', 'audience', 'code', 'paid', 'currency'] as const;

/** A query string of the orders report's own parameters, in a fixed order, empty values left out. */
export function reportQueryString(q: ReportQuery): string {
  const out = new URLSearchParams();
  for (const k of SAVED_KEYS) {
    const v = one(q[k]);
    if (v) out.set(k, v.slice(0, 200));
  }
  return out.toString();
}

/**
 * Saves the orders report's current parameters under a name (the console's "Save this report").
 * Names are unique per event: the event configuration matches saved reports by name.
 */
export async function saveReport(ctx: AppContext, p: Principal, slug: string, name: string, q: ReportQuery) {
  const event = await loadVisibleEvent(ctx, p, slug);
  const clean = name.trim();
  const invalid = (msg: string) => new AppError('unprocessable', 'validation_failed', msg, { fields: { name: [msg] } });
  if (!clean) throw invalid('must not be blank');
  if (clean.length > 100) throw invalid('must be at most 100 characters');
  return ctx.db.transaction().execute(async (trx) => {
    // one writer per event at a time, so two saves of one name cannot both pass the check
    await trx.selectFrom('events').select('id').where('id', '=', event.id).forUpdate().executeTakeFirst();
    const taken = await trx
      .selectFrom('saved_reports')
      .select('id')
      .where('event_id', '=', event.id)
      .where('name', '=', clean)
      .executeTakeFirst();
    if (taken) throw invalid('is already the name of a saved report of this event');
    return trx
      .insertInto('saved_reports')
      .values({
        account_id: p.accountId,
        event_id: event.id,
        name: clean,
        query: reportQueryString(q),
        created_at: ctx.clock.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  });
}

export async function deleteSavedReport(ctx: AppContext, p: Principal, slug: string, id: number): Promise<void> {
  const event = await loadVisibleEvent(ctx, p, slug);
  const gone = await ctx.db
    .deleteFrom('saved_reports')
    .where('id', '=', id)
    .where('event_id', '=', event.id)
    .where('account_id', '=', p.accountId)
    .executeTakeFirst();
  if (!gone.numDeletedRows) throw notFound('No such saved report');
}
