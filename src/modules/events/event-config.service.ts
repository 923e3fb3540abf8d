import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { clearCaches } from '../../platform/cache.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { isUniqueViolation } from '../../platform/db/pg-errors.ts';
import { iso } from '../../platform/time.ts';
import { parseAccountFile, type AccountFile, type EventIn, type TicketTypeIn } from '../import/account-file.ts';
import { writeEvent } from '../import/import.service.ts';
import { expireHolds } from '../inventory/stock.repo.ts';

/**
 * An event's configuration as one document: the account file's event object (contract section
 * 6), without orders, every default filled in. The console, the management API and `admit import`
 * edit the same thing through here; the importer's validation is the document's validation.
 */
export type EventDocument = Omit<EventIn, 'orders'>;

/** "No limit" on an inventory row that already exists (kept so no order ever loses its row). */
const UNLIMITED = 2_147_483_647;

export interface EventConfig {
  document: EventDocument;
  etag: string;
}

export function etagOf(document: EventDocument): string {
  return `"${createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 27)}"`;
}

const validationFailed = (fields: Record<string, string[]>): AppError =>
  new AppError(
    'unprocessable',
    'validation_failed',
    `Invalid event configuration: ${Object.entries(fields)
      .map(([k, v]) => `${k} ${v.join(', ')}`)
      .join('; ')}`,
    { fields },
  );

export const configConflict = (path: string, message: string): AppError =>
  new AppError('conflict', 'conflict', `${path}: ${message}`, { fields: { [path]: [message] }, extra: { path } });

async function eventRow(db: Db, accountId: number, slug: string, lock = false) {
  let q = db.selectFrom('events').selectAll().where('account_id', '=', accountId).where('slug', '=', slug);
  // NO KEY UPDATE: orders being written hold KEY SHARE on the event row (their foreign key); a
  // config change must not wait on them while they wait on its item locks (a deadlock)
  if (lock) q = q.forNoKeyUpdate();
  return q.executeTakeFirst();
}

/** The document of a stored event, read in one snapshot of `db`. */
export async function readDocument(db: Db, eventId: number): Promise<EventDocument> {
  const e = await db
    .selectFrom('events as e')
    .leftJoin('series as s', 's.id', 'e.series_id')
    .selectAll('e')
    .select('s.slug as series_slug')
    .where('e.id', '=', eventId)
    .executeTakeFirstOrThrow();
  const by = <T>(rows: T[], key: (r: T) => number) => {
    const m = new Map<number, T[]>();
    for (const r of rows) m.set(key(r), [...(m.get(key(r)) ?? []), r]);
    return m;
  };
  const [audiences, portals, goods, types, includes, sessions, links, donations, codes, lists, reports] = await Promise.all([
    db
      .selectFrom('audiences')
      .select(['id', 'key', 'name'])
      .where('event_id', '=', eventId)
      .where('archived_at', 'is', null)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('portals')
      .select(['key', 'name', 'audience_id'])
      .where('event_id', '=', eventId)
      .where('archived_at', 'is', null)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('goods')
      .selectAll()
      .where('event_id', '=', eventId)
      .where('archived_at', 'is', null)
      .orderBy('position')
      .orderBy('id')
      .execute(),
    db.selectFrom('ticket_types').selectAll().where('event_id', '=', eventId).orderBy('position').orderBy('id').execute(),
    db
      .selectFrom('ticket_type_includes as i')
      .innerJoin('goods as g', 'g.id', 'i.good_id')
      .select(['i.ticket_type_id', 'g.key', 'i.quantity'])
      .where('g.event_id', '=', eventId)
      .orderBy('g.position')
      .orderBy('g.id')
      .execute(),
    db
      .selectFrom('sessions')
      .selectAll()
      .where('event_id', '=', eventId)
      .where('archived_at', 'is', null)
      .orderBy('position')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('session_ticket_types as l')
      .innerJoin('ticket_types as t', 't.id', 'l.ticket_type_id')
      .select(['l.session_id', 't.key'])
      .where('t.event_id', '=', eventId)
      .orderBy('t.position')
      .orderBy('t.id')
      .execute(),
    db
      .selectFrom('donations')
      .selectAll()
      .where('event_id', '=', eventId)
      .where('archived_at', 'is', null)
      .orderBy('position')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('discount_codes')
      .selectAll()
      .where('event_id', '=', eventId)
      .where('disabled_at', 'is', null)
      .orderBy('code')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('checkin_lists')
      .select(['key', 'name', 'ticket_type_ids'])
      .where('event_id', '=', eventId)
      .where('archived_at', 'is', null)
      .orderBy('id')
      .execute(),
    db.selectFrom('saved_reports').select(['name', 'query']).where('event_id', '=', eventId).orderBy('id').execute(),
  ]);
  const audienceKey = new Map(audiences.map((a) => [a.id, a.key]));
  const typeKey = new Map(types.map((t) => [t.id, t.key]));
  const includesOf = by(includes, (i) => i.ticket_type_id);
  const linksOf = by(links, (l) => l.session_id);
  const typeKeys = (ids: number[] | null) => (ids ? ids.map((id) => typeKey.get(id)).filter((k): k is string => !!k) : undefined);
  const prices = (p: Record<string, number>) =>
    Object.fromEntries(Object.entries(p ?? {}).sort(([a], [b]) => a.localeCompare(b)));

  const doc: EventDocument = {
    slug: e.slug,
    name: e.name,
    ...(e.series_slug ? { series: e.series_slug } : {}),
    currency: e.currency,
    currencies: e.currencies,
    fx_rates: Object.fromEntries(
      Object.entries(e.fx_rates ?? {})
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([c, r]) => [c, Number(r)]),
    ),
    timezone: e.timezone,
    starts_at: iso(e.starts_at)!,
    ...(e.ends_at ? { ends_at: iso(e.ends_at)! } : {}),
    ...(e.sales_end_at ? { sales_end_at: iso(e.sales_end_at)! } : {}),
    ...(e.payment_expires_at ? { payment_expires_at: iso(e.payment_expires_at)! } : {}),
    tax_mode: e.tax_mode,
    ...(e.description !== null ? { description: e.description } : {}),
    ...(e.venue ? { venue: e.venue } : {}),
    locale: e.locale,
    ticket_types: types.map((t): TicketTypeIn => ({
      key: t.key,
      name: t.name,
      price: t.price_cents,
      prices: prices(t.prices),
      capacity: t.capacity,
      max_per_order: t.max_per_order,
      position: t.position,
      on_sale: t.on_sale,
      archived: t.archived,
      ...(t.audience_id !== null && audienceKey.has(t.audience_id) ? { audience: audienceKey.get(t.audience_id)! } : {}),
      requires_session: t.requires_session,
      tax_rate_bp: t.tax_rate_bp,
      group_discounts: t.group_discounts ?? [],
      includes: (includesOf.get(t.id) ?? []).map((i) => ({ good: i.key, quantity: i.quantity })),
    })),
    goods: goods.map((g) => ({
      key: g.key,
      name: g.name,
      price: g.price_cents,
      prices: prices(g.prices),
      capacity: g.capacity,
      on_sale: g.on_sale,
      tax_rate_bp: g.tax_rate_bp,
    })),
    sessions: sessions.map((s) => ({
      key: s.key,
      name: s.name,
      starts_at: iso(s.starts_at)!,
      ...(s.ends_at ? { ends_at: iso(s.ends_at)! } : {}),
      capacity: s.capacity,
      on_sale: s.on_sale,
      ticket_types: (linksOf.get(s.id) ?? []).map((l) => l.key),
    })),
    donations: donations.map((d) => ({ key: d.key, name: d.name, on_sale: d.on_sale })),
    audiences: audiences.map((a) => ({ key: a.key, name: a.name })),
    portals: portals.map((p) => ({
      key: p.key,
      name: p.name,
      ...(p.audience_id !== null && audienceKey.has(p.audience_id) ? { audience: audienceKey.get(p.audience_id)! } : {}),
    })),
    discount_codes: codes.map((c) => {
      const keys = typeKeys(c.ticket_type_ids);
      return {
        code: c.code,
        ...(c.percent_off !== null ? { percent_off: c.percent_off } : { amount_off: c.amount_off_cents ?? 0 }),
        max_uses: c.max_uses,
        ...(keys ? { ticket_types: keys } : {}),
      };
    }),
    checkin_lists: lists.map((l) => {
      const keys = typeKeys(l.ticket_type_ids);
      return { key: l.key, name: l.name, ...(keys ? { ticket_types: keys } : {}) };
    }),
    saved_reports: reports.map((r) => ({ name: r.name, query: r.query })),
  };
  return doc;
}

export async function getEventConfig(ctx: AppContext, accountId: number, slug: string): Promise<EventConfig> {
  const event = await eventRow(ctx.db, accountId, slug);
  if (!event) throw notFound(`No event with slug "${slug}"`);
  const document = await readDocument(ctx.db, event.id);
  return { document, etag: etagOf(document) };
}

/**
 * Checks a document as the importer checks an account file (the same schema and cross-checks),
 * for the event at `slug` of this account. Fields are keyed by JSON path (`$.ticket_types[0].price`).
 */
export async function validateDocument(db: Db, accountId: number, slug: string, body: unknown): Promise<EventIn> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw validationFailed({ $: ['must be an object'] });
  const given = body as Record<string, unknown>;
  if (given.slug !== undefined && given.slug !== slug) {
    throw validationFailed({ '$.slug': [`must equal the slug in the path ("${slug}")`] });
  }
  if (given.orders !== undefined) throw validationFailed({ '$.orders': ['orders are not part of an event configuration'] });
  const account = await db.selectFrom('accounts').select(['slug', 'name']).where('id', '=', accountId).executeTakeFirstOrThrow();
  const series = await db.selectFrom('series').select(['slug', 'name']).where('account_id', '=', accountId).execute();
  const file = {
    account: { slug: account.slug, name: account.name },
    series,
    events: [{ ...given, slug }],
  };
  try {
    return parseAccountFile(file).events![0]!;
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'invalid_account_file') throw err;
    const fields: Record<string, string[]> = {};
    for (const p of (err.extra?.problems as string[] | undefined) ?? [err.message]) {
      const m = /^\$\.events\[0\](\S*?): (.*)$/s.exec(p);
      const key = m ? `$${m[1]}` : '$';
      (fields[key] ??= []).push(m ? m[2]! : p);
    }
    throw validationFailed(fields);
  }
}

export interface PutResult extends EventConfig {
  created: boolean;
}

/**
 * Creates the event (new slug) or applies the difference to it, in one transaction under the
 * event row's lock. `ifMatch`: the ETag the caller last read; a stale one is 412.
 */
export async function putEventConfig(
  ctx: AppContext,
  accountId: number,
  slug: string,
  body: unknown,
  ifMatch?: string,
  opts: { createOnly?: boolean } = {},
): Promise<PutResult> {
  const doc = await validateDocument(ctx.db, accountId, slug, body);
  const result = await ctx.db.transaction().execute(async (trx) => {
    const event = await eventRow(trx, accountId, slug, true);
    if (event && opts.createOnly) throw configConflict('$.slug', `an event with slug "${slug}" exists`);
    if (ifMatch !== undefined && ifMatch.trim() !== '*') {
      const current = event ? etagOf(await readDocument(trx, event.id)) : null;
      const tags = ifMatch.split(',').map((t) => t.trim().replace(/^W\//, ''));
      if (!current || !tags.includes(current)) {
        throw new AppError(
          'precondition_failed',
          'precondition_failed',
          'The event changed since it was read (If-Match does not match its ETag); read it again and reapply the change',
        );
      }
    }
    let eventId: number;
    if (!event) {
      const account = await trx
        .selectFrom('accounts')
        .select(['slug', 'name'])
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow();
      const file: AccountFile = { account: { slug: account.slug, name: account.name }, events: [doc] };
      try {
        await writeEvent(ctx, trx, accountId, file, doc, '$');
      } catch (err) {
        // another request created this slug at the same moment
        if (isUniqueViolation(err)) throw configConflict('$.slug', `an event with slug "${slug}" was just created`);
        throw err;
      }
      eventId = (await eventRow(trx, accountId, slug))!.id;
    } else {
      eventId = event.id;
      await applyDocument(trx, ctx.clock.now(), accountId, event, doc);
    }
    const document = await readDocument(trx, eventId);
    return { document, etag: etagOf(document), created: !event };
  });
  // this instance sees the change at once; every other within its cache TTL (catalogueCacheMs, 1 s)
  clearCaches(ctx.db);
  return result;
}

type EventRowFull = NonNullable<Awaited<ReturnType<typeof eventRow>>>;

async function applyDocument(trx: Db, now: Date, accountId: number, event: EventRowFull, d: EventIn): Promise<void> {
  const eventId = event.id;
  const base = { account_id: accountId, event_id: eventId };
  const currencies = [...new Set([d.currency, ...(d.currencies ?? []).filter((c) => c !== d.currency)])];

  // 1. What existing orders forbid
  if (d.currency !== event.currency) {
    const any = await trx.selectFrom('orders').select('id').where('event_id', '=', eventId).limit(1).executeTakeFirst();
    if (any) throw configConflict('$.currency', 'the event has orders; its currency cannot change');
  }
  const dropped = event.currencies.filter((c) => !currencies.includes(c));
  if (dropped.length) {
    const used = await trx
      .selectFrom('orders')
      .select('currency')
      .where('event_id', '=', eventId)
      .where('currency', 'in', dropped)
      .limit(1)
      .executeTakeFirst();
    if (used) throw configConflict('$.currencies', `orders were placed in ${used.currency}; it cannot be removed`);
  }

  // 2. The event row
  const seriesId = d.series
    ? (
        await trx
          .selectFrom('series')
          .select('id')
          .where('account_id', '=', accountId)
          .where('slug', '=', d.series)
          .executeTakeFirstOrThrow()
      ).id
    : null;
  await trx
    .updateTable('events')
    .set({
      name: d.name,
      series_id: seriesId,
      currency: d.currency,
      currencies,
      fx_rates: JSON.stringify(Object.fromEntries(Object.entries(d.fx_rates ?? {}).map(([c, r]) => [c, String(r)]))),
      timezone: d.timezone,
      starts_at: d.starts_at,
      ends_at: d.ends_at ?? null,
      sales_end_at: d.sales_end_at ?? null,
      payment_expires_at: d.payment_expires_at ?? null,
      tax_mode: d.tax_mode ?? 'inclusive',
      description: d.description ?? null,
      venue: d.venue ? JSON.stringify(d.venue) : null,
      locale: d.locale ?? 'en',
    })
    .where('id', '=', eventId)
    .execute();

  // 3. Items, matched by key (archived rows included: a key given again is that item again)
  // the item rows first, in the order the order writer share-locks them (goods, ticket types,
  // sessions), and only then any inventory row: the two never wait on each other in a cycle
  const existingGoods = new Map(
    (await trx.selectFrom('goods').selectAll().where('event_id', '=', eventId).orderBy('id').forNoKeyUpdate().execute()).map(
      (r) => [r.key, r],
    ),
  );
  const existingTypes = new Map(
    (
      await trx.selectFrom('ticket_types').selectAll().where('event_id', '=', eventId).orderBy('id').forNoKeyUpdate().execute()
    ).map((r) => [r.key, r]),
  );
  const existingSessions = new Map(
    (await trx.selectFrom('sessions').selectAll().where('event_id', '=', eventId).orderBy('id').forNoKeyUpdate().execute()).map(
      (r) => [r.key, r],
    ),
  );
  const audiences = await upsertSimple(trx, 'audiences', base, d.audiences ?? [], (a) => ({ name: a.name }));
  await upsertSimple(trx, 'portals', base, d.portals ?? [], (p) => ({
    name: p.name,
    audience_id: p.audience ? audiences.get(p.audience)! : null,
  }));

  const goods = new Map<string, number>();
  for (const [i, g] of (d.goods ?? []).entries()) {
    const row = existingGoods.get(g.key);
    const values = {
      name: g.name,
      price_cents: g.price,
      prices: JSON.stringify(g.prices ?? {}),
      position: i,
      on_sale: g.on_sale ?? true,
      tax_rate_bp: g.tax_rate_bp ?? 0,
      archived_at: null,
    };
    if (row) {
      const inventoryId = await setCapacity(
        trx,
        now,
        accountId,
        eventId,
        'good_id',
        row,
        g.capacity ?? null,
        `$.goods[${i}].capacity`,
      );
      await trx
        .updateTable('goods')
        .set({ ...values, capacity: g.capacity ?? null, inventory_id: inventoryId })
        .where('id', '=', row.id)
        .execute();
      goods.set(g.key, row.id);
    } else {
      const inventoryId = await newInventory(trx, accountId, eventId, g.capacity ?? null);
      const { id } = await trx
        .insertInto('goods')
        .values({ ...base, key: g.key, ...values, capacity: g.capacity ?? null, inventory_id: inventoryId })
        .returning('id')
        .executeTakeFirstOrThrow();
      goods.set(g.key, id);
    }
  }

  const types = new Map<string, number>();
  for (const [i, t] of (d.ticket_types ?? []).entries()) {
    const row = existingTypes.get(t.key);
    const values = {
      name: t.name,
      price_cents: t.price,
      prices: JSON.stringify(t.prices ?? {}),
      max_per_order: t.max_per_order ?? null,
      position: t.position ?? i,
      on_sale: t.on_sale ?? true,
      archived: t.archived ?? false,
      audience_id: t.audience ? audiences.get(t.audience)! : null,
      requires_session: t.requires_session ?? false,
      tax_rate_bp: t.tax_rate_bp ?? 0,
      group_discounts: JSON.stringify([...(t.group_discounts ?? [])].sort((a, b) => a.min_quantity - b.min_quantity)),
    };
    let id: number;
    if (row) {
      const inventoryId = await setCapacity(
        trx,
        now,
        accountId,
        eventId,
        'ticket_type_id',
        row,
        t.capacity ?? null,
        `$.ticket_types[${i}].capacity`,
      );
      await trx
        .updateTable('ticket_types')
        .set({ ...values, capacity: t.capacity ?? null, inventory_id: inventoryId })
        .where('id', '=', row.id)
        .execute();
      id = row.id;
      await trx.deleteFrom('ticket_type_includes').where('ticket_type_id', '=', id).execute();
    } else {
      const inventoryId = await newInventory(trx, accountId, eventId, t.capacity ?? null);
      ({ id } = await trx
        .insertInto('ticket_types')
        .values({ ...base, key: t.key, ...values, capacity: t.capacity ?? null, inventory_id: inventoryId })
        .returning('id')
        .executeTakeFirstOrThrow());
    }
    types.set(t.key, id);
    for (const inc of t.includes ?? []) {
      await trx
        .insertInto('ticket_type_includes')
        .values({ account_id: accountId, ticket_type_id: id, good_id: goods.get(inc.good)!, quantity: inc.quantity ?? 1 })
        .execute();
    }
  }

  const sessions = new Map<string, number>();
  for (const [i, s] of (d.sessions ?? []).entries()) {
    const row = existingSessions.get(s.key);
    const values = {
      name: s.name ?? '',
      starts_at: s.starts_at,
      ends_at: s.ends_at ?? null,
      position: i,
      on_sale: s.on_sale ?? true,
      archived_at: null,
    };
    let id: number;
    if (row) {
      const inventoryId = await setCapacity(
        trx,
        now,
        accountId,
        eventId,
        'session_id',
        row,
        s.capacity ?? null,
        `$.sessions[${i}].capacity`,
      );
      await trx
        .updateTable('sessions')
        .set({ ...values, capacity: s.capacity ?? null, inventory_id: inventoryId })
        .where('id', '=', row.id)
        .execute();
      id = row.id;
      await trx.deleteFrom('session_ticket_types').where('session_id', '=', id).execute();
    } else {
      const inventoryId = await newInventory(trx, accountId, eventId, s.capacity ?? null);
      ({ id } = await trx
        .insertInto('sessions')
        .values({ ...base, key: s.key, ...values, capacity: s.capacity ?? null, inventory_id: inventoryId })
        .returning('id')
        .executeTakeFirstOrThrow());
    }
    sessions.set(s.key, id);
    for (const k of s.ticket_types ?? []) {
      await trx
        .insertInto('session_ticket_types')
        .values({ account_id: accountId, session_id: id, ticket_type_id: types.get(k)! })
        .execute();
    }
  }

  const donations = await upsertSimple(trx, 'donations', base, d.donations ?? [], (x, i) => ({
    name: x.name,
    position: i,
    on_sale: x.on_sale ?? true,
  }));

  const existingCodes = new Map(
    (await trx.selectFrom('discount_codes').selectAll().where('event_id', '=', eventId).execute()).map((r) => [
      r.code.toUpperCase(),
      r,
    ]),
  );
  const keptCodes = new Set<number>();
  for (const c of d.discount_codes ?? []) {
    const values = {
      code: c.code,
      percent_off: c.percent_off ?? null,
      amount_off_cents: c.amount_off ?? null,
      max_uses: c.max_uses ?? null,
      ticket_type_ids: c.ticket_types ? c.ticket_types.map((k) => types.get(k)!) : null,
      disabled_at: null,
    };
    const row = existingCodes.get(c.code.toUpperCase());
    if (row) {
      await trx.updateTable('discount_codes').set(values).where('id', '=', row.id).execute();
      keptCodes.add(row.id);
    } else {
      await trx
        .insertInto('discount_codes')
        .values({ ...base, ...values })
        .execute();
    }
  }

  const lists = await upsertSimple(trx, 'checkin_lists', base, d.checkin_lists ?? [], (l) => ({
    name: l.name,
    ticket_type_ids: l.ticket_types ? l.ticket_types.map((k) => types.get(k)!) : null,
  }));

  // saved reports have no key: matched by name
  const reports = await trx.selectFrom('saved_reports').select(['id', 'name', 'query']).where('event_id', '=', eventId).execute();
  const wanted = new Map((d.saved_reports ?? []).map((r) => [r.name, r.query.replace(/^\?/, '')]));
  for (const r of reports) {
    if (!wanted.has(r.name)) await trx.deleteFrom('saved_reports').where('id', '=', r.id).execute();
    else if (wanted.get(r.name) !== r.query) {
      await trx
        .updateTable('saved_reports')
        .set({ query: wanted.get(r.name)! })
        .where('id', '=', r.id)
        .execute();
    }
  }
  const had = new Set(reports.map((r) => r.name));
  for (const [name, query] of wanted) {
    if (!had.has(name))
      await trx
        .insertInto('saved_reports')
        .values({ ...base, name, query })
        .execute();
  }

  // 4. Items left out: deleted when nothing refers to them, else archived (codes: disabled)
  for (const row of existingCodes.values()) {
    if (keptCodes.has(row.id) || row.disabled_at) continue;
    const redeemed =
      row.uses > 0 ||
      (await trx.selectFrom('order_discounts').select('id').where('discount_code_id', '=', row.id).limit(1).executeTakeFirst());
    if (redeemed) await trx.updateTable('discount_codes').set({ disabled_at: now }).where('id', '=', row.id).execute();
    else await trx.deleteFrom('discount_codes').where('id', '=', row.id).execute();
  }
  await removeLeftOut(trx, 'checkin_lists', eventId, lists, now, async (id) =>
    Boolean(await trx.selectFrom('checkins').select('id').where('checkin_list_id', '=', id).limit(1).executeTakeFirst()),
  );
  for (const row of existingSessions.values()) {
    if (sessions.has(row.key) || row.archived_at) continue;
    const live = await trx
      .selectFrom('order_lines as l')
      .innerJoin('orders as o', 'o.id', 'l.order_id')
      .select('l.id')
      .where('l.session_id', '=', row.id)
      .where('o.status', 'in', ['paid', 'pending'])
      .limit(1)
      .executeTakeFirst();
    if (live) throw configConflict('$.sessions', `the session "${row.key}" has been sold; it cannot be removed`);
    const any = await trx.selectFrom('order_lines').select('id').where('session_id', '=', row.id).limit(1).executeTakeFirst();
    const ticket = await trx.selectFrom('tickets').select('id').where('session_id', '=', row.id).limit(1).executeTakeFirst();
    if (any || ticket)
      await trx.updateTable('sessions').set({ archived_at: now, on_sale: false }).where('id', '=', row.id).execute();
    else await deleteWithInventory(trx, 'sessions', row);
  }
  for (const row of existingTypes.values()) {
    if (types.has(row.key)) continue;
    const sold = await trx
      .selectFrom('order_lines')
      .select('id')
      .where('ticket_type_id', '=', row.id)
      .limit(1)
      .executeTakeFirst();
    if (sold) await trx.updateTable('ticket_types').set({ archived: true }).where('id', '=', row.id).execute();
    else await deleteWithInventory(trx, 'ticket_types', row);
  }
  for (const row of existingGoods.values()) {
    if (goods.has(row.key) || row.archived_at) continue;
    const sold = await trx.selectFrom('order_lines').select('id').where('good_id', '=', row.id).limit(1).executeTakeFirst();
    const included = await trx
      .selectFrom('ticket_type_includes')
      .select('good_id')
      .where('good_id', '=', row.id)
      .limit(1)
      .executeTakeFirst();
    if (sold || included)
      await trx.updateTable('goods').set({ archived_at: now, on_sale: false }).where('id', '=', row.id).execute();
    else await deleteWithInventory(trx, 'goods', row);
  }
  await removeLeftOut(trx, 'donations', eventId, donations, now, async (id) =>
    Boolean(await trx.selectFrom('order_lines').select('id').where('donation_id', '=', id).limit(1).executeTakeFirst()),
  );
  const portalKeys = new Set((d.portals ?? []).map((p) => p.key));
  await removeLeftOut(trx, 'portals', eventId, new Map([...portalKeys].map((k) => [k, 0])), now, async (id) =>
    Boolean(await trx.selectFrom('orders').select('id').where('portal_id', '=', id).limit(1).executeTakeFirst()),
  );
  await removeLeftOut(trx, 'audiences', eventId, audiences, now, async (id) =>
    Boolean(
      (await trx.selectFrom('orders').select('id').where('audience_id', '=', id).limit(1).executeTakeFirst()) ||
      (await trx.selectFrom('ticket_types').select('id').where('audience_id', '=', id).limit(1).executeTakeFirst()) ||
      (await trx.selectFrom('portals').select('id').where('audience_id', '=', id).limit(1).executeTakeFirst()),
    ),
  );
}

type SimpleTable = 'audiences' | 'portals' | 'donations' | 'checkin_lists';

/** Insert or update by key (reviving an archived row with that key); returns key -> id. */
async function upsertSimple<T extends { key: string }>(
  trx: Db,
  table: SimpleTable,
  base: { account_id: number; event_id: number },
  items: T[],
  values: (item: T, index: number) => Record<string, unknown>,
): Promise<Map<string, number>> {
  const rows = await trx.selectFrom(table).select(['id', 'key']).where('event_id', '=', base.event_id).execute();
  const byKey = new Map(rows.map((r) => [r.key, r.id]));
  const out = new Map<string, number>();
  for (const [i, item] of items.entries()) {
    const v = { ...values(item, i), archived_at: null };
    const id = byKey.get(item.key);
    if (id !== undefined) {
      await trx
        .updateTable(table)
        .set(v as never)
        .where('id', '=', id)
        .execute();
      out.set(item.key, id);
    } else {
      const row = await trx
        .insertInto(table)
        .values({ ...base, key: item.key, ...v } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      out.set(item.key, row.id);
    }
  }
  return out;
}

async function removeLeftOut(
  trx: Db,
  table: SimpleTable,
  eventId: number,
  kept: Map<string, number>,
  now: Date,
  referenced: (id: number) => Promise<boolean>,
): Promise<void> {
  const rows = await trx.selectFrom(table).select(['id', 'key', 'archived_at']).where('event_id', '=', eventId).execute();
  for (const r of rows) {
    if (kept.has(r.key) || r.archived_at) continue;
    if (await referenced(r.id)) {
      const set = table === 'donations' ? { archived_at: now, on_sale: false } : { archived_at: now };
      await trx
        .updateTable(table)
        .set(set as never)
        .where('id', '=', r.id)
        .execute();
    } else await trx.deleteFrom(table).where('id', '=', r.id).execute();
  }
}

async function deleteWithInventory(
  trx: Db,
  table: 'ticket_types' | 'goods' | 'sessions',
  row: { id: number; inventory_id: number | null },
): Promise<void> {
  await trx.deleteFrom(table).where('id', '=', row.id).execute();
  if (row.inventory_id !== null) {
    const other = await trx
      .selectFrom('order_lines')
      .select('id')
      .where('inventory_id', '=', row.inventory_id)
      .limit(1)
      .executeTakeFirst();
    if (!other) await trx.deleteFrom('inventory').where('id', '=', row.inventory_id).execute();
  }
}

async function newInventory(trx: Db, accountId: number, eventId: number, capacity: number | null): Promise<number | null> {
  if (capacity === null) return null;
  const row = await trx
    .insertInto('inventory')
    .values({ account_id: accountId, event_id: eventId, capacity })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * A new capacity for an item with orders, under the inventory row's lock (the lock every order
 * takes), so no order can slip between the check and the change:
 * - a row exists: it takes the new capacity, refused (409) below what is taken by live orders;
 *   no limit keeps the row with an unreachable capacity, so orders that still hold its id count.
 * - no row yet (the item had no limit): a row is made holding the units of its live orders, and
 *   those order lines point at it so cancels and expiries give them back. The item rows are
 *   locked (FOR UPDATE above) and the order writer re-reads unlimited items under a share lock,
 *   so an order placed from a catalogue cached before this change cannot miss the new row.
 */
async function setCapacity(
  trx: Db,
  now: Date,
  accountId: number,
  eventId: number,
  column: 'ticket_type_id' | 'good_id' | 'session_id',
  row: { id: number; inventory_id: number | null },
  capacity: number | null,
  path: string,
): Promise<number | null> {
  if (row.inventory_id !== null) {
    if (capacity === null) {
      await trx.updateTable('inventory').set({ capacity: UNLIMITED }).where('id', '=', row.inventory_id).execute();
      return row.inventory_id;
    }
    const locked = await trx
      .selectFrom('inventory')
      .select(['capacity', 'taken'])
      .where('id', '=', row.inventory_id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (locked.taken > capacity) {
      // holds that ran out still count until swept: release them, then look again
      await expireHolds(trx, now, { inventoryId: row.inventory_id });
      const again = await trx
        .selectFrom('inventory')
        .select('taken')
        .where('id', '=', row.inventory_id)
        .executeTakeFirstOrThrow();
      if (again.taken > capacity) throw configConflict(path, `${again.taken} are taken by orders; the capacity cannot be lower`);
    }
    await trx.updateTable('inventory').set({ capacity }).where('id', '=', row.inventory_id).execute();
    return row.inventory_id;
  }
  if (capacity === null) return null;
  const live = await sql<{ n: number }>`
    select coalesce(sum(l.quantity), 0)::int as n from order_lines l join orders o on o.id = l.order_id
    where l.${sql.ref(column)} = ${row.id} and o.status in ('paid', 'pending')`.execute(trx);
  const taken = live.rows[0]!.n;
  if (taken > capacity) throw configConflict(path, `${taken} are taken by orders; the capacity cannot be lower`);
  const { id } = await trx
    .insertInto('inventory')
    .values({ account_id: accountId, event_id: eventId, capacity, taken })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`update order_lines l set inventory_id = ${id} from orders o
    where o.id = l.order_id and l.${sql.ref(column)} = ${row.id} and o.status in ('paid', 'pending')`.execute(trx);
  return id;
}

export interface DuplicateInput {
  slug: string;
  name?: string;
  starts_at?: string;
}

/**
 * A new event with the configuration of `slug` and no orders; every date moves by the offset
 * between the two starts. Returns the new event's slug. 409 when the new slug is taken.
 */
export async function duplicateEvent(ctx: AppContext, accountId: number, slug: string, input: DuplicateInput): Promise<string> {
  const { document } = await getEventConfig(ctx, accountId, slug);
  if (await eventRow(ctx.db, accountId, input.slug)) throw configConflict('$.slug', `an event with slug "${input.slug}" exists`);
  const start = input.starts_at ?? document.starts_at;
  if (Number.isNaN(Date.parse(start))) throw validationFailed({ '$.starts_at': ['must be a date-time'] });
  const offset = Date.parse(start) - Date.parse(document.starts_at);
  const move = (at: string | undefined) => (at === undefined ? undefined : new Date(Date.parse(at) + offset).toISOString());
  const copy: EventDocument = {
    ...document,
    slug: input.slug,
    name: input.name ?? document.name,
    starts_at: move(document.starts_at)!,
    ...(document.ends_at ? { ends_at: move(document.ends_at)! } : {}),
    ...(document.sales_end_at ? { sales_end_at: move(document.sales_end_at)! } : {}),
    ...(document.payment_expires_at ? { payment_expires_at: move(document.payment_expires_at)! } : {}),
    sessions: (document.sessions ?? []).map((s) => ({
      ...s,
      starts_at: move(s.starts_at)!,
      ...(s.ends_at ? { ends_at: move(s.ends_at)! } : {}),
    })),
    // archived ticket types stay behind: nothing refers to them in a new event
    ticket_types: (document.ticket_types ?? []).filter((t) => !t.archived),
  };
  const kept = new Set((copy.ticket_types ?? []).map((t) => t.key));
  copy.sessions = copy.sessions!.map((s) => ({ ...s, ticket_types: (s.ticket_types ?? []).filter((k) => kept.has(k)) }));
  copy.discount_codes = (copy.discount_codes ?? []).map((c) =>
    c.ticket_types ? { ...c, ticket_types: c.ticket_types.filter((k) => kept.has(k)) } : c,
  );
  copy.checkin_lists = (copy.checkin_lists ?? []).map((l) =>
    l.ticket_types ? { ...l, ticket_types: l.ticket_types.filter((k) => kept.has(k)) } : l,
  );
  const result = await putEventConfig(ctx, accountId, input.slug, copy, undefined, { createOnly: true });
  return result.document.slug;
}

export interface TicketTypePatch {
  name?: string;
  price_cents?: number;
  capacity?: number | null;
  max_per_order?: number | null;
  on_sale?: boolean;
  position?: number;
}

/** Merges the patch into the event's document and applies it (same rules and errors); returns the type's key. */
export async function patchTicketType(
  ctx: AppContext,
  accountId: number,
  slug: string,
  id: number,
  patch: TicketTypePatch,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const { document, etag } = await getEventConfig(ctx, accountId, slug);
    const row = await ctx.db
      .selectFrom('ticket_types as t')
      .innerJoin('events as e', 'e.id', 't.event_id')
      .select(['t.key', 't.archived'])
      .where('e.account_id', '=', accountId)
      .where('e.slug', '=', slug)
      .where('t.id', '=', id)
      .executeTakeFirst();
    if (!row || row.archived) throw notFound(`No ticket type ${id} in event "${slug}"`);
    const types = (document.ticket_types ?? []).map((t) => {
      if (t.key !== row.key) return t;
      const merged: TicketTypeIn = { ...t };
      if (patch.name !== undefined) merged.name = patch.name;
      if (patch.price_cents !== undefined) merged.price = patch.price_cents;
      if (patch.capacity !== undefined) merged.capacity = patch.capacity;
      if (patch.max_per_order !== undefined) merged.max_per_order = patch.max_per_order;
      if (patch.on_sale !== undefined) merged.on_sale = patch.on_sale;
      if (patch.position !== undefined) merged.position = patch.position;
      return merged;
    });
    try {
      // the merge is against what was read: If-Match keeps a concurrent edit from being undone
      await putEventConfig(ctx, accountId, slug, { ...document, ticket_types: types }, etag);
      return;
    } catch (err) {
      if (attempt < 3 && err instanceof AppError && err.code === 'precondition_failed') continue;
      throw err;
    }
  }
}
