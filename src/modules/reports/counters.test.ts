import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pg from 'pg';
import { sql, type RawBuilder } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { compactReportCounters } from './compact-counters.repo.ts';
import { counterMismatches, PAID_FIGURES, plainIncome, plainOrdersReport } from './counters.oracle.ts';

/**
 * The report counters (migration 0009) against a recount from the orders written the plain
 * way, after random sequences of every kind of change the triggers must follow: orders and
 * lines written one by one and in batches, payments succeeding and failing, status, portal,
 * stamp and refund changes, deleted orders and lines, a new timezone, and compaction. Then
 * the income report through HTTP against plain SQL over the orders for every range.
 */

let t: TestApp;
let token: string;
let ids: { account: number; event: number; ga: number; vip: number; tote: number; portals: number[]; audiences: number[] };
const TZ = 'Asia/Kathmandu'; // +05:45: local days start on a quarter hour, not on an hour

beforeAll(async () => {
  t = await createTestApp({ now: '2026-03-01T09:07:00Z' });
  const a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'counters',
      events: [
        makeEvent({
          slug: 'ktm',
          timezone: TZ,
          currencies: ['eur', 'gbp'],
          fx_rates: { gbp: 1.17 },
          ticket_types: [
            { key: 'ga', name: 'GA', price: 2500 },
            { key: 'vip', name: 'VIP', price: 9000, capacity: 50 },
          ],
          goods: [{ key: 'tote', name: 'Tote', price: 1200 }],
          portals: [
            { key: 'uni', name: 'University' },
            { key: 'box', name: 'Box office' },
          ],
          audiences: [
            { key: 'press', name: 'Press' },
            { key: 'staff', name: 'Staff' },
          ],
        }),
      ],
    }),
  );
  token = a.tokens.all;
  const one = async (q: RawBuilder<{ id: number }>) => (await q.execute(t.ctx.db)).rows.map((r) => Number(r.id));
  const [event] = await one(sql`select id from events where slug = 'ktm'`);
  ids = {
    account: (await one(sql`select id from accounts where slug = 'counters'`))[0]!,
    event: event!,
    ga: (await one(sql`select id from ticket_types where key = 'ga' and event_id = ${event}`))[0]!,
    vip: (await one(sql`select id from ticket_types where key = 'vip' and event_id = ${event}`))[0]!,
    tote: (await one(sql`select id from goods where key = 'tote' and event_id = ${event}`))[0]!,
    portals: await one(sql`select id from portals where event_id = ${event} order by key`),
    audiences: await one(sql`select id from audiences where event_id = ${event} order by key`),
  };
});
afterAll(() => t.close());

const orderSpec = fc.record({
  status: fc.constantFrom('paid', 'paid', 'pending', 'canceled', 'refunded'),
  gbp: fc.boolean(),
  minute: fc.integer({ min: 0, max: 60 * 24 * 70 }),
  codes: fc.constantFrom('', '', 'SPRING', 'SPRING,VIP'),
  portal: fc.integer({ min: 0, max: 2 }),
  audience: fc.integer({ min: 0, max: 2 }),
  lines: fc.array(fc.record({ item: fc.constantFrom('ga', 'vip', 'tote'), quantity: fc.integer({ min: 1, max: 4 }) }), {
    minLength: 1,
    maxLength: 3,
  }),
  pay: fc.option(fc.record({ amount: fc.integer({ min: 0, max: 30000 }), fee: fc.option(fc.integer({ min: 0, max: 400 })) })),
});

const op = fc.oneof(
  fc.record({ kind: fc.constant('orders' as const), orders: fc.array(orderSpec, { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('pay' as const), pick: fc.nat(), amount: fc.integer({ min: 0, max: 9000 }) }),
  fc.record({ kind: fc.constant('fail-payment' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('status' as const), pick: fc.nat(), status: fc.constantFrom('paid', 'refunded', 'canceled') }),
  fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(), cents: fc.integer({ min: 1, max: 5000 }) }),
  fc.record({ kind: fc.constant('portal' as const), pick: fc.nat(), portal: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('audience' as const), pick: fc.nat(), audience: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('recode' as const), pick: fc.nat(), codes: fc.constantFrom('', 'SPRING', 'SPRING,VIP') }),
  fc.record({ kind: fc.constant('move' as const), pick: fc.nat(), minutes: fc.integer({ min: -3000, max: 3000 }) }),
  fc.record({ kind: fc.constant('cancel-some' as const), mod: fc.integer({ min: 2, max: 4 }) }),
  fc.record({ kind: fc.constant('delete-order' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('line' as const), pick: fc.nat(), change: fc.constantFrom('add', 'grow', 'drop') }),
  fc.record({ kind: fc.constant('timezone' as const), tz: fc.constantFrom(TZ, 'America/Santiago', 'Europe/Berlin') }),
  fc.record({ kind: fc.constant('compact' as const) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

let seq = 0;
const BASE = Date.UTC(2026, 0, 1);

async function apply(o: Op): Promise<void> {
  const db = t.ctx.db;
  const pickOrder = async (n: number) => {
    const rows = (await sql<{ id: number }>`select id from orders where event_id = ${ids.event} order by id`.execute(db)).rows;
    return rows.length ? Number(rows[n % rows.length]!.id) : null;
  };
  switch (o.kind) {
    case 'orders': {
      // one statement for the orders, one for their lines (as the group commit writes them)
      const specs = o.orders.map((s) => {
        const ref = `C${++seq}`;
        const fx = s.gbp ? 1.17 : 1;
        const at = new Date(BASE + s.minute * 60_000);
        const lines = s.lines.map((l) => ({ ...l, unit: l.item === 'vip' ? 9000 : l.item === 'tote' ? 1200 : 2500 }));
        const subtotal = lines.reduce((x, l) => x + l.unit * l.quantity, 0);
        const discount = s.codes ? 250 : 0;
        // the tickets on the order, as the order writer stores them with the order
        const units = lines.filter((l) => l.item !== 'tote').reduce((x, l) => x + l.quantity, 0);
        return { s, ref, fx, at, lines, subtotal, discount, units };
      });
      const inserted = await sql<{ id: number; ref: string }>`
        insert into orders (account_id, event_id, ref, status, currency, fx_rate, subtotal_cents, discount_cents, total_cents,
          refunded_cents, portal_id, audience_id, access_secret, qr_token, codes_key, created_at, paid_at, expires_at, ticket_units)
        select ${ids.account}, ${ids.event}, x.ref, x.status, x.currency, x.fx, x.subtotal, x.discount, x.subtotal - x.discount,
          case when x.status = 'refunded' then x.subtotal - x.discount else 0 end, x.portal, x.audience, 's' || x.ref, 'q' || x.ref, x.codes,
          x.at, case when x.status in ('paid', 'refunded') then x.at + interval '3 minutes' end,
          case when x.status = 'pending' then x.at + interval '1 hour' end, x.units
        from jsonb_to_recordset(${JSON.stringify(
          specs.map((p) => ({
            ref: p.ref,
            status: p.s.status,
            currency: p.s.gbp ? 'gbp' : 'eur',
            fx: p.fx,
            subtotal: p.subtotal,
            discount: p.discount,
            portal: p.s.portal ? ids.portals[p.s.portal - 1] : null,
            audience: p.s.audience ? ids.audiences[p.s.audience - 1] : null,
            codes: p.s.codes,
            at: p.at.toISOString(),
            units: p.units,
          })),
        )}::jsonb) x (ref text, status text, currency text, fx numeric, subtotal bigint, discount bigint, portal bigint, audience bigint, codes text, at timestamptz, units int)
        returning id, ref`.execute(db);
      const idOf = new Map(inserted.rows.map((r) => [r.ref, Number(r.id)]));
      const lines = specs.flatMap((p) =>
        p.lines.map((l, i) => ({
          order: idOf.get(p.ref),
          kind: l.item === 'tote' ? 'goods' : 'tickets',
          tt: l.item === 'tote' ? null : l.item === 'vip' ? ids.vip : ids.ga,
          good: l.item === 'tote' ? ids.tote : null,
          quantity: l.quantity,
          unit: l.unit,
          position: i,
        })),
      );
      await sql`
        insert into order_lines (account_id, order_id, event_id, kind, ticket_type_id, good_id, name, quantity, unit_price_cents,
          total_cents, tax_cents, position)
        select ${ids.account}, x.order_id, ${ids.event}, x.kind, x.tt, x.good, 'line', x.quantity, x.unit, x.quantity * x.unit,
          round(x.quantity * x.unit * 0.07), x.position
        from jsonb_to_recordset(${JSON.stringify(lines.map((l) => ({ ...l, order_id: l.order })))}::jsonb)
          x (order_id bigint, kind text, tt bigint, good bigint, quantity int, unit bigint, position int)`.execute(db);
      for (const p of specs) {
        if (!p.s.pay) continue;
        await sql`insert into payments (account_id, order_id, rail, provider, status, amount_cents, currency, fee_cents, fee_currency,
            platform_fee_cents, created_at, succeeded_at)
          values (${ids.account}, ${idOf.get(p.ref)}, 'card', 'stripe', 'succeeded', ${p.s.pay.amount}, ${p.s.gbp ? 'gbp' : 'eur'},
            ${p.s.pay.fee}, 'eur', 10, ${p.at}, ${p.at})`.execute(db);
      }
      return;
    }
    case 'pay': {
      const id = await pickOrder(o.pick);
      if (id === null) return;
      await sql`insert into payments (account_id, order_id, rail, provider, status, amount_cents, currency, fee_cents, fee_currency, created_at)
        values (${ids.account}, ${id}, 'sandbox', 'sandbox', 'succeeded', ${o.amount}, 'eur', 0, 'eur', now())`.execute(db);
      return;
    }
    case 'fail-payment': {
      const id = await pickOrder(o.pick);
      if (id !== null) await sql`update payments set status = 'failed' where order_id = ${id}`.execute(db);
      return;
    }
    case 'status': {
      const id = await pickOrder(o.pick);
      if (id === null) return;
      await sql`update orders set status = ${o.status},
          paid_at = case when ${o.status} = 'paid' then coalesce(paid_at, created_at + interval '5 minutes') else paid_at end
        where id = ${id}`.execute(db);
      return;
    }
    case 'refund': {
      const id = await pickOrder(o.pick);
      if (id !== null)
        await sql`update orders set refunded_cents = least(total_cents, refunded_cents + ${o.cents}) where id = ${id}`.execute(
          db,
        );
      return;
    }
    case 'portal': {
      const id = await pickOrder(o.pick);
      if (id !== null)
        await sql`update orders set portal_id = ${o.portal ? ids.portals[o.portal - 1]! : null} where id = ${id}`.execute(db);
      return;
    }
    case 'audience': {
      const id = await pickOrder(o.pick);
      if (id !== null)
        await sql`update orders set audience_id = ${o.audience ? ids.audiences[o.audience - 1]! : null} where id = ${id}`.execute(
          db,
        );
      return;
    }
    case 'recode': {
      const id = await pickOrder(o.pick);
      if (id !== null) await sql`update orders set codes_key = ${o.codes} where id = ${id}`.execute(db);
      return;
    }
    case 'move': {
      const id = await pickOrder(o.pick);
      if (id !== null)
        await sql`update orders set paid_at = paid_at + ${`${o.minutes} minutes`}::interval,
            created_at = created_at + ${`${o.minutes} minutes`}::interval where id = ${id}`.execute(db);
      return;
    }
    case 'cancel-some':
      await sql`update orders set status = 'canceled' where event_id = ${ids.event} and id % ${o.mod} = 0 and status <> 'canceled'`.execute(
        db,
      );
      return;
    case 'delete-order': {
      const id = await pickOrder(o.pick);
      if (id !== null) await sql`delete from orders where id = ${id}`.execute(db);
      return;
    }
    case 'line': {
      const id = await pickOrder(o.pick);
      if (id === null) return;
      if (o.change === 'add')
        await sql`insert into order_lines (account_id, order_id, event_id, kind, ticket_type_id, name, quantity, unit_price_cents, total_cents)
          values (${ids.account}, ${id}, ${ids.event}, 'tickets', ${ids.vip}, 'VIP', 2, 9000, 18000)`.execute(db);
      else if (o.change === 'grow') await sql`update order_lines set quantity = quantity + 1 where order_id = ${id}`.execute(db);
      else await sql`delete from order_lines where id = (select max(id) from order_lines where order_id = ${id})`.execute(db);
      return;
    }
    case 'timezone':
      await sql`update events set timezone = ${o.tz} where id = ${ids.event}`.execute(db);
      return;
    case 'compact':
      await compactReportCounters(db, new Date(BASE + 200 * 86_400_000));
      return;
  }
}

describe('report counters (property)', () => {
  it('equal a recount from the orders after any sequence of changes, and the income report equals plain SQL for every range', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 14 }),
        fc.integer({ min: 0, max: 70 * 24 * 4 }),
        async (ops, q) => {
          for (const o of ops) await apply(o);
          expect(await counterMismatches(t, ids.event)).toEqual({ units: [], income: [], tickets: [], report: [], total: [] });
          // a clock anywhere in the data, off the quarter hour, so rolling ranges cut days and quarters
          t.clock.set(new Date(BASE + q * 900_000 + 7 * 60_000 + 13_000).toISOString());
          for (const range of [
            'range=all',
            'range=30d',
            'range=7d',
            'range=24h',
            'range=month',
            'range=custom&from=2026-01-10&to=2026-02-03',
          ]) {
            for (const on of ['paid', 'started'] as const) {
              const res = await t.call(token, { method: 'GET', url: `/api/v1/events/ktm/income?${range}&on=${on}` });
              expect(res.statusCode).toBe(200);
              const months = res
                .json()
                .months.filter((m: { orders: number }) => m.orders > 0)
                .map((m: Record<string, number | string>) =>
                  Object.fromEntries(['month', ...PAID_FIGURES].map((k) => [k, m[k]])),
                );
              expect(months, `${range} on=${on}`).toEqual(await plainIncome(t, ids.event, range, on));
            }
          }
          // the orders report reads the same counters: every range, group and filter against plain SQL
          for (const range of [
            'range=all',
            'range=7d',
            'range=24h',
            'range=month',
            'range=custom&from=2026-01-10&to=2026-02-03',
          ]) {
            for (const extra of [
              'group=day',
              'group=week&on=started',
              'group=month&currency=gbp',
              'group=status&on=started',
              'group=code&paid=1',
              'group=audience',
              'group=day&audience=press&status=paid',
              'group=day&audience=-&code=SPRING&on=started',
              'group=code&status=refunded&currency=gbp&on=started',
            ]) {
              const query = `${range}&${extra}`;
              const res = await t.call(token, { method: 'GET', url: `/api/v1/events/ktm/report?${query}` });
              expect(res.statusCode).toBe(200);
              const rows = res
                .json()
                .rows.map((m: Record<string, number | string>) =>
                  Object.fromEntries(
                    ['key', 'orders', 'units', 'gross_cents', 'discount_cents', 'refund_cents'].map((k) => [k, m[k]]),
                  ),
                )
                .sort((x: { key: string }, y: { key: string }) => x.key.localeCompare(y.key));
              expect(rows, query).toEqual(await plainOrdersReport(t, ids.event, query));
            }
          }
        },
      ),
      { numRuns: 30, seed: 20261124 },
    );
    // 30 sequences of up to 14 changes against a database: 10-40 s alone, more beside other work
  }, 300_000);

  it('compaction folds old shards into one row per counter and changes no total', async () => {
    const paid = (i: number) => ({
      status: 'paid' as const,
      gbp: false,
      minute: 100,
      codes: '' as const,
      portal: 0,
      audience: 0,
      lines: [{ item: 'ga' as const, quantity: 1 }],
      pay: { amount: 2500 * i, fee: i },
    });
    await apply({ kind: 'orders', orders: [1, 2, 3, 4].map(paid) });
    const unfolded = async () =>
      (
        await sql<{ income: number; report: number }>`select
          (select count(*)::int from income_counters where shard <> 0) as income,
          (select count(*)::int from order_report_counters where shard <> 0) as report`.execute(t.ctx.db)
      ).rows[0]!;
    const before = await unfolded();
    await compactReportCounters(t.ctx.db, new Date(BASE + 400 * 86_400_000));
    expect(await unfolded()).toEqual({ income: 0, report: 0 });
    expect(before.income).toBeGreaterThan(0);
    expect(before.report).toBeGreaterThan(0);
    expect(await counterMismatches(t, ids.event)).toEqual({ units: [], income: [], tickets: [], report: [], total: [] });
  });

  it.runIf(process.env.DATABASE_URL)(
    'a recount while another transaction changes an order: that change lands before or after it, once',
    async () => {
      await apply({
        kind: 'orders',
        orders: [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({
          status: 'pending' as const,
          gbp: false,
          minute: 500 + i,
          codes: '' as const,
          portal: 0,
          audience: 0,
          lines: [{ item: 'ga' as const, quantity: 1 }],
          pay: null,
        })),
      });
      const writer = new pg.Client({ connectionString: t.ctx.config.databaseUrl! });
      await writer.connect();
      try {
        // the change and its counters written, not committed
        await writer.query('begin');
        await writer.query(`update orders set status = 'canceled' where event_id = $1 and status = 'pending'`, [ids.event]);
        let done = false;
        const recount = sql`select admit_rebuild_report_counters(${ids.event})`.execute(t.ctx.db).finally(() => (done = true));
        await new Promise((r) => setTimeout(r, 300));
        expect(done).toBe(false); // waits for the writer
        await writer.query('commit');
        await recount;
      } finally {
        await writer.end();
      }
      expect(await counterMismatches(t, ids.event)).toEqual({ units: [], income: [], tickets: [], report: [], total: [] });
    },
  );

  it('availability reads sold units from the counters and live holds from the orders', async () => {
    // holds of every kind: live, without an end, and run out but not yet swept; through portals and not
    const hold = (portal: number, item: 'ga' | 'vip' | 'tote') => ({
      status: 'pending' as const,
      gbp: false,
      minute: 0,
      codes: '' as const,
      portal,
      audience: 0,
      lines: [{ item, quantity: 2 }],
      pay: null,
    });
    await apply({ kind: 'orders', orders: [hold(0, 'ga'), hold(1, 'vip'), hold(2, 'tote'), hold(1, 'ga')] });
    const pending = (
      await sql<{ id: number }>`select id from orders where event_id = ${ids.event} and status = 'pending' order by id`.execute(
        t.ctx.db,
      )
    ).rows.map((r) => r.id);
    expect(pending.length).toBeGreaterThanOrEqual(3);
    const now = t.clock.now().getTime();
    await sql`update orders set expires_at = null where id = ${pending[0]}`.execute(t.ctx.db);
    await sql`update orders set expires_at = ${new Date(now - 60_000)} where id = ${pending[1]}`.execute(t.ctx.db);
    await sql`update orders set expires_at = ${new Date(now + 600_000)} where id = any(${pending.slice(2)})`.execute(t.ctx.db);
    const res = (await t.call(token, { method: 'GET', url: '/api/v1/events/ktm/availability' })).json();
    const plain = await sql<{ kind: string; item: number; sold: number; pending: number }>`
      select l.kind, coalesce(l.ticket_type_id, l.good_id) as item,
        coalesce(sum(l.quantity) filter (where o.status = 'paid'), 0)::int as sold,
        coalesce(sum(l.quantity) filter (where o.status = 'pending' and (o.expires_at is null or o.expires_at > ${t.clock.now()})), 0)::int as pending
      from orders o join order_lines l on l.order_id = o.id where o.event_id = ${ids.event} group by 1, 2`.execute(t.ctx.db);
    const byName = new Map([
      [`tickets:${ids.ga}`, 'GA'],
      [`tickets:${ids.vip}`, 'VIP'],
      [`goods:${ids.tote}`, 'Tote'],
    ]);
    for (const p of plain.rows) {
      const row = res.rows.find((r: { name: string }) => r.name === byName.get(`${p.kind}:${p.item}`));
      expect([row.sold, row.pending]).toEqual([p.sold, p.pending]);
    }
    expect(plain.rows.some((p) => p.pending > 0)).toBe(true);

    // the income report's money on hold counts the same holds (one range of the same index)
    const income = (await t.call(token, { method: 'GET', url: '/api/v1/events/ktm/income?range=all' })).json();
    const held = (
      await sql<{ orders: number; cents: number }>`
        select count(*)::int as orders, coalesce(sum(round(total_cents * fx_rate)), 0)::int as cents from orders
        where event_id = ${ids.event} and status = 'pending' and (expires_at is null or expires_at > ${t.clock.now()})`.execute(
        t.ctx.db,
      )
    ).rows[0]!;
    expect(held.orders).toBe(pending.length - 1);
    const months = income.months as Array<{ pending_orders: number; pending_cents: number }>;
    expect([months.reduce((s, m) => s + m.pending_orders, 0), months.reduce((s, m) => s + m.pending_cents, 0)]).toEqual([
      held.orders,
      held.cents,
    ]);
  });
});
