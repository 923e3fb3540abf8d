import { sql } from 'kysely';
import type { Db } from '../../src/platform/db/database.ts';

const WATCHED = [
  'orders',
  'order_lines',
  'payments',
  'refunds',
  'tickets',
  'checkins',
  'inventory',
  'themes',
  'idempotency_keys',
  'outbox',
  'events',
  'ticket_types',
  'discount_codes',
  'webhook_endpoints',
  'webhook_deliveries',
];

/**
 * A cheap fingerprint of the watched tables: row counts plus the sum of the rows' xmin (the
 * transaction that last wrote each row), so any insert, update or delete changes it.
 */
export async function checksum(db: Db): Promise<string> {
  const parts = WATCHED.map(
    (table) =>
      sql`select ${table}::text as t, count(*)::text as n, coalesce(sum((x.xmin::text)::bigint), 0)::text as h from ${sql.table(table)} as x`,
  );
  // tokens: every field but last_used_at, which authentication keeps even for a refused request
  parts.push(
    sql`select 'api_tokens' as t, count(*)::text as n, coalesce(md5(string_agg(concat_ws(':', x.id, x.name, x.token_hash, x.capabilities::text, x.scopes::text, x.event_slugs::text), ',' order by x.id)), '') as h from api_tokens as x`,
  );
  const r = await sql<{ t: string; n: string; h: string }>`${sql.join(parts, sql` union all `)}`.execute(db);
  return r.rows.map((row) => `${row.t}:${row.n}:${row.h}`).join('|');
}
