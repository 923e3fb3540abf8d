import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/auth.ts';
import { iso } from '../../platform/time.ts';
import { orderNamesAndStatuses, ticketSeatJson, type SeatView } from '../orders/orders.repo.ts';
import { loadList, onList } from './checkin.service.ts';

/**
 * Offline check-in (contract section 9): a scanner downloads a list's tickets and then only what
 * changed, scans without a network, and uploads its scans later.
 */

export interface SyncTicket {
  id: number;
  reference: string;
  ticket_type: string;
  ticket_type_slug: string;
  attendee_name: string;
  seat: SeatView | null;
  qr_sha256: string;
  status: 'valid' | 'void';
  checked_in_at: string | null;
}

const SYNC_DEFAULT = 500;
const SYNC_MAX = 5000;

/** The cursor, opaque to clients: where the settled rows end (transaction, ticket id). */
interface Position {
  xid: string;
  id: number;
}

function encodeCursor(c: Position): string {
  return Buffer.from(`${c.xid}.${c.id}`, 'utf8').toString('base64url');
}

function decodeCursor(raw: string): Position {
  const m = raw.length <= 60 ? /^(\d{1,20})\.(\d{1,18})$/.exec(Buffer.from(raw, 'base64url').toString('utf8')) : null;
  if (!m)
    throw new AppError('unprocessable', 'validation_failed', 'The cursor is not one this server gave out', {
      fields: { cursor: ['must be a next_cursor from an earlier sync'] },
    });
  return { xid: m[1]!, id: Number(m[2]) };
}

function limitOf(raw: unknown): number {
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : typeof raw === 'number' ? raw : NaN;
  if (!Number.isInteger(n) || n < 1) return SYNC_DEFAULT;
  return Math.min(n, SYNC_MAX);
}

export async function syncList(
  ctx: AppContext,
  p: Principal,
  eventSlug: string,
  listId: string,
  query: { cursor?: unknown; limit?: unknown },
): Promise<{ tickets: SyncTicket[]; next_cursor: string; has_more: boolean }> {
  const list = await loadList(ctx, p, eventSlug, listId);
  const from: Position =
    typeof query.cursor === 'string' && query.cursor !== '' ? decodeCursor(query.cursor) : { xid: '0', id: 0 };
  const limit = limitOf(query.limit);
  const types = list.ticket_type_ids?.map(Number) ?? null;
  // The cursor only moves over rows written by transactions older than every one still running
  // (xmin): a change committing later always has a larger sync_xid than anything
  // behind the cursor, so nothing is lost whatever the commit order. The last page adds, as far as
  // it has room, what is already committed beyond xmin (the tail), without moving the cursor: it
  // comes again until the older transactions have ended (a scanner overwrites by id), so a change
  // is not held back by a slow transaction elsewhere.
  // Transaction ids are cluster-wide: transactions known to run in other databases cannot write
  // here, so they do not hold the cursor back (one whose database is not known still does).
  const xmin = (
    await sql<{ x: string }>`
      select coalesce(
          (select min(x) from pg_snapshot_xip(snap.s) as x
            where x::xid not in (
              select a.backend_xid from pg_stat_activity a
              where a.backend_xid is not null and a.datname is distinct from current_database())),
          pg_snapshot_xmax(snap.s))::text as x
      from (select pg_current_snapshot() as s) snap`.execute(ctx.db)
  ).rows[0]!.x;
  // The page's tickets are one range of tickets_sync_cover (event, transaction, id, and what the
  // sync reads of a ticket: an index-only scan that stops at the page's end), then joined with their
  // type. Asked as one query, the planner may take the event's tickets by another index and sort
  // them all for every page, which it does whenever it guesses the event small: at 10,000 tickets
  // that read every ticket and its order three times for three pages. Their orders are read after,
  // all at once (orderNamesAndStatuses): the index-only scan and the orders' prefetched bitmap scan
  // need opposite plans.
  const select = (from: Position, where: ReturnType<typeof sql>, n: number) =>
    sql<SyncRow>`
    with page as materialized (
      select t.id, t.sync_xid, t.account_id, t.event_id, t.order_id, t.ticket_type_id, t.status, t.ref, t.qr_token,
        t.attendee_name, t.seat_guid
      from tickets t
      where t.event_id = ${list.event_id}
        ${types ? sql`and t.ticket_type_id = any(${sql.val(types)}::bigint[])` : sql``}
        and (t.sync_xid, t.id) > (${from.xid}::xid8, ${from.id}::bigint)
        and ${where}
      order by t.sync_xid, t.id
      limit ${n})
    select t.id, t.ref, t.order_id, t.attendee_name, t.qr_token, t.status,
      tt.name as type_name, tt.key as type_key, t.sync_xid::text as xid, ${ticketSeatJson('t')} as seat,
      (select c.created_at from checkins c
        where c.checkin_list_id = ${list.id} and c.ticket_id = t.id and not c.conflict) as checked_in_at
    from page t
      join ticket_types tt on tt.id = t.ticket_type_id
    where t.account_id = ${p.accountId}
    order by t.sync_xid, t.id`.execute(ctx.db);
  const settled = (await select(from, sql`t.sync_xid < ${xmin}::xid8`, limit + 1)).rows;
  const hasMore = settled.length > limit;
  const page = settled.slice(0, limit);
  const last = page.at(-1);
  const boundary: Position = last ? { xid: last.xid, id: Number(last.id) } : from;
  // the last page: what is committed beyond xmin, as much as fits (the rest comes once xmin moves)
  const tail = hasMore ? [] : (await select(boundary, sql`t.sync_xid >= ${xmin}::xid8`, limit - page.length)).rows;
  const rows = [...page, ...tail];
  const orders = await orderNamesAndStatuses(
    ctx.db,
    p.accountId,
    rows.map((t) => Number(t.order_id)),
  );
  return {
    tickets: rows.map((t) => {
      // a ticket's order is never deleted (a foreign key), and both were read in one account
      const order = orders.get(Number(t.order_id))!;
      return {
        id: Number(t.id),
        reference: t.ref,
        ticket_type: t.type_name,
        ticket_type_slug: t.type_key,
        attendee_name: t.attendee_name ?? order.name ?? '',
        seat: t.seat,
        qr_sha256: createHash('sha256').update(t.qr_token, 'utf8').digest('hex'),
        status: t.status === 'valid' && order.status === 'paid' ? 'valid' : 'void',
        checked_in_at: t.checked_in_at ? iso(t.checked_in_at) : null,
      };
    }),
    next_cursor: encodeCursor(boundary),
    has_more: hasMore,
  };
}

interface SyncRow {
  id: string | number;
  ref: string;
  order_id: string | number;
  attendee_name: string | null;
  qr_token: string;
  status: string;
  type_name: string;
  type_key: string;
  xid: string;
  seat: SeatView | null;
  checked_in_at: Date | null;
}

export interface ScanUpload {
  client_id: string;
  qr_code_identifier?: string;
  ticket_id?: number;
  scanned_at: string;
}

export interface ScanResult {
  client_id: string;
  result: 'recorded' | 'duplicate_upload' | 'unknown_ticket';
  checkin_id: number | null;
  conflict: boolean;
  reason: 'already_checked_in' | 'not_checkable' | null;
  first_checked_in_at: string | null;
}

interface TicketRow {
  id: number;
  qr_token: string;
  event_id: number;
  ticket_type_id: number;
  status: string;
  order_status: string;
}

/** A scan time a device could have had: not before 2000, not more than a day ahead of the server. */
function scannedAtOf(ctx: AppContext, scans: ScanUpload[]): Date[] {
  const fields: Record<string, string[]> = {};
  const latest = ctx.clock.now().getTime() + 24 * 3600_000;
  const out = scans.map((s, i) => {
    const d = new Date(s.scanned_at);
    if (Number.isNaN(d.getTime()) || d.getTime() < Date.UTC(2000, 0, 1) || d.getTime() > latest)
      fields[`checkins/${i}/scanned_at`] = ['must be the time of the scan (ISO 8601), not more than a day ahead'];
    if ((s.qr_code_identifier === undefined) === (s.ticket_id === undefined))
      fields[`checkins/${i}`] = ['give either qr_code_identifier or ticket_id'];
    return d;
  });
  if (Object.keys(fields).length)
    throw new AppError('unprocessable', 'validation_failed', 'Some scans are not valid', { fields });
  return out;
}

/**
 * Records a device's scans. Idempotent per device and client_id. Every scan is kept with its own
 * time; per ticket the earliest scan is the admission and every other scan a conflict (already
 * checked in), including an admission already recorded when an earlier offline scan arrives
 * late; a scan of a ticket that cannot be admitted is a conflict (not checkable). The tickets
 * are locked in id order, so online check-ins and other uploads of the same tickets wait.
 */
export async function uploadScans(
  ctx: AppContext,
  p: Principal,
  eventSlug: string,
  listId: string,
  body: { device: string; checkins: ScanUpload[] },
): Promise<{ results: ScanResult[] }> {
  const list = await loadList(ctx, p, eventSlug, listId);
  const times = scannedAtOf(ctx, body.checkins);
  const run = () => ctx.db.transaction().execute((trx) => record(ctx, trx, p, list, body, times));
  try {
    return await run();
  } catch (err) {
    // a deadlock with an online check-in of the same tickets: the whole upload once more
    if ((err as { code?: string }).code === '40P01') return run();
    throw err;
  }
}

/** A scan of this upload to record; `reason` null: the admission (so far). */
interface FreshScan {
  i: number;
  ticket: TicketRow;
  at: Date;
  reason: ScanResult['reason'];
}

/** A ticket's admission on the list: a recorded check-in, or a scan of this upload. */
type Admission = { at: Date; id: number; scan?: undefined } | { at: Date; scan: FreshScan; id?: undefined };

async function record(
  ctx: AppContext,
  trx: Db,
  p: Principal,
  list: Awaited<ReturnType<typeof loadList>>,
  body: { device: string; checkins: ScanUpload[] },
  times: Date[],
): Promise<{ results: ScanResult[] }> {
  const scans = body.checkins;
  const tokens = [...new Set(scans.flatMap((s) => (s.qr_code_identifier === undefined ? [] : [s.qr_code_identifier])))];
  const ids = [...new Set(scans.flatMap((s) => (s.ticket_id === undefined ? [] : [s.ticket_id])))];
  // the tickets, locked in id order
  const tickets = (
    await sql<TicketRow>`
      select t.id, t.qr_token, t.event_id, t.ticket_type_id, t.status, o.status as order_status
      from tickets t join orders o on o.id = t.order_id
      where t.account_id = ${p.accountId}
        and (t.qr_token = any(${sql.val(tokens)}::text[]) or t.id = any(${sql.val(ids)}::bigint[]))
      order by t.id
      for update of t`.execute(trx)
  ).rows.map((t) => ({ ...t, id: Number(t.id), event_id: Number(t.event_id), ticket_type_id: Number(t.ticket_type_id) }));
  const byToken = new Map(tickets.map((t) => [t.qr_token, t]));
  const byId = new Map(tickets.map((t) => [t.id, t]));
  const ticketOf = (s: ScanUpload) =>
    s.qr_code_identifier !== undefined ? byToken.get(s.qr_code_identifier) : byId.get(s.ticket_id!);

  const clientIds = [...new Set(scans.map((s) => s.client_id))];
  const earlier = await trx
    .selectFrom('checkins')
    .select(['id', 'client_id', 'ticket_id', 'conflict', 'reason'])
    .where('account_id', '=', p.accountId)
    .where('device', '=', body.device)
    .where('client_id', 'in', clientIds)
    .execute();
  const uploaded = new Map(earlier.map((c) => [c.client_id!, c]));
  const ticketIds = tickets.map((t) => t.id);
  const admissions = new Map(
    (ticketIds.length
      ? await trx
          .selectFrom('checkins')
          .select(['id', 'ticket_id', 'created_at'])
          .where('checkin_list_id', '=', list.id)
          .where('conflict', '=', false)
          .where('ticket_id', 'in', ticketIds)
          .execute()
      : []
    ).map((c): [number, Admission] => [Number(c.ticket_id), { at: c.created_at, id: Number(c.id) }]),
  );

  // the new scans, earliest first: each ticket's earliest is its admission
  const fresh: FreshScan[] = [];
  const seen = new Set<string>();
  scans.forEach((s, i) => {
    if (uploaded.has(s.client_id) || seen.has(s.client_id)) return;
    const t = ticketOf(s);
    if (!t) return;
    seen.add(s.client_id);
    const checkable =
      t.event_id === Number(list.event_id) && t.status === 'valid' && t.order_status === 'paid' && onList(list, t.ticket_type_id);
    fresh.push({ i, ticket: t, at: times[i]!, reason: checkable ? null : 'not_checkable' });
  });
  fresh.sort((a, b) => a.at.getTime() - b.at.getTime() || a.i - b.i);
  const demoted = new Set<number>();
  let admitted = 0;
  for (const f of fresh) {
    if (f.reason) continue;
    const current = admissions.get(f.ticket.id);
    if (!current) {
      admissions.set(f.ticket.id, { at: f.at, scan: f });
      admitted++;
    } else if (f.at < current.at) {
      // an earlier scan arrived late: it is the admission, the recorded one becomes a conflict
      if (current.scan) current.scan.reason = 'already_checked_in';
      else demoted.add(current.id);
      admissions.set(f.ticket.id, { at: f.at, scan: f });
    } else {
      f.reason = 'already_checked_in';
    }
  }
  const now = ctx.clock.now();
  if (demoted.size) {
    await trx
      .updateTable('checkins')
      .set({ conflict: true, reason: 'already_checked_in' })
      .where('id', 'in', [...demoted])
      .execute();
  }
  const inserted = fresh.length
    ? await trx
        .insertInto('checkins')
        .values(
          fresh.map((f) => ({
            account_id: p.accountId,
            checkin_list_id: list.id,
            ticket_id: f.ticket.id,
            qr_code_scanned: scans[f.i]!.qr_code_identifier !== undefined,
            online: false,
            created_at: f.at,
            device: body.device,
            client_id: scans[f.i]!.client_id,
            conflict: f.reason !== null,
            reason: f.reason,
            uploaded_at: now,
          })),
        )
        .returning(['id', 'client_id'])
        .execute()
    : [];
  const newIds = new Map(inserted.map((r) => [r.client_id!, Number(r.id)]));
  if (admitted) {
    await trx
      .updateTable('checkin_lists')
      .set((eb) => ({ checked_in_count: eb('checked_in_count', '+', admitted), updated_at: now }))
      .where('id', '=', list.id)
      .execute();
  }
  const freshByIndex = new Map(fresh.map((f) => [f.i, f]));
  const freshByClient = new Map(fresh.map((f) => [scans[f.i]!.client_id, f]));
  const firstAt = (ticketId: number | undefined) => {
    if (ticketId === undefined) return null;
    const a = admissions.get(ticketId);
    return a ? iso(a.at) : null;
  };
  const results = scans.map((s, i): ScanResult => {
    const f = freshByIndex.get(i);
    if (f) {
      return {
        client_id: s.client_id,
        result: 'recorded',
        checkin_id: newIds.get(s.client_id) ?? null,
        conflict: f.reason !== null,
        reason: f.reason,
        first_checked_in_at: firstAt(f.ticket.id),
      };
    }
    const before = uploaded.get(s.client_id);
    const sameBatch = freshByClient.get(s.client_id);
    if (before || sameBatch) {
      const ticketId = before ? Number(before.ticket_id) : sameBatch!.ticket.id;
      const wasDemoted = before ? demoted.has(Number(before.id)) : false;
      return {
        client_id: s.client_id,
        result: 'duplicate_upload',
        checkin_id: before ? Number(before.id) : (newIds.get(s.client_id) ?? null),
        conflict: before ? before.conflict || wasDemoted : sameBatch!.reason !== null,
        reason: before ? (wasDemoted ? 'already_checked_in' : before.reason) : sameBatch!.reason,
        first_checked_in_at: firstAt(ticketId),
      };
    }
    return {
      client_id: s.client_id,
      result: 'unknown_ticket',
      checkin_id: null,
      conflict: false,
      reason: null,
      first_checked_in_at: null,
    };
  });
  return { results };
}
