import type { AppContext } from '../../platform/context.ts';
import { invalidInvoiceAddress, readInvoiceAddress, type InvoiceAddressInput } from './invoice-address.ts';
import { actorOf, canSeeEvent, type Principal } from '../../platform/http/auth.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import type { Job } from '../../platform/jobs/jobs.ts';
import { loadVisibleEvent } from '../events/events.service.ts';
import { invalidBody, invalidIdempotencyKey, orderNotFound } from './orders.errors.ts';
import {
  findOrderById,
  findOrderByQrToken,
  findOrderByRef,
  findTicketByQrToken,
  listOrders,
  seatsOfOrder,
  ticketStatusesOf,
  type OrderRecord,
} from './orders.repo.ts';
import {
  capabilityUrls,
  orderView,
  presentOrderDetail,
  presentOrders,
  type OrderDetailView,
  type OrderView,
} from './orders.presenter.ts';
import { placeOrder } from './place-order.service.ts';
import { expireLapsedHolds, logOrder, updateBuyer } from './order-state.repo.ts';

export const MAX_IDEMPOTENCY_KEY = 200;
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

/** An order the principal may see: same account, and an event the token is not kept out of. */
export async function loadVisibleOrder(ctx: AppContext, p: Principal, ref: string): Promise<OrderRecord> {
  const order = await findOrderByRef(ctx.db, p.accountId, ref);
  if (!order || !canSeeEvent(p, order.event_slug)) throw orderNotFound(ref);
  return order;
}

export interface CreateOrderBody {
  items: Array<{ ticket_type_id: number; quantity: number; seats?: string[] }>;
  email?: string;
  name?: string;
  invoice_address?: InvoiceAddressInput;
}

export async function createOrderViaApi(
  ctx: AppContext,
  p: Principal,
  slug: string,
  body: CreateOrderBody,
  idempotencyKey: string | undefined,
): Promise<{ created: boolean; order: OrderView & { payment_url?: string; url?: string; seats?: unknown[] } }> {
  if (idempotencyKey !== undefined && idempotencyKey.length > MAX_IDEMPOTENCY_KEY) throw invalidIdempotencyKey();
  const event = await loadVisibleEvent(ctx, p, slug);
  if (body.email !== undefined && body.email.trim() !== '' && !isEmail(body.email.trim())) {
    throw invalidBody('email is not an email address', { email: ['is not an email address'] });
  }
  let invoiceAddress = null;
  if (body.invoice_address) {
    const read = readInvoiceAddress(body.invoice_address);
    if (!read.address) throw invalidInvoiceAddress(read.fields);
    invoiceAddress = read.address;
  }
  const placed = await placeOrder(ctx, {
    accountId: p.accountId,
    event,
    items: body.items,
    email: body.email ?? null,
    name: body.name ?? null,
    invoiceAddress,
    channel: 'api',
    ...(idempotencyKey !== undefined ? { idempotency: { tokenId: p.tokenId, key: idempotencyKey } } : {}),
  });
  if (placed.written) {
    // built from what was written: an API order has no audience or portal (the written row is
    // this request's own, completed in place rather than copied, as is the view)
    const { order, lines, codes, seated, seats } = placed.written;
    const record = Object.assign(order, { event_slug: event.slug, audience_key: null, portal_key: null });
    const view = Object.assign(orderView(record, lines, codes), capabilityUrls(ctx, order));
    if (!seated) return { created: true, order: view };
    // a pending order's seats are the ones just written; a paid one's are read with their tickets
    return {
      created: true,
      order: { ...view, seats: seats ? seats.map((s) => ({ ticket: null, ...s })) : await seatsOfOrder(ctx.db, order.id) },
    };
  }
  const order = (await findOrderById(ctx.db, p.accountId, placed.orderId))!;
  const [view] = await presentOrders(ctx.db, [order]);
  return { created: placed.created, order: { ...view!, ...capabilityUrls(ctx, order) } };
}

/**
 * An Idempotency-Key replay answers with the order that key made, whatever the body says (the
 * spec: the key alone identifies the order), so it runs before body validation. null: not a replay.
 */
export async function replayIdempotentOrder(
  ctx: AppContext,
  p: Principal,
  idempotencyKey: string | undefined,
): Promise<(OrderView & { payment_url?: string; url?: string }) | null> {
  if (idempotencyKey === undefined) return null;
  if (idempotencyKey.length > MAX_IDEMPOTENCY_KEY) throw invalidIdempotencyKey();
  const row = await ctx.db
    .selectFrom('idempotency_keys')
    .select('order_id')
    .where('token_id', '=', p.tokenId)
    .where('key', '=', idempotencyKey)
    .executeTakeFirst();
  if (!row?.order_id) return null;
  const order = (await findOrderById(ctx.db, p.accountId, row.order_id))!;
  const [view] = await presentOrders(ctx.db, [order]);
  return { ...view!, ...capabilityUrls(ctx, order) };
}

export async function getOrder(ctx: AppContext, p: Principal, ref: string): Promise<OrderDetailView> {
  return presentOrderDetail(ctx.db, await loadVisibleOrder(ctx, p, ref));
}

export const DEFAULT_LIMIT = 50;

/** `limit` clamps to 1..200 (default 50); `after` is an order ref; an unknown cursor gives an empty page. */
export async function listEventOrders(
  ctx: AppContext,
  p: Principal,
  slug: string,
  query: { limit?: string; after?: string },
): Promise<{ orders: OrderView[]; next_after: string | null }> {
  const event = await loadVisibleEvent(ctx, p, slug);
  const n = Number.parseInt(query.limit ?? '', 10);
  const limit = Number.isFinite(n) ? Math.min(200, Math.max(1, n)) : DEFAULT_LIMIT;
  let after: { created_at: Date; id: number } | null = null;
  if (query.after) {
    const cursor = await findOrderByRef(ctx.db, p.accountId, query.after);
    if (!cursor || cursor.event_id !== event.id) return { orders: [], next_after: null };
    after = { created_at: new Date(cursor.created_at), id: cursor.id };
  }
  const rows = await listOrders(ctx.db, p.accountId, event.id, limit, after);
  return { orders: await presentOrders(ctx.db, rows), next_after: rows.length === limit ? rows[rows.length - 1]!.ref : null };
}

export interface PatchBuyerBody {
  name?: string;
  email?: string;
  revoke_link?: boolean;
}

/** Corrects the buyer's name and email; nothing is emailed. `revoke_link` rotates the order-page secret. */
export async function patchBuyer(ctx: AppContext, p: Principal, ref: string, body: PatchBuyerBody): Promise<OrderView> {
  const order = await loadVisibleOrder(ctx, p, ref);
  const fields: Record<string, string[]> = {};
  if (body.name !== undefined && body.name.trim() === '') fields.name = ['must not be blank'];
  if (body.email !== undefined && !isEmail(body.email.trim())) fields.email = ['is not an email address'];
  if (Object.keys(fields).length)
    throw invalidBody(
      Object.entries(fields)
        .map(([k, v]) => `${k} ${v.join(', ')}`)
        .join('; '),
      fields,
    );
  if (body.name !== undefined || body.email !== undefined || body.revoke_link === true) {
    await ctx.db.transaction().execute(async (trx) => {
      await updateBuyer(trx, order.id, {
        ...(body.name !== undefined ? { name: body.name.trim() } : {}),
        ...(body.email !== undefined ? { email: body.email.trim() } : {}),
        rotateLink: body.revoke_link === true,
      });
      await logOrder(trx, order, 'buyer_changed', ctx.clock.now(), {
        by: actorOf(p),
        name: body.name !== undefined,
        email: body.email !== undefined,
        link_revoked: body.revoke_link === true,
      });
    });
  }
  const [view] = await presentOrders(ctx.db, [(await findOrderById(ctx.db, p.accountId, order.id))!]);
  return view!;
}

/** Background job: pending orders whose hold ran out become canceled and give their stock back. */
export const holdSweeper: Job = {
  name: 'hold-sweeper',
  every: 15_000,
  async run(ctx) {
    let total = 0;
    for (;;) {
      const ids = await ctx.db.transaction().execute((trx) => expireLapsedHolds(trx, ctx.clock.now(), { limit: 200 }));
      total += ids.length;
      if (ids.length < 200) return total;
    }
  },
};

export interface CompOrderInput {
  items: Array<{ ticket_type_id: number; quantity: number }>;
  name: string;
  email: string;
  reason: string;
  /** the form's nonce: sending the form twice makes one order */
  nonce: string;
}

/**
 * A complimentary order from the orders desk: the chosen tickets at no charge, paid at once
 * (tickets minted and mailed), with its reason and issuer in the order's log. Sending the same
 * form twice (a double click) makes one order: the form's nonce is claimed before the order is placed.
 */
export async function createCompOrder(
  ctx: AppContext,
  p: Principal,
  slug: string,
  input: CompOrderInput,
): Promise<{ ref: string }> {
  const fields: Record<string, string[]> = {};
  const items = input.items.filter((i) => i.quantity > 0);
  if (!items.length) fields.items = ['choose at least one ticket'];
  if (input.items.some((i) => !Number.isInteger(i.quantity) || i.quantity < 0 || i.quantity > 100))
    fields.items = ['quantities are whole numbers from 0 to 100'];
  if (!isEmail(input.email.trim())) fields.email = ['is not an email address: the tickets go there'];
  if (!input.reason.trim()) fields.reason = ['say why (it stays in the order’s log)'];
  if (input.reason.length > 500) fields.reason = ['must be at most 500 characters'];
  if (input.name.length > 200) fields.name = ['must be at most 200 characters'];
  if (Object.keys(fields).length) throw invalidBody('The complimentary order is not valid', fields);
  const event = await loadVisibleEvent(ctx, p, slug);

  const claimed = await ctx.db
    .insertInto('form_submissions')
    .values({ nonce: input.nonce, account_id: p.accountId, created_at: ctx.clock.now() })
    .onConflict((oc) => oc.column('nonce').doNothing())
    .returning('nonce')
    .executeTakeFirst();
  if (!claimed) {
    // the same form again: its order, once the first submission has made it
    for (let i = 0; i < 50; i++) {
      const made = await ctx.db
        .selectFrom('form_submissions as f')
        .innerJoin('orders as o', 'o.id', 'f.order_id')
        .select('o.ref')
        .where('f.nonce', '=', input.nonce)
        .where('f.account_id', '=', p.accountId)
        .executeTakeFirst();
      if (made) return { ref: made.ref };
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new AppError(
      'conflict',
      'in_progress',
      'This form was already sent and is still being handled; reload the orders in a moment',
    );
  }
  try {
    const placed = await placeOrder(ctx, {
      accountId: p.accountId,
      event,
      items,
      email: input.email.trim(),
      name: input.name.trim() || null,
      channel: 'console',
      comp: { reason: input.reason.trim(), by: actorOf(p) },
    });
    await ctx.db.updateTable('form_submissions').set({ order_id: placed.orderId }).where('nonce', '=', input.nonce).execute();
    if (Math.random() < 0.02) {
      await ctx.db
        .deleteFrom('form_submissions')
        .where('created_at', '<', new Date(ctx.clock.now().getTime() - 86_400_000))
        .execute();
    }
    return { ref: (await findOrderById(ctx.db, p.accountId, placed.orderId))!.ref };
  } catch (err) {
    // nothing was made: the form may be corrected and sent again
    await ctx.db.deleteFrom('form_submissions').where('nonce', '=', input.nonce).execute();
    throw err;
  }
}

/**
 * What a ticket's QR code opens: the ticket with its event and type, and whether it admits (the
 * ticket valid and its order paid). No names: whoever holds the code sees this.
 */
export async function ticketOfQr(ctx: AppContext, qrToken: string) {
  const t = await findTicketByQrToken(ctx.db, qrToken);
  if (!t) throw notFound('This QR code is not a ticket of ours');
  return { ...t, valid: t.status === 'valid' && t.order_status === 'paid' };
}

/** What an order's QR code opens: the order with its event, and how many of its tickets admit. */
export async function orderOfQr(ctx: AppContext, qrToken: string) {
  const o = await findOrderByQrToken(ctx.db, qrToken);
  if (!o) throw notFound('This QR code is not an order of ours');
  const tickets = await ticketStatusesOf(ctx.db, o.id);
  return { ...o, valid: o.status === 'paid' ? tickets.filter((x) => x.status === 'valid').length : 0 };
}
