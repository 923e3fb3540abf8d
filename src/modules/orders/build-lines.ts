import { MAX_DONATION_CENTS } from '../../platform/limits.ts';
import { formatMoney } from '../../platform/money.ts';
import type { Catalogue, CatalogueGood, CatalogueType } from './catalogue.repo.ts';
import { invalidItems } from './orders.errors.ts';
import { groupUnitPrice, priceIn, priceLine, type PricedLine } from './pricing.ts';
import type { SeatWant } from './seat-allocation.ts';

export interface ItemRequest {
  ticket_type_id: number;
  quantity: number;
  /** session chosen for a type that needs one (browser checkout) */
  session_id?: number;
  /** seats of a seated type, exactly `quantity` of them (none: the best available are chosen) */
  seats?: string[];
}

export interface BasketRequest {
  items: ItemRequest[];
  goods?: Array<{ good_id: number; quantity: number }>;
  donations?: Array<{ donation_id: number; amount_cents: number }>;
}

export interface SellingContext {
  eventId: number;
  eventCurrency: string;
  currency: string;
  taxMode: 'inclusive' | 'exclusive';
  /** the audience page the order comes through (null: the event's own page / the API) */
  audienceId: number | null;
  /** the API cannot choose sessions; the browser checkout can */
  sessionsSelectable: boolean;
}

const label = (t: CatalogueType) => `"${t.name}" (${t.id})`;

/**
 * A goods line: bought on its own at `price`, or (no price) included with a ticket type, free and
 * untaxed.
 */
function goodsLine(
  g: CatalogueGood,
  quantity: number,
  sc: SellingContext,
  price?: { unitPriceCents: number; taxRateBp: number },
): PricedLine {
  return priceLine(
    {
      kind: 'goods',
      ticket_type_id: null,
      good_id: g.id,
      session_id: null,
      donation_id: null,
      inventory_id: g.inventory_id,
      name: g.name,
      quantity,
      unit_price_cents: price?.unitPriceCents ?? 0,
      tax_rate_bp: price?.taxRateBp ?? 0,
      included: price === undefined,
    },
    sc.taxMode,
  );
}

/**
 * Checks every requested item (spec rule set of `invalid_items`) and prices the basket: ticket
 * lines with group discounts, the sessions they entitle to, goods included with a ticket type
 * (zero price, one per connected ticket), extra goods and donations. Throws invalid_items naming
 * the type at fault. No database access: the catalogue was loaded before.
 */
export function buildLines(req: BasketRequest, cat: Catalogue, sc: SellingContext): PricedLine[] {
  if (!Array.isArray(req.items) || req.items.length === 0) {
    if (!req.goods?.length && !req.donations?.length) throw invalidItems('An order needs at least one item');
  }
  const seen = new Set<number>();
  const lines: PricedLine[] = [];
  const included = new Map<number, number>();
  const sessionUnits = new Map<number, number>();
  for (const item of req.items) {
    const t = cat.types.get(item.ticket_type_id);
    if (!t || t.event_id !== sc.eventId || t.archived) {
      throw invalidItems(
        t && t.event_id !== sc.eventId
          ? `Ticket type ${item.ticket_type_id} belongs to another event`
          : `Ticket type ${item.ticket_type_id} does not exist for this event`,
      );
    }
    if (seen.has(t.id)) throw invalidItems(`Ticket type ${label(t)} appears more than once; give one line per type`);
    seen.add(t.id);
    if (!Number.isSafeInteger(item.quantity) || item.quantity < 1)
      throw invalidItems(`Quantity for ${label(t)} must be at least 1`);
    if (!t.on_sale) throw invalidItems(`Ticket type ${label(t)} is not on sale`);
    if (t.audience_id !== null && t.audience_id !== sc.audienceId) {
      throw invalidItems(`Ticket type ${label(t)} is sold only through its audience page`);
    }
    if (t.max_per_order !== null && item.quantity > t.max_per_order) {
      throw invalidItems(`At most ${t.max_per_order} of ${label(t)} per order`);
    }
    if (item.seats !== undefined) {
      if (!t.seated) throw invalidItems(`Ticket type ${label(t)} is not sold by seat; give no seats`);
      if (item.seats.length !== item.quantity)
        throw invalidItems(`Give exactly ${item.quantity} seat${item.quantity === 1 ? '' : 's'} for ${label(t)}`);
      const twice = item.seats.find((g, k) => item.seats!.indexOf(g) !== k);
      if (twice !== undefined) throw invalidItems(`The seat "${twice}" is named twice`);
    }
    let sessionId: number | null = null;
    if (t.requires_session) {
      if (!sc.sessionsSelectable)
        throw invalidItems(`Ticket type ${label(t)} needs a session to be chosen, which this API cannot do`);
      const s = item.session_id !== undefined ? cat.sessions.get(item.session_id) : undefined;
      if (!s || !t.sessions.includes(s.id)) throw invalidItems(`Choose a session for ${label(t)}`);
      if (!s.on_sale) throw invalidItems(`The chosen session for ${label(t)} is not on sale`);
      sessionId = s.id;
    }
    const unit = priceIn(t, sc.currency, sc.eventCurrency);
    if (unit === null) throw invalidItems(`Ticket type ${label(t)} is not sold in ${sc.currency.toUpperCase()}`);
    lines.push(
      priceLine(
        {
          kind: 'tickets',
          ticket_type_id: t.id,
          good_id: null,
          session_id: sessionId,
          donation_id: null,
          inventory_id: t.inventory_id,
          name: t.name,
          quantity: item.quantity,
          unit_price_cents: groupUnitPrice(unit, item.quantity, t.group_discounts),
          tax_rate_bp: t.tax_rate_bp,
          included: false,
        },
        sc.taxMode,
      ),
    );
    if (sessionId !== null) sessionUnits.set(sessionId, (sessionUnits.get(sessionId) ?? 0) + item.quantity);
    for (const inc of t.includes) included.set(inc.good_id, (included.get(inc.good_id) ?? 0) + inc.quantity * item.quantity);
  }
  for (const [sessionId, quantity] of sessionUnits) {
    const s = cat.sessions.get(sessionId)!;
    lines.push(
      priceLine(
        {
          kind: 'sessions',
          ticket_type_id: null,
          good_id: null,
          session_id: s.id,
          donation_id: null,
          inventory_id: s.inventory_id,
          name: s.name || 'Session',
          quantity,
          unit_price_cents: 0,
          tax_rate_bp: 0,
          included: true,
        },
        sc.taxMode,
      ),
    );
  }
  for (const [goodId, quantity] of included) {
    const g = cat.goods.get(goodId);
    if (!g) continue;
    lines.push(goodsLine(g, quantity, sc));
  }
  const goodsSeen = new Set<number>();
  for (const req2 of req.goods ?? []) {
    const g = cat.goods.get(req2.good_id);
    if (!g || !g.on_sale) throw invalidItems(`Good ${req2.good_id} is not on sale for this event`);
    if (goodsSeen.has(g.id)) throw invalidItems(`"${g.name}" appears more than once`);
    goodsSeen.add(g.id);
    if (!Number.isSafeInteger(req2.quantity) || req2.quantity < 1)
      throw invalidItems(`Quantity for "${g.name}" must be at least 1`);
    const unit = priceIn(g, sc.currency, sc.eventCurrency);
    if (unit === null) throw invalidItems(`"${g.name}" is not sold in ${sc.currency.toUpperCase()}`);
    lines.push(goodsLine(g, req2.quantity, sc, { unitPriceCents: unit, taxRateBp: g.tax_rate_bp }));
  }
  for (const d of req.donations ?? []) {
    const don = cat.donations.get(d.donation_id);
    if (!don || !don.on_sale) throw invalidItems(`Donation ${d.donation_id} is not open for this event`);
    if (!Number.isSafeInteger(d.amount_cents) || d.amount_cents < 1) {
      throw invalidItems(`A donation to "${don.name}" must be at least ${formatMoney(1, sc.currency)}`);
    }
    if (d.amount_cents > MAX_DONATION_CENTS) {
      throw invalidItems(`A donation to "${don.name}" can be at most ${formatMoney(MAX_DONATION_CENTS, sc.currency)}`);
    }
    lines.push(
      priceLine(
        {
          kind: 'donations',
          ticket_type_id: null,
          good_id: null,
          session_id: null,
          donation_id: don.id,
          inventory_id: null,
          name: don.name,
          quantity: 1,
          unit_price_cents: d.amount_cents,
          tax_rate_bp: 0,
          included: false,
        },
        sc.taxMode,
      ),
    );
  }
  return lines;
}

/** Names of what an inventory row stocks, for sold-out messages. */
export function inventoryNames(lines: readonly PricedLine[]): Map<number, string> {
  const m = new Map<number, string>();
  for (const l of lines) if (l.inventory_id !== null && !m.has(l.inventory_id)) m.set(l.inventory_id, l.name);
  return m;
}

/** The seated types' ticket lines of a basket: what the order writer gives seats to. */
export function seatWants(req: BasketRequest, cat: Catalogue, lines: readonly PricedLine[]): SeatWant[] {
  const wants: SeatWant[] = [];
  lines.forEach((l, line) => {
    if (l.kind !== 'tickets' || l.ticket_type_id === null) return;
    const t = cat.types.get(l.ticket_type_id);
    if (!t?.seated) return;
    const item = req.items.find((i) => i.ticket_type_id === t.id);
    wants.push({
      line,
      ticketTypeId: t.id,
      inventoryId: t.inventory_id,
      name: t.name,
      quantity: l.quantity,
      ...(item?.seats ? { seats: item.seats } : {}),
    });
  });
  return wants;
}
