import type { Db } from '../../platform/db/database.ts';
import { iso } from '../../platform/time.ts';
import { DEFAULT_OFFER_MINUTES, type EventDocument, type EventIn, type TicketTypeIn } from './event-document.ts';
import { readSeating } from './seating.repo.ts';

/** An account's event by slug; `lock`: held against other config writers until the transaction ends. */
export async function eventRow(db: Db, accountId: number, slug: string, lock = false) {
  let q = db.selectFrom('events').selectAll().where('account_id', '=', accountId).where('slug', '=', slug);
  // NO KEY UPDATE: orders being written hold KEY SHARE on the event row (their foreign key); a
  // config change must not wait on them while they wait on its item locks (a deadlock)
  if (lock) q = q.forNoKeyUpdate();
  return q.executeTakeFirst();
}

export type StoredEvent = NonNullable<Awaited<ReturnType<typeof eventRow>>>;

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
  const seating = await readSeating(db, eventId);
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
    status: e.status,
    ...(e.sales_start_at ? { sales_start_at: iso(e.sales_start_at)! } : {}),
    archived: e.archived,
    ...(e.invoice_address ? { invoice_address: e.invoice_address } : {}),
    ...(seating ? { seating } : {}),
    // written out only when it differs from the default, so documents that never named it read back as they were
    ...(e.waiting_list_enabled || e.waiting_list_offer_minutes !== DEFAULT_OFFER_MINUTES
      ? { waiting_list: { enabled: e.waiting_list_enabled, offer_minutes: e.waiting_list_offer_minutes } }
      : {}),
    ...(e.queue ? { queue: e.queue } : {}),
    ...(e.self_service ? { self_service: selfServiceOut(e.self_service) } : {}),
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

/** The stored rules with their dates in the document's ISO form (as given, canonicalised). */
function selfServiceOut(r: NonNullable<EventIn['self_service']>): NonNullable<EventIn['self_service']> {
  return {
    ...(r.edit_until ? { edit_until: iso(r.edit_until)! } : {}),
    ...(r.transfer !== undefined ? { transfer: r.transfer } : {}),
    ...(r.cancel_until ? { cancel_until: iso(r.cancel_until)! } : {}),
    ...(r.cancel_fee_percent !== undefined ? { cancel_fee_percent: r.cancel_fee_percent } : {}),
  };
}
