import { createHash } from 'node:crypto';
import type { AppContext } from '../../platform/context.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/auth.ts';
import { iso } from '../../platform/time.ts';
import { loadVisibleEvent } from '../events/events.service.ts';
import {
  findCheckin,
  findCheckinList,
  findOrderByQr,
  findTicketByQr,
  insertCheckin,
  listCheckableOrders,
  listCheckableTickets,
  listCheckinLists,
  listCheckins,
  lockOrder,
  lockTickets,
  orderTicketsForList,
  type CheckinListRow,
} from './checkin.repo.ts';
import { lookupModeOf, paginationMeta, parsePaging, totalPages, type PaginationMeta } from '../../platform/db/paging.ts';

export interface CheckinListView {
  id: number;
  name: string;
  checked_in_count: number;
  created_at: string;
  updated_at: string;
}

function presentList(l: CheckinListRow): CheckinListView {
  return {
    id: Number(l.id),
    name: l.name,
    checked_in_count: l.checked_in_count,
    created_at: iso(l.created_at),
    updated_at: iso(l.updated_at),
  };
}

/**
 * The URL a scanner encodes: the ticket token under /t/, an order token under /t/o/ (tokens
 * never equal "o", so the two cannot collide). The checksum is the hex SHA-256 of that URL, so
 * an offline scanner can tell a mangled read from a real one without any secret; the token
 * itself is the secret.
 */
export function qrCodeUrl(ctx: AppContext, kind: 'ticket' | 'order', token: string): string {
  return `${ctx.config.baseUrl}/t/${kind === 'order' ? 'o/' : ''}${encodeURIComponent(token)}`;
}

export function urlChecksum(url: string): string {
  return createHash('sha256').update(url, 'utf8').digest('hex');
}

/** Parses a list id from the path: anything but a positive integer is an unknown list. */
function listIdOf(raw: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw notFound('No such check-in list');
  return Number(raw);
}

export async function loadList(ctx: AppContext, p: Principal, eventSlug: string, rawId: string): Promise<CheckinListRow> {
  const event = await loadVisibleEvent(ctx, p, eventSlug);
  const list = await findCheckinList(ctx.db, p.accountId, event.id, listIdOf(rawId));
  if (!list) throw notFound('No such check-in list');
  return list;
}

export async function getCheckinLists(
  ctx: AppContext,
  p: Principal,
  eventSlug: string,
  query: { q?: unknown; page?: unknown; per_page?: unknown },
) {
  const event = await loadVisibleEvent(ctx, p, eventSlug);
  const paging = parsePaging(query);
  const q = typeof query.q === 'string' && query.q.trim() !== '' ? query.q.trim() : null;
  const { rows, count } = await listCheckinLists(ctx.db, p.accountId, event.id, q, paging.perPage, paging.offset);
  const pages = totalPages(count, paging.perPage);
  return {
    checkin_lists: rows.map(presentList),
    meta: {
      current_page: paging.page,
      next_page: paging.page < pages ? paging.page + 1 : null,
      prev_page: paging.page > 1 ? Math.min(paging.page - 1, Math.max(pages, 1)) : null,
      total_pages: pages,
      total_count: count,
    },
  };
}

export async function getCheckinList(ctx: AppContext, p: Principal, eventSlug: string, id: string) {
  return presentList(await loadList(ctx, p, eventSlug, id));
}

export async function getCheckins(ctx: AppContext, p: Principal, eventSlug: string, id: string, query: object) {
  const list = await loadList(ctx, p, eventSlug, id);
  const paging = parsePaging(query);
  const { rows, count } = await listCheckins(ctx.db, p.accountId, list.id, paging.perPage, paging.offset);
  const mode = await lookupModeOf(ctx.db, p.accountId);
  return {
    checkins: rows.map((r) => ({
      id: Number(r.id),
      ticket: { id: Number(r.ticket_id), reference: r.ticket_ref, name: r.attendee_name ?? '' },
      created_at: iso(r.created_at),
      qr_code_scanned: r.qr_code_scanned,
      online: r.online,
    })),
    meta: paginationMeta(paging, count, mode),
  };
}

export async function getCheckableOrders(ctx: AppContext, p: Principal, eventSlug: string, id: string, query: object) {
  const list = await loadList(ctx, p, eventSlug, id);
  const paging = parsePaging(query);
  const { rows, count } = await listCheckableOrders(ctx.db, p.accountId, list, paging.perPage, paging.offset);
  const meta: PaginationMeta = paginationMeta(paging, count, await lookupModeOf(ctx.db, p.accountId));
  return {
    orders: rows.map((o) => {
      const url = qrCodeUrl(ctx, 'order', o.qr_token);
      return {
        qr_code_identifier: o.qr_token,
        qr_code_url: url,
        url_checksum: urlChecksum(url),
        reference: o.ref,
        order_id: Number(o.id),
        ticket_types: o.ticket_types,
      };
    }),
    meta,
  };
}

export async function getCheckableTickets(ctx: AppContext, p: Principal, eventSlug: string, id: string, query: object) {
  const list = await loadList(ctx, p, eventSlug, id);
  const paging = parsePaging(query);
  const { rows, count } = await listCheckableTickets(ctx.db, p.accountId, list, paging.perPage, paging.offset);
  const meta = paginationMeta(paging, count, await lookupModeOf(ctx.db, p.accountId));
  return {
    tickets: rows.map((t) => {
      const url = qrCodeUrl(ctx, 'ticket', t.qr_token);
      return {
        qr_code_identifier: t.qr_token,
        qr_code_url: url,
        url_checksum: urlChecksum(url),
        reference: t.ref,
        id: Number(t.id),
        ticket_type: t.ticket_type_name,
        seat: t.seat,
      };
    }),
    meta,
  };
}

const notCheckable = (message: string) => new AppError('unprocessable', 'not_checkable', message);

const alreadyCheckedIn = (ref: string, at: Date) =>
  new AppError('conflict', 'already_checked_in', `Ticket ${ref} was already checked in to this list at ${iso(at)}`, {
    extra: { created_at: iso(at) },
  });

export function onList(list: CheckinListRow, ticketTypeId: number): boolean {
  return list.ticket_type_ids === null || list.ticket_type_ids.map(Number).includes(Number(ticketTypeId));
}

export interface ScanFlags {
  qrCodeScanned: boolean;
  online: boolean;
}

export async function checkInTicket(
  ctx: AppContext,
  p: Principal,
  eventSlug: string,
  listId: string,
  qrToken: string,
  flags: ScanFlags,
) {
  const list = await loadList(ctx, p, eventSlug, listId);
  const ticket = await findTicketByQr(ctx.db, p.accountId, qrToken);
  if (!ticket) throw notFound('No ticket with that QR code');
  if (Number(ticket.event_id) !== Number(list.event_id)) throw notCheckable(`Ticket ${ticket.ref} is for another event`);
  if (ticket.status !== 'valid' || ticket.order_status !== 'paid') throw notCheckable(`Ticket ${ticket.ref} is void`);
  if (!onList(list, ticket.ticket_type_id)) throw notCheckable(`Ticket ${ticket.ref} is not on this check-in list`);
  const at = ctx.clock.now();
  const result = await ctx.db.transaction().execute(async (trx) => {
    await lockTickets(trx, [Number(ticket.id)]);
    const inserted = await insertCheckin(trx, { accountId: p.accountId, listId: list.id, ticketId: ticket.id, ...flags, at });
    return inserted ?? { earlier: await findCheckin(trx, list.id, ticket.id) };
  });
  if ('earlier' in result) throw alreadyCheckedIn(ticket.ref, result.earlier?.created_at ?? at);
  return {
    id: Number(result.id),
    ticket_id: Number(ticket.id),
    ticket_reference: ticket.ref,
    ticket_name: ticket.attendee_name ?? '',
    seat: ticket.seat,
    created_at: iso(result.created_at),
  };
}

const FLAG_KEYS = new Set(['qr_code_scanned', 'online']);

/**
 * Checks in tickets of one order: `counts` maps ticket-type slugs to how many to check in.
 * With no counts, every ticket of the order on the list that is not checked in yet. Asking
 * for more than the order still has to check in of a type is refused as a whole (422), so a
 * door never records a partial group by accident.
 */
export async function checkInOrder(
  ctx: AppContext,
  p: Principal,
  eventSlug: string,
  listId: string,
  qrToken: string,
  body: Record<string, unknown>,
) {
  const list = await loadList(ctx, p, eventSlug, listId);
  const order = await findOrderByQr(ctx.db, p.accountId, qrToken);
  if (!order) throw notFound('No order with that QR code');
  if (Number(order.event_id) !== Number(list.event_id)) throw notCheckable('This order is for another event');
  if (order.status !== 'paid') throw notCheckable(`This order is ${order.status}; its tickets cannot be checked in`);

  const flags: ScanFlags = { qrCodeScanned: flag(body.qr_code_scanned), online: flag(body.online) };
  const at = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    await lockOrder(trx, order.id);
    const tickets = (await orderTicketsForList(trx, p.accountId, order.id, list.id)).filter(
      (t) => t.status === 'valid' && onList(list, t.ticket_type_id),
    );
    const slugs = new Set(tickets.map((t) => t.type_key));
    const counts = new Map<string, number>();
    const fields: Record<string, string[]> = {};
    for (const [key, value] of Object.entries(body)) {
      if (FLAG_KEYS.has(key) && !slugs.has(key)) continue;
      const n =
        typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,6}$/.test(value.trim()) ? Number(value) : NaN;
      if (!Number.isInteger(n) || n < 0) {
        fields[key] = ['must be a whole number of tickets (0 or more)'];
        continue;
      }
      if (!slugs.has(key)) {
        if (n > 0) throw notCheckable(`This order has no tickets of type "${key}" that can be checked in to this list`);
        continue;
      }
      counts.set(key, n);
    }
    if (Object.keys(fields).length) {
      throw new AppError('unprocessable', 'validation_failed', 'Ticket counts must be whole numbers', { fields });
    }
    const pending = tickets.filter((t) => t.checked_in_at === null);
    let chosen: typeof pending;
    if (counts.size === 0) {
      if (pending.length === 0) {
        const last = tickets.reduce<Date | null>(
          (m, t) => (t.checked_in_at && (!m || t.checked_in_at > m) ? t.checked_in_at : m),
          null,
        );
        if (last)
          throw new AppError('conflict', 'already_checked_in', `Every ticket of this order is already checked in to this list`, {
            extra: { created_at: iso(last) },
          });
        throw notCheckable('This order has no tickets on this check-in list');
      }
      chosen = pending;
    } else {
      chosen = [];
      for (const [slug, n] of counts) {
        const left = pending.filter((t) => t.type_key === slug);
        if (n > left.length) {
          const held = tickets.filter((t) => t.type_key === slug).length;
          throw notCheckable(
            `Asked to check in ${n} "${slug}" ticket(s); the order holds ${held} and ${left.length} of them ${left.length === 1 ? 'is' : 'are'} not checked in yet`,
          );
        }
        chosen.push(...left.slice(0, n));
      }
    }
    await lockTickets(
      trx,
      chosen.map((t) => Number(t.id)),
    );
    const out = [];
    for (const t of chosen) {
      const row = await insertCheckin(trx, { accountId: p.accountId, listId: list.id, ticketId: t.id, ...flags, at });
      // A ticket scan at another door won meanwhile: refuse the whole group rather than record part of it.
      if (!row) {
        const earlier = await findCheckin(trx, list.id, t.id);
        throw alreadyCheckedIn(t.ref, earlier?.created_at ?? at);
      }
      out.push({ id: Number(row.id), ticket_id: Number(t.id), ticket_reference: t.ref, created_at: iso(row.created_at) });
    }
    return { checkins: out };
  });
}

/** Scanning apps send booleans as JSON or as form strings; anything unreadable keeps the default true. */
export function flag(v: unknown): boolean {
  if (v === false || v === 'false' || v === '0' || v === 0) return false;
  return true;
}
