import { sql } from 'kysely';
import { batcherOf, type Batcher } from '../../platform/batch.ts';
import type { Db } from '../../platform/db/database.ts';
import type { GroupDiscount } from '../../platform/db/schema.ts';

/** What the checkout needs to know about an event's sellable things, loaded in a few queries. */
export interface CatalogueType {
  id: number;
  event_id: number;
  key: string;
  name: string;
  price_cents: number;
  prices: Record<string, number>;
  inventory_id: number | null;
  max_per_order: number | null;
  on_sale: boolean;
  archived: boolean;
  audience_id: number | null;
  requires_session: boolean;
  tax_rate_bp: number;
  group_discounts: GroupDiscount[];
  /** sold by seat: each unit is a seat of its plan */
  seated: boolean;
  includes: Array<{ good_id: number; quantity: number }>;
  sessions: number[];
}

export interface CatalogueGood {
  id: number;
  name: string;
  price_cents: number;
  prices: Record<string, number>;
  inventory_id: number | null;
  on_sale: boolean;
  tax_rate_bp: number;
}

export interface CatalogueSession {
  id: number;
  name: string;
  starts_at: Date;
  inventory_id: number | null;
  on_sale: boolean;
}

export interface Catalogue {
  types: Map<number, CatalogueType>;
  goods: Map<number, CatalogueGood>;
  sessions: Map<number, CatalogueSession>;
  donations: Map<number, { id: number; name: string; on_sale: boolean }>;
}

export interface CatalogueNeeds {
  goods: boolean;
  sessions: boolean;
  donations: boolean;
}

type TypeRow = Awaited<ReturnType<typeof typeRows>>[number];

function typeRows(db: Db, ids: number[]) {
  return db
    .selectFrom('ticket_types as t')
    .selectAll('t')
    .select((eb) => [
      eb
        .selectFrom('ticket_type_includes as i')
        .select(
          sql<
            Array<{ good_id: number; quantity: number }>
          >`coalesce(json_agg(json_build_object('good_id', i.good_id, 'quantity', i.quantity)), '[]')`.as('x'),
        )
        .whereRef('i.ticket_type_id', '=', 't.id')
        .as('includes'),
      eb
        .selectFrom('session_ticket_types as st')
        .select(sql<number[]>`coalesce(json_agg(st.session_id), '[]')`.as('x'))
        .whereRef('st.ticket_type_id', '=', 't.id')
        .as('session_ids'),
    ])
    .where('t.id', 'in', ids)
    .execute();
}

/**
 * The ticket types of several baskets (of any accounts) in one statement: each basket gets the
 * rows of its own ids that belong to its own account, as a query per basket would.
 */
async function loadTypesOf(db: Db, keys: Array<{ accountId: number; ids: number[] }>): Promise<TypeRow[][]> {
  const rows = await typeRows(db, [...new Set(keys.flatMap((k) => k.ids))]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return keys.map((k) =>
    [...new Set(k.ids)].flatMap((id) => {
      const row = byId.get(id);
      return row && row.account_id === k.accountId ? [row] : [];
    }),
  );
}

/** Concurrent checkouts' ticket types, read together (platform/batch.ts). */
const typeBatchers = new WeakMap<Db, Batcher<{ accountId: number; ids: number[] }, TypeRow[]>>();

/**
 * Loads the account's ticket types with the given ids (whatever event they belong to, so the
 * caller can tell "another event's type" from "unknown") with their included goods and session
 * links in one query, then only the event's goods, sessions and donations the basket can need.
 * Queries run one after another on purpose: a checkout holds at most one pool connection.
 */
export async function loadCatalogue(
  db: Db,
  accountId: number,
  eventId: number,
  typeIds: number[],
  needs?: Partial<CatalogueNeeds>,
): Promise<Catalogue> {
  const ids = typeIds.filter((id) => Number.isSafeInteger(id) && id > 0);
  const types = ids.length ? await batcherOf(typeBatchers, db, loadTypesOf).load({ accountId, ids }) : [];
  const wantGoods = needs?.goods || types.some((t) => (t.includes ?? []).length > 0);
  const wantSessions = needs?.sessions || types.some((t) => t.requires_session);
  const [goods, sessions, donations] = [
    wantGoods
      ? await db
          .selectFrom('goods')
          .select(['id', 'name', 'price_cents', 'prices', 'inventory_id', 'on_sale', 'tax_rate_bp'])
          .where('account_id', '=', accountId)
          .where('event_id', '=', eventId)
          .execute()
      : [],
    wantSessions
      ? await db
          .selectFrom('sessions')
          .select(['id', 'name', 'starts_at', 'inventory_id', 'on_sale'])
          .where('account_id', '=', accountId)
          .where('event_id', '=', eventId)
          .execute()
      : [],
    needs?.donations
      ? await db
          .selectFrom('donations')
          .select(['id', 'name', 'on_sale'])
          .where('account_id', '=', accountId)
          .where('event_id', '=', eventId)
          .execute()
      : [],
  ];
  return {
    types: new Map(
      types.map((t) => {
        const { includes, session_ids, ...row } = t;
        return [
          t.id,
          {
            ...row,
            includes: (includes ?? []).map((x) => ({ good_id: Number(x.good_id), quantity: Number(x.quantity) })),
            sessions: (session_ids ?? []).map(Number),
          },
        ];
      }),
    ),
    goods: new Map(goods.map((g) => [g.id, g])),
    sessions: new Map(sessions.map((s) => [s.id, s])),
    donations: new Map(donations.map((d) => [d.id, d])),
  };
}
