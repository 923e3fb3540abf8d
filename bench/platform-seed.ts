import pg from 'pg';

/*
 * The platform scenario's data, seeded straight into PostgreSQL with set-based SQL: accounts
 * with their owner (a console person) and an API token, events with a ticket type, a good and
 * the "All tickets" check-in list, and orders with what real orders leave behind: their lines
 * (drawing on the inventory rows), tickets for paid and refunded orders (voided for refunded
 * ones), payments, refunds, the inventory rows' `taken`, the per-order figures the reports read
 * (ticket_units, tax_cents, took_money, fees) and the report counters, computed by the
 * migrations' own per-order definitions (admit_order_units, admit_order_income,
 * admit_order_figures) as admit_rebuild_report_counters does, for the new events only.
 *
 * It grows in steps: seeding to 10,000 events on top of 1,000 adds 9,000 events with their
 * accounts and orders. Per step: one account per ten events; 1 % of the accounts are big (200
 * events each, 20 with --quick), the others share the rest; 1 % of the events are large (4,400
 * orders: about 10,200 tickets on their check-in list), 9 % have 40 orders, the others 1 to 6.
 * At 100,000 events that is 10,000 accounts and 5,075,000 orders.
 */

export const LARGE_ORDERS = 4_400;

/** The API token of platform account number `n` (sha256 of it is stored, as for any token). */
export const platformToken = (n: number) => `adm_platform_${n}_0123456789abcdef0123456789abcdef`;
/** The console owner of platform account number `n`. */
export const platformOwner = (n: number) => `owner${n}@platform.example`;

export interface SeedStep {
  /** events before this step (already seeded) and after it */
  from: number;
  to: number;
  seconds: number;
  /** seconds per part, for the report */
  parts: Record<string, number>;
}

/**
 * Seeds up to `events` events (and a tenth as many accounts) unless they are there already.
 * `passwordHash`: the console owners' password hash (copied from a person made the normal way).
 */
export async function seedPlatform(
  url: string,
  events: number,
  opts: { bigAccountEvents: number; passwordHash: string; log?: (line: string) => void },
): Promise<SeedStep> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const parts: Record<string, number> = {};
  const t0 = performance.now();
  const run = async (part: string, text: string, params: unknown[] = []) => {
    const s = performance.now();
    const r = await c.query(text, params);
    parts[part] = (parts[part] ?? 0) + (performance.now() - s) / 1000;
    opts.log?.(`  ${part}: ${(parts[part] ?? 0).toFixed(1)} s${r.rowCount ? ` (${r.rowCount} rows)` : ''}`);
    return r;
  };
  try {
    await c.query(`create table if not exists bench_platform (
      j integer primary key, account_no integer not null, size text not null, orders integer not null,
      account_id bigint, event_id bigint)`);
    const from = Number((await c.query('select coalesce(max(j), 0) n from bench_platform')).rows[0].n);
    if (from >= events) return { from, to: from, seconds: 0, parts };
    const [prevA, accounts] = [from / 10, events / 10];
    const nE = events - from;
    const nA = accounts - prevA;
    const nBig = Math.ceil(nA / 100);
    const B = opts.bigAccountEvents;
    await c.query(`set synchronous_commit = off; set work_mem = '256MB'; set maintenance_work_mem = '1GB'; set jit = off`);
    // bulk load without triggers (foreign keys, counters, the payments' figures): every figure
    // a trigger would keep is written below, set-based
    await c.query('set session_replication_role = replica');
    // one transaction: a step that fails leaves nothing behind, and the next run seeds it again
    await c.query('begin');
    await run(
      'plan',
      `insert into bench_platform (j, account_no, size, orders)
       select $1::int + 1 + k, $2::int + 1 + a, s, case s when 'large' then ${LARGE_ORDERS} when 'medium' then 40 else 1 + (k * 7) % 6 end
       from generate_series(0, $3::int - 1) k,
         lateral (select case when k < $4::int * $5::int then (k / $5::int) * 100
                    else (k - $4::int * $5::int) % ($6::int - $4::int) + ((k - $4::int * $5::int) % ($6::int - $4::int)) / 99 + 1 end a) x,
         lateral (select case when k % 100 = 50 then 'large' when k % 10 = 5 then 'medium' else 'small' end s) y`,
      [from, prevA, nE, nBig, B, nA],
    );
    await run(
      'accounts',
      `insert into accounts (slug, name, payments_mode) select 'p' || n, 'Platform ' || n, 'sandbox' from generate_series($1::int, $2::int) n`,
      [prevA + 1, accounts],
    );
    await run(
      'accounts',
      `update bench_platform b set account_id = a.id from accounts a where a.slug = 'p' || b.account_no and b.j > $1`,
      [from],
    );
    await run(
      'people and tokens',
      `insert into users (email, name, password_hash, password_changed_at)
       select 'owner' || n || '@platform.example', 'Owner ' || n, $3, now() from generate_series($1::int, $2::int) n`,
      [prevA + 1, accounts, opts.passwordHash],
    );
    await run(
      'people and tokens',
      `insert into memberships (user_id, account_id, role)
       select u.id, a.id, 'owner' from generate_series($1::int, $2::int) n
       join accounts a on a.slug = 'p' || n join users u on lower(u.email) = 'owner' || n || '@platform.example'`,
      [prevA + 1, accounts],
    );
    await run(
      'people and tokens',
      `insert into api_tokens (account_id, name, token_hash, capabilities)
       select a.id, 'platform', encode(sha256(convert_to('adm_platform_' || n || '_0123456789abcdef0123456789abcdef', 'UTF8')), 'hex'),
         '{events.view,orders.view,orders.manage}'
       from generate_series($1::int, $2::int) n join accounts a on a.slug = 'p' || n`,
      [prevA + 1, accounts],
    );
    // events from mid-2026 to early 2029, three time zones; 18 % have started by late 2026
    await run(
      'events',
      `insert into events (account_id, slug, name, currency, currencies, timezone, starts_at, created_at, locale, status)
       select b.account_id, 'e' || b.j, 'Event ' || b.j, 'eur', '{eur}',
         (array['Europe/Berlin', 'Europe/London', 'America/New_York'])[1 + b.j % 3], s.starts, s.starts - interval '200 days', 'en', 'published'
       from bench_platform b, lateral (select timestamptz '2026-06-01 19:00:00+00' + ((b.j * 7919) % 1000) * interval '1 day' starts) s
       where b.j > $1 order by b.j`,
      [from],
    );
    await run(
      'events',
      `update bench_platform b set event_id = e.id from events e where e.account_id = b.account_id and e.slug = 'e' || b.j and b.j > $1`,
      [from],
    );
    await run(
      'catalogue',
      `with inv as (insert into inventory (account_id, event_id, capacity)
         select account_id, event_id, orders * 4 + 1000 from bench_platform where j > $1 order by j returning id, account_id, event_id, capacity)
       insert into ticket_types (account_id, event_id, key, name, price_cents, capacity, inventory_id, tax_rate_bp)
       select account_id, event_id, 'ga', 'General', 2500, capacity, id, 700 from inv`,
      [from],
    );
    await run(
      'catalogue',
      `with inv as (insert into inventory (account_id, event_id, capacity)
         select account_id, event_id, orders * 4 + 1000 from bench_platform where j > $1 order by j returning id, account_id, event_id, capacity)
       insert into goods (account_id, event_id, key, name, price_cents, capacity, inventory_id, tax_rate_bp)
       select account_id, event_id, 'tote', 'Tote', 1200, capacity, id, 1900 from inv`,
      [from],
    );
    await run(
      'catalogue',
      `insert into checkin_lists (account_id, event_id, key, name)
       select account_id, event_id, 'all-tickets', 'All tickets' from bench_platform where j > $1 order by j`,
      [from],
    );
    const before = Number((await c.query('select coalesce(max(id), 0) n from orders')).rows[0].n);
    await seedOrders(run, from, before);
    await run('commit', 'commit');
    await c.query('set session_replication_role = default');
    // as autovacuum would after a bulk load: figures for the planner, all-visible pages for
    // index-only scans
    await run('vacuum analyze', 'vacuum analyze');
    return { from, to: events, seconds: (performance.now() - t0) / 1000, parts };
  } finally {
    await c.end();
  }
}

type Run = (part: string, text: string, params?: unknown[]) => Promise<unknown>;

/**
 * The orders of the events after `from`, in the order they were placed (an event's orders are
 * spread over the table as a platform's are), and everything that hangs on them. Each event sells
 * over the 120 days before it starts, up to an hour ago. Of every order number g: g % 20 = 0
 * refunded, g % 23 = 0 canceled by the buyer, g % 29 = 0 a hold (pending while it runs, two
 * days; canceled by the sweeper after), the rest paid. 1-4 tickets at 25.00 (7 % VAT included),
 * a tote at 12.00 (19 %) in every third order; a card fee on paid orders, unknown for every
 * seventh (an unpriced payment).
 */
async function seedOrders(run: Run, from: number, before: number): Promise<void> {
  await run(
    'orders',
    `insert into orders (account_id, event_id, ref, status, currency, subtotal_cents, discount_cents, total_cents, refunded_cents,
         name, email, channel, access_secret, qr_token, created_at, paid_at, refunded_at, canceled_at, expires_at,
         ticket_units, tax_cents, took_money, fees_cents, unpriced_payments)
     select b.account_id, b.event_id, 'P' || b.j || '-' || g, s.status, 'eur', m.sub, 0, m.sub,
       case when s.status = 'refunded' then m.sub else 0 end,
       'Buyer ' || g, 'buyer' || g || '.e' || b.j || '@example.org', 'api', md5('a' || b.j || '-' || g), md5('q' || b.j || '-' || g),
       t.created, case when s.paid then t.created + interval '2 minutes' end,
       case when s.status = 'refunded' then t.created + interval '1 hour' end,
       case when s.status = 'canceled' then coalesce(s.hold_end, t.created + interval '35 minutes') end,
       s.hold_end,
       m.units, round(m.units * 2500 * 700 / 10700.0)::bigint + case when m.tote then 192 else 0 end,
       s.paid, case when s.paid then coalesce(m.fee, 0) else 0 end, case when s.paid and m.fee is null then 1 else 0 end
     from bench_platform b
     join events e on e.id = b.event_id,
     generate_series(1, b.orders) g,
     lateral (select least(e.starts_at, now() - interval '1 hour') w1) w,
     lateral (select w.w1 - greatest(least(e.starts_at - interval '120 days', w.w1 - interval '30 days'), w.w1 - interval '120 days') span) x,
     lateral (select w.w1 - x.span + x.span * (g::float8 / (b.orders + 1)) created) t,
     lateral (select 1 + g % 4 units, g % 3 = 0 tote, (1 + g % 4) * 2500 + case when g % 3 = 0 then 1200 else 0 end sub,
       case when g % 7 = 0 then null else round(((1 + g % 4) * 2500 + case when g % 3 = 0 then 1200 else 0 end) * 0.014)::bigint + 25 end fee) m,
     lateral (select case when g % 20 = 0 then 'refunded' when g % 23 = 0 then 'canceled'
                          when g % 29 = 0 then case when t.created + interval '2 days' > now() then 'pending' else 'canceled' end
                          else 'paid' end status,
                     g % 20 <> 0 and g % 23 <> 0 and g % 29 = 0 hold,
                     case when g % 20 <> 0 and g % 23 <> 0 and g % 29 = 0 then t.created + interval '2 days' end hold_end,
                     g % 20 = 0 or (g % 23 <> 0 and g % 29 <> 0) paid) s
     where b.j > $1
     order by t.created`,
    [from],
  );
  await run(
    'lines',
    `insert into order_lines (account_id, order_id, event_id, kind, ticket_type_id, inventory_id, name, quantity, unit_price_cents,
         total_cents, tax_rate_bp, tax_cents, position)
     select o.account_id, o.id, o.event_id, 'tickets', t.id, t.inventory_id, 'General', o.ticket_units, 2500, o.ticket_units * 2500, 700,
       round(o.ticket_units * 2500 * 700 / 10700.0), 0
     from orders o join ticket_types t on t.event_id = o.event_id where o.id > $1 order by o.id`,
    [before],
  );
  await run(
    'lines',
    `insert into order_lines (account_id, order_id, event_id, kind, good_id, inventory_id, name, quantity, unit_price_cents,
         total_cents, tax_rate_bp, tax_cents, position)
     select o.account_id, o.id, o.event_id, 'goods', t.id, t.inventory_id, 'Tote', 1, 1200, 1200, 1900, 192, 1
     from orders o join goods t on t.event_id = o.event_id where o.id > $1 and o.subtotal_cents % 2500 = 1200 order by o.id`,
    [before],
  );
  await run('lines', 'analyze orders, order_lines');
  // tickets as fulfilOrder mints them: one per unit of a ticket line, refs <order ref>-<n>
  await run(
    'tickets',
    `insert into tickets (account_id, event_id, order_id, order_line_id, ticket_type_id, ref, qr_token, status, position, created_at)
     select o.account_id, o.event_id, o.id, l.id, l.ticket_type_id, o.ref || '-' || n, md5('t' || o.id || '-' || n),
       case when o.status = 'refunded' then 'voided' else 'valid' end, n, o.paid_at
     from orders o join order_lines l on l.order_id = o.id and l.kind = 'tickets', generate_series(1, l.quantity) n
     where o.id > $1 and o.paid_at is not null order by o.id, n`,
    [before],
  );
  await run(
    'payments and refunds',
    `insert into payments (account_id, order_id, rail, provider, status, amount_cents, currency, provider_ref, fee_cents, fee_currency,
         platform_fee_cents, created_at, succeeded_at)
     select o.account_id, o.id, 'card', 'stripe', 'succeeded', o.total_cents, o.currency, 'pi_' || o.id,
       case when o.unpriced_payments = 0 then o.fees_cents end, o.currency, 0, o.paid_at, o.paid_at
     from orders o where o.id > $1 and o.paid_at is not null order by o.id`,
    [before],
  );
  await run(
    'payments and refunds',
    `insert into refunds (account_id, order_id, amount_cents, currency, status, created_at, completed_at)
     select o.account_id, o.id, o.refunded_cents, o.currency, 'succeeded', o.refunded_at, o.refunded_at
     from orders o where o.id > $1 and o.status = 'refunded' order by o.id`,
    [before],
  );
  // stock taken by live holds and paid orders; canceled and refunded orders gave theirs back
  await run(
    'stock',
    `update inventory i set taken = x.units
     from (select l.inventory_id, sum(l.quantity)::int units from order_lines l join orders o on o.id = l.order_id
           where o.id > $1 and o.status in ('pending', 'paid') group by 1) x
     where i.id = x.inventory_id`,
    [before],
  );
  // the report counters of the new events (none had any), from the migrations' definitions
  await run(
    'counters',
    `insert into item_sales (event_id, kind, item_id, portal_id, shard, sold)
     select p.event_id, p.kind, p.item_id, p.portal_id, 0, sum(p.units)
     from orders o, admit_order_units(o, 1) p where o.id > $1 group by 1, 2, 3, 4`,
    [before],
  );
  await run(
    'counters',
    `insert into income_counters (event_id, stamp, grain, at, codes_key, shard, orders, gross_cents, discount_cents,
       refund_cents, refunded_orders, tax_cents, fees_cents, platform_fee_cents, unpriced_payments, units)
     select p.event_id, p.stamp, p.grain, p.at, p.codes_key, 0, sum(p.orders), sum(p.gross_cents), sum(p.discount_cents),
       sum(p.refund_cents), sum(p.refunded_orders), sum(p.tax_cents), sum(p.fees_cents), sum(p.platform_fee_cents),
       sum(p.unpriced_payments), sum(p.units)
     from orders o, admit_order_income(o, 1) p where o.id > $1 group by 1, 2, 3, 4, 5`,
    [before],
  );
  await run(
    'counters',
    `insert into order_report_counters (event_id, stamp, grain, at, currency, status, audience_id, codes_key, took_money,
       shard, orders, units, gross_cents, discount_cents, refund_cents)
     select p.event_id, p.stamp, p.grain, p.at, p.currency, p.status, p.audience_id, p.codes_key, p.took_money, 0,
       sum(p.orders), sum(p.units), sum(p.gross_cents), sum(p.discount_cents), sum(p.refund_cents)
     from orders o, admit_order_figures(o, 1) p where o.id > $1 group by 1, 2, 3, 4, 5, 6, 7, 8, 9`,
    [before],
  );
  await run(
    'counters',
    `insert into event_income (event_id, shard, net_cents)
     select event_id, 0, sum(gross_cents - discount_cents - refund_cents) from income_counters
     where event_id in (select event_id from orders where id > $1) and stamp = 'paid' and grain = 'day'
     group by 1 having sum(gross_cents - discount_cents - refund_cents) <> 0`,
    [before],
  );
}
