import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase } from '../../../test/db.ts';
import { openDatabase } from './database.ts';
import { migrate, readMigrations } from './migrate.ts';

/**
 * A fresh database migrated up to (not including) `before`, with an account and an event in
 * `tz`; runs `fn` and drops it. `rest()` applies the remaining migrations.
 */
async function beforeMigration(
  before: number,
  tz: string,
  fn: (db: Awaited<ReturnType<typeof openDatabase>>['db'], rest: () => Promise<unknown>) => Promise<void>,
): Promise<void> {
  const testDb = await createTestDatabase();
  const d = await openDatabase({ databaseUrl: testDb.url, dataDir: null });
  try {
    const all = readMigrations();
    await migrate(
      d.db,
      all.filter((f) => f.version < before),
    );
    await sql`insert into accounts (slug, name) values ('a', 'A')`.execute(d.db);
    await sql`insert into events (account_id, slug, name, currency, currencies, timezone, starts_at)
      values (1, 'e', 'E', 'eur', '{eur}', ${tz}, now())`.execute(d.db);
    await fn(d.db, () => migrate(d.db, all));
  } finally {
    await d.close();
    await testDb.drop();
  }
}

describe('migrate', () => {
  it('applies every file once, even when several instances start at the same time', async () => {
    const testDb = await createTestDatabase();
    // PGlite is one process' private database; the race only exists on PostgreSQL.
    const instances = testDb.url ? 4 : 1;
    const dbs = await Promise.all(
      Array.from({ length: instances }, () => openDatabase({ databaseUrl: testDb.url, dataDir: null })),
    );
    try {
      const results = await Promise.all(dbs.map((d) => migrate(d.db)));
      const applied = results.flat();
      const files = readMigrations().map((f) => f.name);
      expect(applied.sort()).toEqual([...files].sort());
      expect(await migrate(dbs[0]!.db)).toEqual([]);
      const rows = await sql<{ n: number }>`select count(*)::int as n from schema_migrations`.execute(dbs[0]!.db);
      expect(rows.rows[0]!.n).toBe(files.length);
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
      await testDb.drop();
    }
  });

  it('0008 fills the payment figures of orders written before it, then keeps them by trigger', async () => {
    await beforeMigration(8, 'UTC', async (db, rest) => {
      await sql`insert into orders (account_id, event_id, ref, status, currency, subtotal_cents, total_cents, access_secret, qr_token, created_at)
        values (1, 1, 'R1', 'paid', 'eur', 1000, 1000, 's1', 'q1', now()), (1, 1, 'R2', 'pending', 'eur', 1000, 1000, 's2', 'q2', now())`.execute(
        db,
      );
      await sql`insert into payments (account_id, order_id, rail, provider, status, amount_cents, currency, fee_cents, fee_currency, platform_fee_cents, created_at)
        values (1, 1, 'card', 'stripe', 'succeeded', 1000, 'eur', 40, 'eur', 5, now()),
               (1, 1, 'card', 'stripe', 'succeeded', 10, 'usd', 1, 'usd', 0, now()),
               (1, 2, 'card', 'stripe', 'failed', 1000, 'eur', null, null, 0, now())`.execute(db);
      await rest();
      const figures = () =>
        sql<{ ref: string; took_money: boolean; fees_cents: number; platform_fees_cents: number; unpriced_payments: number }>`
          select ref, took_money, fees_cents::int, platform_fees_cents::int, unpriced_payments from orders order by ref`
          .execute(db)
          .then((r) => r.rows);
      // the usd fee is not in the event currency: out of fees_cents, but established, so not unpriced (0011)
      expect(await figures()).toEqual([
        { ref: 'R1', took_money: true, fees_cents: 40, platform_fees_cents: 5, unpriced_payments: 0 },
        { ref: 'R2', took_money: false, fees_cents: 0, platform_fees_cents: 0, unpriced_payments: 0 },
      ]);
      await sql`update payments set status = 'succeeded', fee_cents = 3, fee_currency = 'eur' where order_id = 2`.execute(db);
      await sql`delete from payments where order_id = 1`.execute(db);
      expect(await figures()).toEqual([
        { ref: 'R1', took_money: false, fees_cents: 0, platform_fees_cents: 0, unpriced_payments: 0 },
        { ref: 'R2', took_money: true, fees_cents: 3, platform_fees_cents: 0, unpriced_payments: 0 },
      ]);
    });
  });

  it('0011 stops counting fees established in another currency as unpriced, orders and counters alike', async () => {
    await beforeMigration(11, 'UTC', async (db, rest) => {
      await sql`insert into orders (account_id, event_id, ref, status, currency, subtotal_cents, total_cents, access_secret, qr_token,
          created_at, paid_at)
        values (1, 1, 'R1', 'paid', 'eur', 1000, 1000, 's1', 'q1', now(), now())`.execute(db);
      await sql`insert into payments (account_id, order_id, rail, provider, status, amount_cents, currency, fee_cents, fee_currency, created_at)
        values (1, 1, 'card', 'stripe', 'succeeded', 600, 'usd', 30, 'usd', now()),
               (1, 1, 'card', 'stripe', 'succeeded', 400, 'eur', null, null, now())`.execute(db);
      const unpriced = async () => ({
        order: (await sql<{ n: number }>`select unpriced_payments as n from orders`.execute(db)).rows[0]!.n,
        counters: (
          await sql<{ n: number }>`select coalesce(sum(unpriced_payments), 0)::int as n from income_counters
            where stamp = 'paid' and grain = 'day'`.execute(db)
        ).rows[0]!.n,
      });
      // before: the usd fee and the missing fee both counted
      expect(await unpriced()).toEqual({ order: 2, counters: 2 });
      await rest();
      // after: only the missing fee is unpriced
      expect(await unpriced()).toEqual({ order: 1, counters: 1 });
    });
  });

  it('0009 counts the orders written before it into the report counters', async () => {
    await beforeMigration(9, 'Asia/Kolkata', async (db, rest) => {
      await sql`insert into ticket_types (account_id, event_id, key, name, price_cents) values (1, 1, 'ga', 'GA', 1000)`.execute(
        db,
      );
      await sql`insert into orders (account_id, event_id, ref, status, currency, subtotal_cents, total_cents, access_secret, qr_token,
          created_at, paid_at, codes_key)
        values (1, 1, 'R1', 'paid', 'eur', 3000, 3000, 's1', 'q1', '2026-01-01T18:20:00Z', '2026-01-01T18:31:00Z', 'X'),
               (1, 1, 'R2', 'pending', 'eur', 1000, 1000, 's2', 'q2', '2026-01-01T18:20:00Z', null, '')`.execute(db);
      await sql`insert into order_lines (account_id, order_id, event_id, kind, ticket_type_id, name, quantity, unit_price_cents, total_cents)
        values (1, 1, 1, 'tickets', 1, 'GA', 3, 1000, 3000), (1, 2, 1, 'tickets', 1, 'GA', 1, 1000, 1000)`.execute(db);
      await sql`insert into payments (account_id, order_id, rail, provider, status, amount_cents, currency, fee_cents, fee_currency, created_at)
        values (1, 1, 'card', 'stripe', 'succeeded', 3000, 'eur', 40, 'eur', now())`.execute(db);
      await rest();
      const units =
        await sql`select kind, item_id::int, portal_id::int, sum(sold)::int as sold from item_sales group by 1, 2, 3`.execute(db);
      expect(units.rows).toEqual([{ kind: 'tickets', item_id: 1, portal_id: 0, sold: 3 }]);
      const income = await sql<{ stamp: string; grain: string; at: Date; orders: number; gross: number; fees: number }>`
        select stamp, grain, at, sum(orders)::int as orders, sum(gross_cents)::int as gross, sum(fees_cents)::int as fees
        from income_counters where codes_key = 'X' group by 1, 2, 3 order by 1, 2`.execute(db);
      // Kolkata is +05:30: 18:31Z is 00:01 on 2 January there, so the paid day starts at 18:30Z
      expect(income.rows.map((r) => [r.stamp, r.grain, new Date(r.at).toISOString(), r.orders, r.gross, r.fees])).toEqual([
        ['paid', 'day', '2026-01-01T18:30:00.000Z', 1, 3000, 40],
        ['paid', 'quarter', '2026-01-01T18:30:00.000Z', 1, 3000, 40],
        ['started', 'day', '2025-12-31T18:30:00.000Z', 1, 3000, 40],
        ['started', 'quarter', '2026-01-01T18:15:00.000Z', 1, 3000, 40],
      ]);
    });
  });
});
