import type { Kysely } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import { configConflict } from './event-config.errors.ts';
import type { EventDocument } from './event-document.ts';
import { dropUnusedInventory, newInventory, setCapacity, type StockColumn } from '../inventory/capacity.repo.ts';

/**
 * The items of an event (ticket types, goods, sessions, ...) written from its document by one
 * routine, each kind told by a description: its table, key column, the columns of a document
 * item, and what becomes of a stored item the document leaves out.
 */

/** The tables of an event's items; each is also the field of the document that lists them. */
export type ItemTable =
  'audiences' | 'portals' | 'goods' | 'ticket_types' | 'sessions' | 'donations' | 'discount_codes' | 'checkin_lists';

/** An item as written: its row and, for an item with a capacity, its inventory row. */
export interface WrittenItem {
  id: number;
  inventoryId: number | null;
}

/** Per table, the document's items as written, by key (discount codes: by upper-case code). */
export type Written = Record<ItemTable, Map<string, WrittenItem>>;

/** A stored item's row, as much as the routine reads of it whatever its kind. */
interface StoredItem {
  id: number;
  inventory_id?: number | null;
  uses?: number;
  [column: string]: unknown;
}

type Stored = Map<ItemTable, Map<string, StoredItem>>;

/** Tables whose rows name an item, so that it is archived rather than deleted. */
type UseTable =
  'orders' | 'order_lines' | 'tickets' | 'ticket_types' | 'portals' | 'ticket_type_includes' | 'order_discounts' | 'checkins';

// Methods, not function properties: a kind of one item type then stands in a list of kinds of any.
interface ItemKind<Item> {
  table: ItemTable;
  keyColumn: 'key' | 'code';
  /** the same item whatever the key's case (discount codes: EARLY = early) */
  caseless?: boolean;
  /** read under lock before anything is written, in this list's order (the order writer's) */
  lock?: boolean;
  key(item: Item): string;
  /** the row's columns from the document's item; `index`: its place in the document's list */
  columns(item: Item, index: number, written: Written): Record<string, unknown>;
  /** an item with a capacity: held in an inventory row; `column` names the item on order lines */
  stock?: { column: StockColumn; capacity(item: Item): number | null };
  /** rows linking the item to others, written again with it */
  links?: {
    table: 'ticket_type_includes' | 'session_ticket_types';
    column: 'ticket_type_id' | 'session_id';
    rows(item: Item, written: Written): Array<Record<string, number>>;
  };
  /** a stored item the document leaves out: deleted when nothing names it, else retired */
  leftOut: {
    /** the column that retires it: a time (cleared when its key is given again), or ticket types' flag */
    retire: 'archived_at' | 'disabled_at' | 'archived';
    /** also taken off sale when retired */
    offSale?: boolean;
    /** `table.column` of the rows that name it */
    usedBy: Array<`${UseTable}.${string}`>;
    /** named in another way than by a row (a code's use count) */
    used?(row: StoredItem): boolean;
    /** one with live (paid or pending) orders cannot be left out: the change is refused, naming it this */
    refuseSold?: string;
  };
}

type ItemOf<F extends ItemTable> = NonNullable<EventDocument[F]>[number];
const typeIds = (keys: string[] | undefined, w: Written) => (keys ? keys.map((k) => w.ticket_types.get(k)!.id) : null);
const idOf = (map: Map<string, WrittenItem>, key: string | undefined) => (key ? map.get(key)!.id : null);

const audiences: ItemKind<ItemOf<'audiences'>> = {
  table: 'audiences',
  keyColumn: 'key',
  key: (a) => a.key,
  columns: (a) => ({ name: a.name }),
  leftOut: {
    retire: 'archived_at',
    usedBy: ['orders.audience_id', 'ticket_types.audience_id', 'portals.audience_id'],
  },
};

const portals: ItemKind<ItemOf<'portals'>> = {
  table: 'portals',
  keyColumn: 'key',
  key: (p) => p.key,
  columns: (p, _, w) => ({ name: p.name, audience_id: idOf(w.audiences, p.audience) }),
  leftOut: { retire: 'archived_at', usedBy: ['orders.portal_id'] },
};

const goods: ItemKind<ItemOf<'goods'>> = {
  table: 'goods',
  keyColumn: 'key',
  lock: true,
  key: (g) => g.key,
  columns: (g, i) => ({
    name: g.name,
    price_cents: g.price,
    prices: JSON.stringify(g.prices ?? {}),
    position: i,
    on_sale: g.on_sale ?? true,
    tax_rate_bp: g.tax_rate_bp ?? 0,
  }),
  stock: { column: 'good_id', capacity: (g) => g.capacity ?? null },
  leftOut: {
    retire: 'archived_at',
    offSale: true,
    usedBy: ['order_lines.good_id', 'ticket_type_includes.good_id'],
  },
};

const ticketTypes: ItemKind<ItemOf<'ticket_types'>> = {
  table: 'ticket_types',
  keyColumn: 'key',
  lock: true,
  key: (t) => t.key,
  columns: (t, i, w) => ({
    name: t.name,
    price_cents: t.price,
    prices: JSON.stringify(t.prices ?? {}),
    max_per_order: t.max_per_order ?? null,
    position: t.position ?? i,
    on_sale: t.on_sale ?? true,
    archived: t.archived ?? false,
    audience_id: idOf(w.audiences, t.audience),
    requires_session: t.requires_session ?? false,
    tax_rate_bp: t.tax_rate_bp ?? 0,
    group_discounts: JSON.stringify([...(t.group_discounts ?? [])].sort((a, b) => a.min_quantity - b.min_quantity)),
  }),
  stock: { column: 'ticket_type_id', capacity: (t) => t.capacity ?? null },
  links: {
    table: 'ticket_type_includes',
    column: 'ticket_type_id',
    rows: (t, w) => (t.includes ?? []).map((inc) => ({ good_id: w.goods.get(inc.good)!.id, quantity: inc.quantity ?? 1 })),
  },
  leftOut: { retire: 'archived', usedBy: ['order_lines.ticket_type_id'] },
};

const sessions: ItemKind<ItemOf<'sessions'>> = {
  table: 'sessions',
  keyColumn: 'key',
  lock: true,
  key: (s) => s.key,
  columns: (s, i) => ({
    name: s.name ?? '',
    starts_at: s.starts_at,
    ends_at: s.ends_at ?? null,
    position: i,
    on_sale: s.on_sale ?? true,
  }),
  stock: { column: 'session_id', capacity: (s) => s.capacity ?? null },
  links: {
    table: 'session_ticket_types',
    column: 'session_id',
    rows: (s, w) => (s.ticket_types ?? []).map((k) => ({ ticket_type_id: w.ticket_types.get(k)!.id })),
  },
  leftOut: {
    retire: 'archived_at',
    offSale: true,
    usedBy: ['order_lines.session_id', 'tickets.session_id'],
    refuseSold: 'session',
  },
};

const donations: ItemKind<ItemOf<'donations'>> = {
  table: 'donations',
  keyColumn: 'key',
  key: (x) => x.key,
  columns: (x, i) => ({ name: x.name, position: i, on_sale: x.on_sale ?? true }),
  leftOut: { retire: 'archived_at', offSale: true, usedBy: ['order_lines.donation_id'] },
};

const discountCodes: ItemKind<ItemOf<'discount_codes'>> = {
  table: 'discount_codes',
  keyColumn: 'code',
  caseless: true,
  key: (c) => c.code,
  // the code itself too: a code given again in another case is stored as now given
  columns: (c, _, w) => ({
    code: c.code,
    percent_off: c.percent_off ?? null,
    amount_off_cents: c.amount_off ?? null,
    max_uses: c.max_uses ?? null,
    ticket_type_ids: typeIds(c.ticket_types, w),
  }),
  leftOut: { retire: 'disabled_at', usedBy: ['order_discounts.discount_code_id'], used: (row) => (row.uses ?? 0) > 0 },
};

const checkinLists: ItemKind<ItemOf<'checkin_lists'>> = {
  table: 'checkin_lists',
  keyColumn: 'key',
  key: (l) => l.key,
  columns: (l, _, w) => ({ name: l.name, ticket_type_ids: typeIds(l.ticket_types, w) }),
  leftOut: { retire: 'archived_at', usedBy: ['checkins.checkin_list_id'] },
};

/** In the order they are written: what an item refers to is written before it. */
const KINDS: ReadonlyArray<ItemKind<object>> = [
  audiences,
  portals,
  goods,
  ticketTypes,
  sessions,
  donations,
  discountCodes,
  checkinLists,
];

/** Left-out items, those that name others first: a deleted ticket type no longer holds its good, a portal its audience. */
const RETIRE_ORDER: ItemTable[] = [
  'discount_codes',
  'checkin_lists',
  'sessions',
  'ticket_types',
  'goods',
  'donations',
  'portals',
  'audiences',
];

/** The item tables seen through columns named at run time (each kind names its own). */
const loose = (trx: Db) => trx as unknown as Kysely<Record<string, Record<string, unknown>>>;
const matchKey = (kind: ItemKind<object>, key: string) => (kind.caseless ? key.toUpperCase() : key);

async function readItems(trx: Db, kind: ItemKind<object>, eventId: number): Promise<Map<string, StoredItem>> {
  let q = loose(trx).selectFrom(kind.table).selectAll().where('event_id', '=', eventId).orderBy('id');
  if (kind.lock) q = q.forNoKeyUpdate();
  const rows = (await q.execute()) as StoredItem[];
  return new Map(rows.map((r) => [matchKey(kind, String(r[kind.keyColumn])), r]));
}

export interface ItemsAt {
  accountId: number;
  eventId: number;
  now: Date;
}

export interface ItemsResult {
  written: Written;
  /** the event's items before the document was written (none for a new event) */
  stored: Stored;
}

/**
 * Inserts the document's items or updates them matched by key (a retired item given again is
 * that item again), kind after kind. `existing`: the event has items already; the kinds the order
 * writer share-locks (goods, ticket types, sessions) are then locked first, and only after them
 * any inventory row, so the two never wait on each other in a cycle.
 */
export async function writeItems(trx: Db, at: ItemsAt, d: EventDocument, existing: boolean): Promise<ItemsResult> {
  const written = Object.fromEntries(KINDS.map((k) => [k.table, new Map()])) as Written;
  const stored: Stored = new Map();
  const read = async (kind: ItemKind<object>) =>
    stored.set(kind.table, existing ? await readItems(trx, kind, at.eventId) : new Map());
  for (const kind of KINDS.filter((k) => k.lock)) await read(kind);
  for (const kind of KINDS) {
    if (!stored.has(kind.table)) await read(kind);
    await writeKind(trx, at, kind, d[kind.table] ?? [], stored.get(kind.table)!, written);
  }
  return { written, stored };
}

async function writeKind(
  trx: Db,
  at: ItemsAt,
  kind: ItemKind<object>,
  items: object[],
  stored: Map<string, StoredItem>,
  written: Written,
): Promise<void> {
  const db = loose(trx);
  const retire = kind.leftOut.retire;
  const revive = retire === 'archived' ? {} : { [retire]: null };
  for (const [i, item] of items.entries()) {
    const key = kind.key(item);
    const row = stored.get(matchKey(kind, key));
    let values = { ...kind.columns(item, i, written), ...revive };
    let inventoryId: number | null = null;
    if (kind.stock) {
      const capacity = kind.stock.capacity(item);
      inventoryId = row
        ? await setCapacity(
            trx,
            at.now,
            at.accountId,
            at.eventId,
            kind.stock.column,
            { id: row.id, inventory_id: row.inventory_id ?? null },
            capacity,
            (taken) =>
              configConflict(`$.${kind.table}[${i}].capacity`, `${taken} are taken by orders; the capacity cannot be lower`),
          )
        : await newInventory(trx, at.accountId, at.eventId, capacity);
      values = { ...values, capacity, inventory_id: inventoryId };
    }
    let id: number;
    if (row) {
      await db.updateTable(kind.table).set(values).where('id', '=', row.id).execute();
      id = row.id;
      if (kind.links) await db.deleteFrom(kind.links.table).where(kind.links.column, '=', id).execute();
    } else {
      const inserted = await db
        .insertInto(kind.table)
        .values({ account_id: at.accountId, event_id: at.eventId, [kind.keyColumn]: key, ...values })
        .returning('id')
        .executeTakeFirstOrThrow();
      id = inserted.id as number;
    }
    written[kind.table].set(matchKey(kind, key), { id, inventoryId });
    for (const link of kind.links?.rows(item, written) ?? []) {
      await db
        .insertInto(kind.links!.table)
        .values({ account_id: at.accountId, [kind.links!.column]: id, ...link })
        .execute();
    }
  }
}

/** Stored items the document left out: deleted when nothing names them, else retired (codes: disabled). */
export async function retireLeftOut(trx: Db, now: Date, { written, stored }: ItemsResult): Promise<void> {
  const db = loose(trx);
  for (const table of RETIRE_ORDER) {
    const kind = KINDS.find((k) => k.table === table)!;
    const { retire, offSale, usedBy, used, refuseSold } = kind.leftOut;
    for (const [key, row] of stored.get(table) ?? []) {
      if (written[table].has(key) || (retire !== 'archived' && row[retire])) continue;
      if (refuseSold && kind.stock && (await soldLive(trx, kind.stock.column, row.id))) {
        throw configConflict(
          `$.${table}`,
          `the ${refuseSold} "${String(row[kind.keyColumn])}" has been sold; it cannot be removed`,
        );
      }
      if (used?.(row) || (await namedBy(trx, usedBy, row.id))) {
        const set = { [retire]: retire === 'archived' ? true : now, ...(offSale ? { on_sale: false } : {}) };
        await db.updateTable(table).set(set).where('id', '=', row.id).execute();
      } else {
        await db.deleteFrom(table).where('id', '=', row.id).execute();
        if (kind.stock) await dropUnusedInventory(trx, row.inventory_id ?? null);
      }
    }
  }
}

async function namedBy(trx: Db, usedBy: string[], id: number): Promise<boolean> {
  for (const [table, column] of usedBy.map((u) => u.split('.') as [string, string])) {
    if (await loose(trx).selectFrom(table).select(column).where(column, '=', id).limit(1).executeTakeFirst()) return true;
  }
  return false;
}

async function soldLive(trx: Db, column: StockColumn, id: number): Promise<boolean> {
  const live = await trx
    .selectFrom('order_lines as l')
    .innerJoin('orders as o', 'o.id', 'l.order_id')
    .select('l.id')
    .where(`l.${column}`, '=', id)
    .where('o.status', 'in', ['paid', 'pending'])
    .limit(1)
    .executeTakeFirst();
  return Boolean(live);
}
