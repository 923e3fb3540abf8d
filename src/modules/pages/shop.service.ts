import { seatMap, type SeatMap } from '../events/seat-map.service.ts';
import { cacheOf } from '../../platform/cache.ts';
import type { AppContext } from '../../platform/context.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import type { Answer, InvoiceAddress, ItemAnswer } from '../../platform/db/schema.ts';
import { readAddressForm } from './address-form.ts';
import { minorDigits } from '../../platform/money.ts';
import type { EventRow } from '../events/events.repo.ts';
import { readShopCatalogueRows } from './shop-catalogue.repo.ts';
import { MAX_DONATION_CENTS } from '../../platform/limits.ts';
import { BROWSER_HOLD_MS } from '../orders/holds.ts';
import { isEmail } from '../orders/orders.service.ts';
import { placeOrder, quoteBasket, salesEnd, salesStart } from '../orders/place-order.service.ts';
import { isBuyerVisible } from '../events/event-listings.service.ts';
import { readAvailability } from '../inventory/stock.repo.ts';
import type { Locale } from '../i18n/i18n.ts';

/** The most tickets the page's waiting list form offers to queue for (the API takes up to the type's cap). */
const MAX_WAITLIST_SELECT = 20;

/** Where a shop page sells: the event's own page, an audience page, or a portal. */
export interface Channel {
  kind: 'event' | 'audience' | 'portal';
  key: string | null;
  audienceId: number | null;
  portalId: number | null;
  name: string | null;
}

export interface ShopData {
  account: { id: number; slug: string; name: string };
  event: EventRow;
  channel: Channel;
  currency: string;
  salesOpen: boolean;
  /** sales have not started yet: when they do (the checkout is closed until then) */
  salesOpensAt: Date | null;
  types: Array<{
    id: number;
    key: string;
    name: string;
    price: number | null;
    max: number;
    remaining: number | null;
    /** sold out with the event's waiting list on: the page offers to join it, up to this many */
    waitlistMax: number | null;
    requiresSession: boolean;
    /** sold by seat: chosen on the seat map, or the best available */
    seated: boolean;
    sessions: Array<{ id: number; name: string; starts_at: Date; remaining: number | null }>;
  }>;
  goods: Array<{ id: number; name: string; price: number | null; remaining: number | null }>;
  donations: Array<{ id: number; name: string }>;
  questions: Array<{ key: string; label: string; scope: 'order' | 'attendee'; required: boolean }>;
  /** the invoice address fields: asked (optional or required) while the account issues invoices, else null */
  invoiceAddress: 'optional' | 'required' | null;
  /** the plan of a seated event, drawn on the page for choosing seats; null when nothing is seated */
  seatMap: SeatMap | null;
}

const LOW_STOCK = 10;

/**
 * What the event page shows that only an import or the console changes: the account, the event,
 * the channel and the sellable items. Reused by this instance for catalogueCacheMs (1 s by
 * default), like the API's catalogue reads; stock is read fresh on every request.
 */
export async function loadShopCatalogue(
  ctx: AppContext,
  accountSlug: string,
  eventSlug: string,
  via: { audience?: string; portal?: string },
  opts: ShopOptions = {},
) {
  const key = `${accountSlug}\u0000${eventSlug}\u0000${via.audience ?? ''}\u0000${via.portal ?? ''}`;
  const catalogue = await cacheOf<Awaited<ReturnType<typeof readShopCatalogue>>>(ctx.db, 'shop', ctx.config.catalogueCacheMs).get(
    key,
    () => readShopCatalogue(ctx, accountSlug, eventSlug, via),
  );
  // a draft (or an archived event) does not exist for buyers; staff preview it from the console
  if (!opts.preview && !isBuyerVisible(catalogue.event)) throw notFound('This event does not exist');
  return catalogue;
}

export interface ShopOptions {
  /** staff looking at a draft's page from the console: shown whatever the event's status */
  preview?: boolean;
}

async function readShopCatalogue(
  ctx: AppContext,
  accountSlug: string,
  eventSlug: string,
  via: { audience?: string; portal?: string },
) {
  const rows = await readShopCatalogueRows(ctx.db, accountSlug, eventSlug);
  if (!rows) throw notFound('This event does not exist');
  const { account, event } = rows;
  const channel: Channel = { kind: 'event', key: null, audienceId: null, portalId: null, name: null };
  if (via.audience) {
    const a = await ctx.db
      .selectFrom('audiences')
      .select(['id', 'key', 'name'])
      .where('event_id', '=', event.id)
      .where('key', '=', via.audience)
      .where('archived_at', 'is', null)
      .executeTakeFirst();
    if (!a) throw notFound('This page does not exist');
    Object.assign(channel, { kind: 'audience', key: a.key, audienceId: a.id, name: a.name });
  }
  if (via.portal) {
    const p = await ctx.db
      .selectFrom('portals')
      .select(['id', 'key', 'name', 'audience_id'])
      .where('event_id', '=', event.id)
      .where('key', '=', via.portal)
      .where('archived_at', 'is', null)
      .executeTakeFirst();
    if (!p) throw notFound('This page does not exist');
    Object.assign(channel, { kind: 'portal', key: p.key, portalId: p.id, audienceId: p.audience_id, name: p.name });
  }
  const { types, links, sessions, goods, donations, questions } = rows;
  return { account, event, channel, types, links, sessions, goods, donations, questions };
}

export async function loadShop(
  ctx: AppContext,
  accountSlug: string,
  eventSlug: string,
  via: { audience?: string; portal?: string },
  currency?: string,
  opts: ShopOptions = {},
): Promise<ShopData> {
  const { account, event, channel, types, links, sessions, goods, donations, questions } = await loadShopCatalogue(
    ctx,
    accountSlug,
    eventSlug,
    via,
    opts,
  );
  const cur = shopCurrency(event, currency);
  const visibleTypes = types.filter((t) => t.audience_id === null || t.audience_id === channel.audienceId);
  const inventoryIds = [...visibleTypes, ...sessions, ...goods].map((x) => x.inventory_id).filter((x): x is number => x !== null);
  const avail = await readAvailability(ctx.db, account.id, inventoryIds, ctx.clock.now());
  const left = (inv: number | null) => (inv === null ? null : (avail.get(inv)?.remaining ?? 0));
  const now = ctx.clock.now().getTime();
  const opens = salesStart(event);
  const notYet = opens !== null && now < opens.getTime();
  const price = (x: { price_cents: number; prices: Record<string, number> }) =>
    cur === event.currency ? x.price_cents : (x.prices[cur] ?? null);
  const addressMode = event.invoice_address ?? 'optional';
  const map = visibleTypes.some((t) => t.seated) ? await seatMap(ctx, event.id) : null;
  return {
    account: { id: account.id, slug: account.slug, name: account.name },
    event,
    channel,
    invoiceAddress: account.invoicing?.enabled && addressMode !== 'off' ? addressMode : null,
    currency: cur,
    salesOpen: now < salesEnd(event).getTime() && !notYet,
    salesOpensAt: notYet ? opens : null,
    types: visibleTypes.map((t) => ({
      id: t.id,
      key: t.key,
      name: t.name,
      price: price(t),
      max: Math.min(t.max_per_order ?? 20, left(t.inventory_id) ?? 20),
      remaining: left(t.inventory_id),
      waitlistMax:
        event.waiting_list_enabled && t.inventory_id !== null && !t.requires_session && left(t.inventory_id) === 0
          ? Math.min(t.max_per_order ?? MAX_WAITLIST_SELECT, MAX_WAITLIST_SELECT)
          : null,
      requiresSession: t.requires_session,
      seated: t.seated,
      sessions: sessions
        .filter((s) => links.some((l) => l.session_id === s.id && l.ticket_type_id === t.id))
        .map((s) => ({ id: s.id, name: s.name, starts_at: s.starts_at, remaining: left(s.inventory_id) })),
    })),
    goods: goods.map((g) => ({ id: g.id, name: g.name, price: price(g), remaining: left(g.inventory_id) })),
    donations,
    questions,
    seatMap: map,
  };
}

/** The currency asked for when the event sells in it, else the event's own. */
export function shopCurrency(event: Pick<EventRow, 'currency' | 'currencies'>, requested: string | undefined): string {
  return requested && event.currencies.includes(requested) ? requested : event.currency;
}

export function lowStock(remaining: number | null): boolean {
  return remaining !== null && remaining <= LOW_STOCK;
}

/** "12.50" in the currency's minor digits -> 1250; null when not a plain non-negative amount. */
export function parseAmount(text: string, currency: string): number | null {
  const digits = minorDigits(currency);
  const m = /^\s*(\d{1,9})(?:[.,](\d+))?\s*$/.exec(text);
  if (!m) return null;
  const frac = m[2] ?? '';
  if (frac.length > digits) return null;
  return Number(m[1]) * 10 ** digits + Number((frac + '0'.repeat(digits)).slice(0, digits) || '0');
}

export type Form = Record<string, string | undefined>;

export interface CheckoutResult {
  secret: string;
  paid: boolean;
}

/**
 * A browser checkout: the form is read into the same pipeline the machine API uses (one code path
 * for pricing, caps and stock), plus what only a browser has: currency, codes, donations, session
 * choice, questions. Field problems come back as `fields` for the page to show inline.
 */
export async function checkout(ctx: AppContext, shop: ShopData, form: Form, loc: Locale): Promise<CheckoutResult> {
  const { m } = loc;
  const { items, goods, donations, fields, bad } = readBasket(shop, form, loc);
  const email = (form.email ?? '').trim();
  const name = (form.name ?? '').trim();
  if (!name) bad('name', m.enterName);
  if (!email) bad('email', m.enterEmail);
  else if (!isEmail(email)) bad('email', m.notAnEmail);
  if (items.length + goods.length + donations.length === 0) bad('items', m.chooseTicket);
  const invoiceAddress = readAddressFields(shop, form, bad, m);
  const answers: Answer[] = [];
  const itemAnswers: ItemAnswer[] = [];
  for (const q of shop.questions) {
    if (q.scope === 'order') {
      const v = (form[`q_${q.key}`] ?? '').trim().slice(0, 2000);
      if (!v && q.required) bad(`q_${q.key}`, m.answerQuestion);
      if (v) answers.push({ question: q.label, answer: v });
      continue;
    }
    for (const item of items) {
      for (let n = 1; n <= item.quantity; n++) {
        const key = `a_${item.ticket_type_id}_${n}_${q.key}`;
        const v = (form[key] ?? '').trim().slice(0, 2000);
        if (!v && q.required) bad(key, m.answerQuestion);
        if (!v) continue;
        let entry = itemAnswers.find((x) => x.ticket_type_id === item.ticket_type_id && x.position === n);
        if (!entry) itemAnswers.push((entry = { ticket_type_id: item.ticket_type_id, position: n, answers: [] }));
        entry.answers.push({ question: q.label, answer: v });
      }
    }
  }
  if (Object.keys(fields).length) throw new AppError('unprocessable', 'invalid_form', m.checkFields, { fields });
  const codes = (form.code ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .slice(0, 5);
  const placed = await placeOrder(ctx, {
    accountId: shop.account.id,
    event: shop.event,
    items,
    goods,
    donations,
    email,
    name,
    channel: 'web',
    currency: shop.currency,
    audienceId: shop.channel.audienceId,
    portalId: shop.channel.portalId,
    codes,
    answers,
    itemAnswers,
    holdMs: BROWSER_HOLD_MS,
    locale: loc.tag,
    invoiceAddress,
  });
  const row = await ctx.db
    .selectFrom('orders')
    .select(['access_secret', 'status'])
    .where('id', '=', placed.orderId)
    .executeTakeFirstOrThrow();
  return { secret: row.access_secret, paid: row.status === 'paid' };
}

/** The basket a form names (tickets with sessions and seats, goods, donations), and its problems by field. */
export function readBasket(shop: ShopData, form: Form, loc: Locale) {
  const { m } = loc;
  const fields: Record<string, string[]> = {};
  const bad = (k: string, m: string) => (fields[k] ??= []).push(m);
  const items = [];
  for (const t of shop.types) {
    // seats picked on the map (the page's script writes them here); none: the best available
    const seats = (form[`seats_${t.id}`] ?? '')
      .split(/[\s,]+/)
      .filter(Boolean)
      .slice(0, 100);
    const raw = (form[`qty_${t.id}`] ?? '').trim() || (seats.length ? String(seats.length) : '');
    if (raw === '' || raw === '0') continue;
    const q = /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(q) || q < 0) {
      bad(`qty_${t.id}`, m.enterWholeNumber);
      continue;
    }
    const item: { ticket_type_id: number; quantity: number; session_id?: number; seats?: string[] } = {
      ticket_type_id: t.id,
      quantity: q,
      ...(seats.length ? { seats } : {}),
    };
    if (t.requiresSession) {
      const s = Number(form[`session_${t.id}`]);
      if (!t.sessions.some((x) => x.id === s)) bad(`session_${t.id}`, m.chooseSession);
      else item.session_id = s;
    }
    items.push(item);
  }
  const goods = [];
  for (const g of shop.goods) {
    const raw = (form[`good_${g.id}`] ?? '').trim();
    if (raw === '' || raw === '0') continue;
    if (!/^\d{1,4}$/.test(raw)) bad(`good_${g.id}`, m.enterWholeNumber);
    else goods.push({ good_id: g.id, quantity: Number(raw) });
  }
  const donations = [];
  for (const d of shop.donations) {
    const raw = (form[`donation_${d.id}`] ?? '').trim();
    if (raw === '') continue;
    const amount = parseAmount(raw, shop.currency);
    if (amount === null) bad(`donation_${d.id}`, m.enterAmount);
    else if (amount > MAX_DONATION_CENTS) bad(`donation_${d.id}`, m.amountAtMost(loc.money(MAX_DONATION_CENTS, shop.currency)));
    else if (amount > 0) donations.push({ donation_id: d.id, amount_cents: amount });
  }
  return { items, goods, donations, fields, bad };
}

/**
 * The event page's running total once a code is typed: the basket priced by the checkout's own
 * code (`quoteBasket`), nothing written. A code that does not apply answers its refusal.
 */
export async function quote(ctx: AppContext, shop: ShopData, form: Form, loc: Locale) {
  const { items, goods, donations, fields } = readBasket(shop, form, loc);
  if (Object.keys(fields).length || items.length + goods.length + donations.length === 0) return null;
  const codes = (form.code ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .slice(0, 5);
  return quoteBasket(ctx, {
    accountId: shop.account.id,
    event: shop.event,
    items,
    goods,
    donations,
    channel: 'web',
    currency: shop.currency,
    audienceId: shop.channel.audienceId,
    portalId: shop.channel.portalId,
    codes,
  });
}

/** The checkout's invoice address fields (`inv_*`): none when not asked or, optional, left empty. */
function readAddressFields(
  shop: ShopData,
  form: Form,
  bad: (k: string, m: string) => void,
  m: Locale['m'],
): InvoiceAddress | null {
  if (!shop.invoiceAddress) return null;
  const read = readAddressForm(form, shop.invoiceAddress, m);
  for (const [k, problem] of Object.entries(read.fields)) bad(k, problem);
  return read.address;
}
