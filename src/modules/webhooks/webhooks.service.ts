import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { iso } from '../../platform/time.ts';
import { WEBHOOK_TYPES } from './types.ts';
import { newSecret } from './signing.ts';

export interface EndpointView {
  id: number;
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
  created_at: string;
  disabled_reason: string | null;
}

export interface EndpointInput {
  url?: string;
  events?: string[];
  description?: string;
  enabled?: boolean;
}

/** Both secrets sign for this long after a rotation (contract section 8). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

type EndpointRow = {
  id: number;
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
  created_at: Date | string;
  disabled_reason: string | null;
};

function present(r: EndpointRow): EndpointView {
  return {
    id: Number(r.id),
    url: r.url,
    events: r.events,
    description: r.description,
    enabled: r.enabled,
    created_at: iso(r.created_at)!,
    disabled_reason: r.disabled_reason,
  };
}

const COLUMNS = ['id', 'url', 'events', 'description', 'enabled', 'created_at', 'disabled_reason'] as const;

const failed = (fields: Record<string, string[]>) =>
  new AppError(
    'unprocessable',
    'validation_failed',
    `Invalid webhook endpoint: ${Object.entries(fields)
      .map(([k, v]) => `${k} ${v.join(', ')}`)
      .join('; ')}`,
    { fields },
  );

/** An http(s) URL without credentials; whether it may be reached is decided when connecting. */
function checkInput(input: EndpointInput, creating: boolean): void {
  const fields: Record<string, string[]> = {};
  if (creating && input.url === undefined) fields.url = ['is required'];
  if (input.url !== undefined) {
    let url: URL | null = null;
    try {
      url = new URL(input.url);
    } catch {
      fields.url = ['is not a URL'];
    }
    if (url && url.protocol !== 'https:' && url.protocol !== 'http:') fields.url = ['must be an http or https URL'];
    else if (url && (url.username || url.password)) fields.url = ['must not carry a user name or password'];
    else if (url && input.url.length > 2000) fields.url = ['is longer than 2,000 characters'];
  }
  (input.events ?? []).forEach((e, i) => {
    if (!(WEBHOOK_TYPES as readonly string[]).includes(e))
      fields[`events.${i}`] = [`unknown event type (known: ${WEBHOOK_TYPES.join(', ')})`];
  });
  if (Object.keys(fields).length) throw failed(fields);
}

export async function listEndpoints(db: Db, accountId: number): Promise<EndpointView[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map(present);
}

export async function getEndpoint(db: Db, accountId: number, id: number): Promise<EndpointView> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound(`No webhook endpoint ${id}`);
  return present(row);
}

export async function createEndpoint(
  ctx: AppContext,
  accountId: number,
  input: EndpointInput,
): Promise<EndpointView & { secret: string }> {
  checkInput(input, true);
  const secret = newSecret();
  const row = await ctx.db
    .insertInto('webhook_endpoints')
    .values({
      account_id: accountId,
      url: input.url!,
      events: [...new Set(input.events ?? [])],
      description: input.description ?? '',
      enabled: input.enabled ?? true,
      secret,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
  return { ...present(row), secret };
}

export async function updateEndpoint(
  ctx: AppContext,
  accountId: number,
  id: number,
  input: EndpointInput,
): Promise<EndpointView> {
  checkInput(input, false);
  const row = await ctx.db
    .updateTable('webhook_endpoints')
    .set({
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      // enabling again forgives the past failures
      ...(input.enabled !== undefined
        ? { enabled: input.enabled, ...(input.enabled ? { disabled_reason: null, failing_since: null } : {}) }
        : {}),
      updated_at: ctx.clock.now(),
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
  if (!row) throw notFound(`No webhook endpoint ${id}`);
  return present(row);
}

export async function deleteEndpoint(db: Db, accountId: number, id: number): Promise<void> {
  const r = await db.deleteFrom('webhook_endpoints').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  if (r.numDeletedRows === 0n) throw notFound(`No webhook endpoint ${id}`);
}

/** A new secret; the old one keeps signing (beside it) for 24 hours. */
export async function rotateSecret(ctx: AppContext, accountId: number, id: number): Promise<EndpointView & { secret: string }> {
  const secret = newSecret();
  const row = await ctx.db
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      previous_secret: eb.ref('secret'),
      previous_secret_until: new Date(ctx.clock.now().getTime() + ROTATION_OVERLAP_MS),
      secret,
      updated_at: ctx.clock.now(),
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
  if (!row) throw notFound(`No webhook endpoint ${id}`);
  return { ...present(row), secret };
}

export interface DeliveryView {
  id: number;
  webhook_id: string;
  type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_status_code: number | null;
  next_attempt_at: string | null;
  created_at: string;
}

export const webhookId = (deliveryId: number) => `msg_${deliveryId}`;

/** Newest first; `after` is a delivery id. */
export async function listDeliveries(
  db: Db,
  accountId: number,
  endpointId: number,
  query: { limit?: string; after?: string },
): Promise<{ deliveries: DeliveryView[]; next_after: string | null }> {
  await getEndpoint(db, accountId, endpointId);
  const n = Number.parseInt(query.limit ?? '', 10);
  const limit = Number.isFinite(n) ? Math.min(200, Math.max(1, n)) : 50;
  let q = db
    .selectFrom('webhook_deliveries')
    .select(['id', 'type', 'status', 'attempts', 'last_status_code', 'next_attempt_at', 'created_at'])
    .where('endpoint_id', '=', endpointId);
  const after = Number(query.after);
  if (query.after && Number.isSafeInteger(after)) q = q.where('id', '<', after);
  const rows = await q
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  return {
    deliveries: page.map((r) => ({
      id: Number(r.id),
      webhook_id: webhookId(Number(r.id)),
      type: r.type,
      status: r.status,
      attempts: r.attempts,
      last_status_code: r.last_status_code,
      next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
      created_at: iso(r.created_at)!,
    })),
    next_after: rows.length > limit ? String(page.at(-1)!.id) : null,
  };
}

export async function deliveryAttempts(db: Db, accountId: number, endpointId: number, deliveryId: number) {
  await getEndpoint(db, accountId, endpointId);
  return db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select(['a.at', 'a.status_code', 'a.duration_ms', 'a.error', 'a.response_body'])
    .where('d.endpoint_id', '=', endpointId)
    .where('a.delivery_id', '=', deliveryId)
    .orderBy('a.id')
    .execute();
}

/** Sends a delivery again (same webhook-id and body): pending, due now, a fresh schedule. */
export async function redeliver(ctx: AppContext, accountId: number, endpointId: number, deliveryId: number): Promise<void> {
  const r = await ctx.db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: ctx.clock.now(), updated_at: ctx.clock.now() })
    .where('account_id', '=', accountId)
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
  if (r.numUpdatedRows === 0n) throw notFound(`No delivery ${deliveryId} for endpoint ${endpointId}`);
}

/** Every failed delivery of the endpoint since `since`, again. Returns how many. */
export async function redeliverFailed(ctx: AppContext, accountId: number, endpointId: number, since: Date): Promise<number> {
  await getEndpoint(ctx.db, accountId, endpointId);
  const r = await ctx.db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: ctx.clock.now(), updated_at: ctx.clock.now() })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'failed')
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** A `ping`-like test event: an `order.created` shaped sample, to this endpoint only. */
export async function sendTestEvent(ctx: AppContext, accountId: number, endpointId: number): Promise<number> {
  await getEndpoint(ctx.db, accountId, endpointId);
  const row = await ctx.db
    .insertInto('webhook_deliveries')
    .values({ account_id: accountId, endpoint_id: endpointId, type: 'webhook.test', subject: JSON.stringify({ test: true }) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function endpointCount(db: Db, accountId: number): Promise<number> {
  const r = await db
    .selectFrom('webhook_endpoints')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return r.n;
}
