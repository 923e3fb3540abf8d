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

/**
 * Loads the account's ticket types with the given ids (whatever event they belong to, so the
 * caller can tell "another event's type" from "unknown"), plus the event's goods, sessions and
 * donations.
 */
export async function loadCatalogue(db: Db, accountId: number, eventId: number, typeIds: number[]): Promise<Catalogue> {
  const ids = typeIds.filter((id) => Number.isSafeInteger(id) && id > 0 && id < 2 ** 53);
  const [types, includes, sessionLinks, goods, sessions, donations] = await Promise.all([
    ids.length
      ? db.selectFrom('ticket_types').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).execute()
      : [],
    ids.length
      ? db
          .selectFrom('ticket_type_includes')
          .select(['ticket_type_id', 'good_id', 'quantity'])
          .where('account_id', '=', accountId)
          .where('ticket_type_id', 'in', ids)
          .execute()
      : [],
    ids.length
      ? db
          .selectFrom('session_ticket_types')
          .select(['session_id', 'ticket_type_id'])
          .where('account_id', '=', accountId)
          .where('ticket_type_id', 'in', ids)
          .execute()
      : [],
    db
      .selectFrom('goods')
      .select(['id', 'name', 'price_cents', 'prices', 'inventory_id', 'on_sale', 'tax_rate_bp'])
      .where('account_id', '=', accountId)
      .where('event_id', '=', eventId)
      .execute(),
    db
      .selectFrom('sessions')
      .select(['id', 'name', 'starts_at', 'inventory_id', 'on_sale'])
      .where('account_id', '=', accountId)
      .where('event_id', '=', eventId)
      .execute(),
    db
      .selectFrom('donations')
      .select(['id', 'name', 'on_sale'])
      .where('account_id', '=', accountId)
      .where('event_id', '=', eventId)
      .execute(),
  ]);
  const catalogue: Catalogue = {
    types: new Map(),
    goods: new Map(goods.map((g) => [g.id, g])),
    sessions: new Map(sessions.map((s) => [s.id, s])),
    donations: new Map(donations.map((d) => [d.id, d])),
  };
  for (const t of types) {
    catalogue.types.set(t.id, {
      ...t,
      includes: includes.filter((i) => i.ticket_type_id === t.id).map((i) => ({ good_id: i.good_id, quantity: i.quantity })),
      sessions: sessionLinks.filter((s) => s.ticket_type_id === t.id).map((s) => s.session_id),
    });
  }
  return catalogue;
}
