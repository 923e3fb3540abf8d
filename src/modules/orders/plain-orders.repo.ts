import { CompiledQuery, sql, type Insertable } from 'kysely';
import { perDb } from '../../platform/cache.ts';
import { PREPARE } from '../../platform/db/callback-pool.ts';
import type { Db } from '../../platform/db/database.ts';
import type { OrdersTable } from '../../platform/db/schema.ts';
import { indexedSecret, randomRef } from '../../platform/secrets.ts';
import type { OrderRow, PreparedOrder } from './prepared-order.ts';

/*
 * The rows a batch of orders writes, built in memory and sent as JSON, and the batch that needs
 * no transaction at all: plain orders on one inventory row, in one statement (the flash sale's
 * path). The order writer (order-writer.repo.ts) uses both.
 */

/**
 * `insert into <table>` of many rows as one JSON parameter read by jsonb_populate_recordset: the
 * values are encoded once by JSON.stringify and parsed by PostgreSQL, instead of being visited one
 * by one by the query builder and sent as thousands of parameters (a batch of 200 orders is about
 * 5,000 values for its orders alone). Every row names the same columns (the first row's); one
 * that lacks a column gives NULL there, not the column's default, so callers pass complete rows.
 * JSON columns take the value itself (an object), not its text.
 */
export function jsonInsert(
  table: 'orders' | 'order_lines' | 'order_log',
  rows: Array<Record<string, unknown>>,
  returning = false,
) {
  if (!sameColumns(rows)) throw new Error(`${table}: rows of one insert must name the same columns`);
  const columns = Object.keys(rows[0]!);
  return sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.id(c)))})
    select ${sql.join(columns.map((c) => sql.ref(`r.${c}`)))}
    from jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(rows)}::jsonb) r
    ${returning ? sql`returning *` : sql``}`;
}

export function sameColumns(rows: Array<Record<string, unknown>>): boolean {
  const columns = new Set(Object.keys(rows[0]!));
  return rows.every((r) => {
    const keys = Object.keys(r);
    return keys.length === columns.size && keys.every((k) => columns.has(k));
  });
}

/** A batch's orders in one statement (jsonInsert); rows built by other paths with other columns go through the builder. */
export async function insertOrders(trx: Db, values: Array<Insertable<OrdersTable>>): Promise<OrderRow[]> {
  if (!sameColumns(values)) return trx.insertInto('orders').values(values).returningAll().execute();
  const inserted = await jsonInsert('orders', values.map(withJsonColumns), true).$castTo<OrderRow>().execute(trx);
  return inserted.rows;
}

/**
 * The order row to insert: the prepared row with its generated ref and secrets. The added keys
 * come before the spread, here and in the lines below: V8 (Node 20) copies `{ ...row, key }` by a
 * slow path, 6.7 us a call for an order row on the bench machine against 0.45 us for `{ key, ...row }`.
 */
export function withGeneratedKeys(o: PreparedOrder): Insertable<OrdersTable> {
  return { ref: randomRef(), access_secret: indexedSecret(), qr_token: indexedSecret(), ...o.row };
}

/** What an order's "created" log entry records. */
export function createdLogData(o: PreparedOrder): Record<string, unknown> {
  return { channel: o.row.channel, total_cents: o.row.total_cents, ...o.note };
}

/** A batch's rows for one statement: orders with their generated keys, and lines and log entries that name their order by ref. */
export interface StatementRows {
  rows: Array<Record<string, unknown>>;
  lines: Array<Record<string, unknown>>;
  log: Array<Record<string, unknown>>;
}

/**
 * The rows a one-statement write sends for these orders, or null when they do not share their
 * columns (jsonb_populate_recordset reads every row with the first one's; the builder's path
 * writes such a batch).
 */
export function statementRows(orders: readonly PreparedOrder[]): StatementRows | null {
  const rows = orders.map((o) => parseJsonColumns(withGeneratedKeys(o)));
  const lines = orders.flatMap((o, n) => o.lines.map((l, position) => ({ position, order_ref: rows[n]!.ref, ...l })));
  if (!sameColumns(rows) || !sameColumns(lines)) return null;
  const log = orders.map((o, n) => ({ order_ref: rows[n]!.ref, data: createdLogData(o), at: o.now }));
  return { rows, lines, log };
}

/** the order's columns that hold JSON, kept by the prepared row as JSON text */
const JSON_COLUMNS = new Set(['answers', 'item_answers', 'invoice_address']);

/** The order row as a JSON document takes: its JSON columns as values, not as their text. */
function withJsonColumns(orderRow: object): Record<string, unknown> {
  return parseJsonColumns({ ...orderRow });
}

/** Parses the row's JSON columns in place (a row of its own, not one the caller still reads as text). */
export function parseJsonColumns(row: Record<string, unknown>): Record<string, unknown> {
  for (const k of JSON_COLUMNS) if (typeof row[k] === 'string') row[k] = JSON.parse(row[k] as string);
  return row;
}

/**
 * The written orders as stored, in the order of the rows sent, matched by account and ref (RETURNING
 * does not promise the order). Null when none was written; rows written in part are a bug.
 */
export function inSentOrder(sent: Array<Record<string, unknown>>, returned: Map<string, OrderRow>): OrderRow[] | null {
  const found = sent.map((r) => returned.get(`${r.account_id as number}\u0000${r.ref as string}`));
  if (found.every((o) => o === undefined)) return null;
  if (found.some((o) => o === undefined)) throw new Error('an insert returned some of its orders, not all');
  return found as OrderRow[];
}

/** The statement's returned rows by account and ref, for inSentOrder. */
export function byAccountRef(rows: OrderRow[]): Map<string, OrderRow> {
  return new Map(rows.map((o) => [`${o.account_id}\u0000${o.ref}`, o]));
}

/**
 * An order the one-statement path can write: one inventory row, no Idempotency-Key, no discount
 * code, no seats, something to pay (free orders are fulfilled at once), and no item that was unlimited when
 * priced (those are re-read under a lock, see staleUnlimited).
 */
function isPlainOrder(o: PreparedOrder): boolean {
  return (
    !o.idempotency &&
    o.codes.length === 0 &&
    !o.seats?.length &&
    o.units.size === 1 &&
    Number(o.row.total_cents) > 0 &&
    o.lines.every((l) => l.inventory_id !== null || l.kind === 'donations')
  );
}

/** The one inventory row every order of the batch takes from, when they are all plain and share it. */
export function plainInventory(orders: PreparedOrder[]): { inventoryId: number; quantity: number } | null {
  if (!orders.every(isPlainOrder)) return null;
  const [inventoryId] = orders[0]!.units.keys() as IterableIterator<number>;
  let quantity = 0;
  for (const o of orders) {
    const q = o.units.get(inventoryId!);
    if (q === undefined) return null;
    quantity += q;
  }
  return { inventoryId: inventoryId!, quantity };
}

/** Plain orders of one batch (one event's), all on one inventory row: all of them are written, or none. */
export interface PlainGroup {
  orders: PreparedOrder[];
  inventoryId: number;
  /** the units they take together */
  quantity: number;
}

/**
 * Several groups of plain orders, each on its own inventory row (batches of different events
 * that are ready at the same moment), in one statement: each group is written whole when its row
 * has room for all of it, and not at all otherwise (null in its place: the caller's transaction
 * takes it from there), exactly as if each had its own statement; the commit, the counters'
 * triggers and the statement's planning are shared. The rows are locked in id order, as every
 * writer of several inventory rows locks them, so two such statements never wait on each other
 * in a cycle. Groups whose rows do not share their columns with the first are not written (null).
 */
export async function writePlainGroups(db: Db, groups: PlainGroup[]): Promise<Array<OrderRow[] | null>> {
  const built = groups.map((g) => statementRows(g.orders));
  const first = built[0];
  if (!first) return groups.map(() => null);
  const columns = Object.keys(first.rows[0]!);
  const lineKeys = Object.keys(first.lines[0]!);
  const same = (keys: string[], row: Record<string, unknown>) => {
    const k = Object.keys(row);
    return k.length === keys.length && keys.every((c) => k.includes(c));
  };
  // a group whose rows differ from the first's is left to the transaction
  const taking = built.map((b, n) => b !== null && (n === 0 || (same(columns, b.rows[0]!) && same(lineKeys, b.lines[0]!))));
  const orders: Array<Record<string, unknown>> = [];
  const lines: Array<Record<string, unknown>> = [];
  const log: Array<Record<string, unknown>> = [];
  const want = new Map<number, number>();
  groups.forEach((g, n) => {
    const b = built[n];
    if (!taking[n] || !b) return;
    want.set(g.inventoryId, (want.get(g.inventoryId) ?? 0) + g.quantity);
    const accountOf = new Map(b.rows.map((r) => [r.ref, r.account_id]));
    for (const row of b.rows) orders.push({ stock_id: g.inventoryId, ...row });
    for (const l of b.lines) lines.push({ order_account: accountOf.get(l.order_ref), ...l });
    for (const e of b.log) log.push({ order_account: accountOf.get(e.order_ref), ...e });
  });
  const ids = [...want.keys()].sort((a, b) => a - b);
  const text = plainGroupsText(columns, lineKeys);
  const params = [ids, ids.map((id) => want.get(id)!), JSON.stringify(orders), JSON.stringify(lines), JSON.stringify(log)];
  const result = await db.executeQuery<OrderRow>(CompiledQuery.raw(text, params));
  const returned = byAccountRef(result.rows);
  return built.map((b, n) => (taking[n] && b ? inSentOrder(b.rows, returned) : null));
}

/** Statements of plain batches in flight per process, and the most orders one of them carries. */
const PLAIN_STATEMENTS = 2;
const MAX_PLAIN_ORDERS = 400;

interface Together {
  waiting: Array<PlainGroup & { resolve: (rows: OrderRow[] | null) => void; reject: (e: unknown) => void }>;
  running: number;
}

const together = new WeakMap<Db, Together>();

/**
 * A batch of plain orders on one row, written with whatever plain batches of other events are
 * waiting: while PLAIN_STATEMENTS statements are in flight, batches queue, and the next statement
 * takes them all (up to MAX_PLAIN_ORDERS orders). A batch alone is written at once. Null: its row
 * was short (or its rows' columns differ from the statement's), nothing of it written.
 */
export function writeTogether(db: Db, group: PlainGroup): Promise<OrderRow[] | null> {
  const state = perDb(together, db, (): Together => ({ waiting: [], running: 0 }));
  return new Promise((resolve, reject) => {
    state.waiting.push({ ...group, resolve, reject });
    if (state.running < PLAIN_STATEMENTS) void flushTogether(db, state);
  });
}

async function flushTogether(db: Db, t: Together): Promise<void> {
  t.running++;
  try {
    while (t.waiting.length) {
      // one group per inventory row in a statement (each all or nothing on its own row); a second
      // group on a row waits for the next statement
      const groups: typeof t.waiting = [];
      const rows = new Set<number>();
      let orders = 0;
      for (const g of t.waiting) {
        if (rows.has(g.inventoryId)) continue;
        if (groups.length && orders + g.orders.length > MAX_PLAIN_ORDERS) break;
        groups.push(g);
        rows.add(g.inventoryId);
        orders += g.orders.length;
      }
      const chosen = new Set(groups);
      t.waiting = t.waiting.filter((g) => !chosen.has(g));
      try {
        const written = await writePlainGroups(db, groups);
        groups.forEach((g, i) => g.resolve(written[i]!));
      } catch (err) {
        for (const g of groups) g.reject(err);
      }
    }
  } finally {
    t.running--;
  }
}

/** writePlainGroups' statement text per shape of its rows, built once: the shapes are few (the orders' and lines' columns). */
const plainGroupsTexts = new Map<string, string>();

function plainGroupsText(columns: string[], lineKeys: string[]): string {
  const shape = `${columns.join()}|${lineKeys.join()}`;
  let text = plainGroupsTexts.get(shape);
  if (text) return text;
  const lineColumns = lineKeys.filter((c) => c !== 'order_ref');
  const id = (c: string) => `"${c.replaceAll('"', '""')}"`;
  const list = (names: string[], prefix: string) => names.map((c) => `${prefix}.${id(c)}`).join(', ');
  // $1 the inventory rows (ascending ids), $2 the units each gives (a bigint: a batch's sum can
  // pass any integer column and is then short), $3 the orders (each with its row as stock_id),
  // $4 their lines, $5 their log entries (lines and entries name their order by account and ref).
  // `locked` takes the rows' locks in id order before the update can take any.
  text = `${PREPARE}
    with locked as materialized (
      select i.id from inventory i where i.id = any($1::bigint[]) order by i.id for update),
    taken as (
      update inventory i set taken = i.taken + w.q
      from unnest($1::bigint[], $2::bigint[]) w(id, q)
      where i.id = w.id and i.id in (select id from locked) and i.capacity - i.taken >= w.q and not i.waitlisted
      returning i.id),
    o as (
      insert into orders (${columns.map(id).join(', ')})
      select ${list(columns, 'r')}
      from jsonb_array_elements($3::jsonb) e cross join lateral jsonb_populate_record(null::orders, e) r
      where (e->>'stock_id')::bigint in (select id from taken)
      returning *),
    l as (
      insert into order_lines (account_id, order_id, event_id, ${lineColumns.map(id).join(', ')})
      select o.account_id, o.id, o.event_id, ${list(lineColumns, 'x')}
      from jsonb_array_elements($4::jsonb) e
      cross join lateral jsonb_populate_record(null::order_lines, e) x
      join o on o.ref = e->>'order_ref' and o.account_id = (e->>'order_account')::bigint),
    g as (
      insert into order_log (account_id, order_id, action, data, created_at)
      select o.account_id, o.id, 'created', e->'data', (e->>'at')::timestamptz
      from jsonb_array_elements($5::jsonb) e join o on o.ref = e->>'order_ref' and o.account_id = (e->>'order_account')::bigint)
    select * from o`;
  if (plainGroupsTexts.size < 32) plainGroupsTexts.set(shape, text);
  return text;
}

/**
 * The seated one-statement write's text per shape of its rows (seated-orders.repo.ts), built once:
 * the shapes are few (the orders' and lines' columns). The row is taken only while its
 * seat_version is still $6, and the seats in $7 are written with the orders.
 */
const seatedTexts = new Map<string, string>();

export function seatedStatementText(columns: string[], lineKeys: string[]): string {
  const shape = `${columns.join()}|${lineKeys.join()}`;
  let text = seatedTexts.get(shape);
  if (text) return text;
  const lineColumns = lineKeys.filter((c) => c !== 'order_ref');
  const id = (c: string) => `"${c.replaceAll('"', '""')}"`;
  const list = (names: string[], prefix: string) => names.map((c) => `${prefix}.${id(c)}`).join(', ');
  // $1 the units taken (a bigint: a batch's sum can pass any integer column and is then short), $2 the
  // inventory row, $3 the orders, $4 their lines, $5 their log entries, $6 the seat version, $7 the seats
  text = `${PREPARE}
    with taken as (
      update inventory i set taken = i.taken + $1::bigint
      where i.id = $2::bigint and i.capacity - i.taken >= $1::bigint and not i.waitlisted and i.seat_version = $6::bigint
      returning i.id),
    o as (
      insert into orders (${columns.map(id).join(', ')})
      select ${list(columns, 'r')} from jsonb_populate_recordset(null::orders, $3::jsonb) r
      where exists (select from taken)
      returning *),
    l as (
      insert into order_lines (account_id, order_id, event_id, ${lineColumns.map(id).join(', ')})
      select o.account_id, o.id, o.event_id, ${list(lineColumns, 'x')}
      from jsonb_array_elements($4::jsonb) e
      cross join lateral jsonb_populate_record(null::order_lines, e) x
      join o on o.ref = e->>'order_ref'),
    g as (
      insert into order_log (account_id, order_id, action, data, created_at)
      select o.account_id, o.id, 'created', e->'data', (e->>'at')::timestamptz
      from jsonb_array_elements($5::jsonb) e join o on o.ref = e->>'order_ref'),
    s as (
      insert into order_seats (account_id, event_id, order_id, line_position, seat_guid)
      select o.account_id, o.event_id, o.id, (e.v->>'line')::int, e.v->>'seat_guid'
      from jsonb_array_elements($7::jsonb) with ordinality e(v, n) join o on o.ref = e.v->>'order_ref'
      order by e.n)
    select * from o`;
  if (seatedTexts.size < 32) seatedTexts.set(shape, text);
  return text;
}
