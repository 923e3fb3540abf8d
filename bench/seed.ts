import pg from 'pg';

/**
 * Generates `count` orders over two years for one event straight into PostgreSQL with set-based
 * SQL: a realistic mix of statuses, currencies (with fx rates), codes, audiences, portals, ticket
 * and goods lines, donations, payments with and without established fees, and refunds.
 */
export async function seedOrders(
  url: string,
  event: SeedEvent,
  count: number,
  /** keeps refs and tokens unique when several events are seeded in one database */
  tag = '',
): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await seedOrdersWith(async (text, params) => void (await c.query(text, params)), event, count, tag);
  } finally {
    await c.end();
  }
}

/** Runs one statement (PostgreSQL through pg, or the embedded PGlite). */
export type Run = (text: string, params?: unknown[]) => Promise<void>;

export interface SeedEvent {
  accountId: number;
  eventId: number;
  gaId: number;
  goodId: number;
  donationId: number;
  audienceId: number;
  portalId: number;
}

/** The same generation over any connection: the bench's PostgreSQL, or an embedded database (the move scenario). */
export async function seedOrdersWith(
  run: Run,
  event: SeedEvent,
  count: number,
  /** keeps refs and tokens unique when several events are seeded in one database */
  tag = '',
): Promise<number> {
  const c = { query: run };
  const t0 = Date.now();
  await c.query('set synchronous_commit = off');
  // bulk load without the per-row and per-statement triggers (payment figures, report
  // counters), then the same figures and counters set-based from the migrations' definitions
  await c.query('set session_replication_role = replica');
  await c.query(
    `insert into orders (account_id, event_id, ref, status, currency, fx_rate, subtotal_cents, discount_cents, total_cents, refunded_cents,
         email, audience_id, portal_id, channel, access_secret, qr_token, codes_key, created_at, paid_at, refunded_at, canceled_at, expires_at)
       select $1, $2, 'B' || g, s.status, s.currency, case when s.currency = 'gbp' then 1.17 else 1 end,
         s.sub, s.disc, s.sub - s.disc, case when s.status = 'refunded' then s.sub - s.disc else 0 end,
         'buyer' || g || '@example.org', case when g % 17 = 0 then $3::bigint end, case when g % 11 = 0 then $4::bigint end, 'api',
         md5('a' || $6 || g), md5('q' || $6 || g), case when g % 5 = 0 then 'SPRING' when g % 13 = 0 then 'SPRING,VIP' else '' end,
         s.created, case when s.status in ('paid','refunded') then s.created + interval '2 minutes' end,
         case when s.status = 'refunded' then s.created + interval '3 days' end,
         case when s.status = 'canceled' then s.created + interval '35 minutes' end,
         case when s.status = 'pending' then s.created + interval '1 day' end
       from generate_series(1, $5::int) g,
       lateral (select
         case when g % 20 = 0 then 'refunded' when g % 23 = 0 then 'canceled' when g % 29 = 0 then 'pending' else 'paid' end as status,
         case when g % 9 = 0 then 'gbp' else 'eur' end as currency,
         (1 + g % 4) * 2500 + case when g % 3 = 0 then 1200 else 0 end as sub,
         case when g % 5 = 0 then 250 else 0 end as disc,
         timestamptz '2024-11-22 00:00:00+00' + (g::float8 / $5 * 730) * interval '1 day' as created) s`,
    [event.accountId, event.eventId, event.audienceId, event.portalId, count, tag],
  );
  await c.query(
    `insert into order_lines (account_id, order_id, event_id, kind, ticket_type_id, name, quantity, unit_price_cents, total_cents, tax_rate_bp, tax_cents, position)
       select o.account_id, o.id, o.event_id, 'tickets', $2, 'General', (o.subtotal_cents / 2500)::int, 2500, (o.subtotal_cents / 2500)::int * 2500, 700,
         round((o.subtotal_cents / 2500)::int * 2500 * 700 / 10700.0), 0
       from orders o where o.event_id = $1`,
    [event.eventId, event.gaId],
  );
  await c.query(
    `insert into order_lines (account_id, order_id, event_id, kind, good_id, name, quantity, unit_price_cents, total_cents, tax_rate_bp, tax_cents, position)
       select o.account_id, o.id, o.event_id, 'goods', $2, 'Tote', 1, 1200, 1200, 1900, 192, 1
       from orders o where o.event_id = $1 and o.subtotal_cents % 2500 = 1200`,
    [event.eventId, event.goodId],
  );
  // figures for what was just loaded, as autovacuum would take them a little later: the
  // statements below join over all of it
  await c.query('analyze orders, order_lines');
  await c.query(
    `update orders o set ticket_units = l.units, tax_cents = l.tax
       from (select order_id, coalesce(sum(quantity) filter (where kind = 'tickets'), 0) as units, sum(tax_cents) as tax
             from order_lines where event_id = $1 group by order_id) l
       where l.order_id = o.id`,
    [event.eventId],
  );
  await c.query(
    `insert into payments (account_id, order_id, rail, provider, status, amount_cents, currency, provider_ref, fee_cents, fee_currency, platform_fee_cents, created_at, succeeded_at)
       select o.account_id, o.id, 'card', 'stripe', 'succeeded', o.total_cents, o.currency, 'pi_' || o.id,
         case when o.id % 7 = 0 then null else round(o.total_cents * 0.014) + 25 end, o.currency, 0, o.paid_at, o.paid_at
       from orders o where o.event_id = $1 and o.paid_at is not null`,
    [event.eventId],
  );
  await c.query('analyze payments');
  await c.query(
    `update orders o set took_money = f.took_money, fees_cents = f.fees_cents, platform_fees_cents = f.platform_fees_cents,
         unpriced_payments = f.unpriced_payments
       from order_payment_figures f where f.order_id = o.id and o.event_id = $1`,
    [event.eventId],
  );
  await c.query(
    `insert into refunds (account_id, order_id, amount_cents, currency, status, created_at, completed_at)
       select o.account_id, o.id, o.refunded_cents, o.currency, 'succeeded', o.refunded_at, o.refunded_at
       from orders o where o.event_id = $1 and o.status = 'refunded'`,
    [event.eventId],
  );
  await c.query(
    `insert into order_discounts (account_id, order_id, code, amount_cents, position)
       select o.account_id, o.id, 'SPRING', o.discount_cents, 0 from orders o where o.event_id = $1 and o.discount_cents > 0`,
    [event.eventId],
  );
  await c.query('select admit_rebuild_report_counters($1)', [event.eventId]);
  await c.query('select admit_rebuild_event_income($1)', [event.eventId]);
  await c.query('set session_replication_role = default');
  // vacuum as autovacuum would after a bulk load, so index-only scans see all-visible pages
  await c.query('vacuum analyze');
  return (Date.now() - t0) / 1000;
}
