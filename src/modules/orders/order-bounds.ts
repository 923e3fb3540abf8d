import type { AppContext } from '../../platform/context.ts';
import { MAX_LINE_QUANTITY, MAX_ORDER_CENTS, PG_INT_MAX } from '../../platform/limits.ts';
import { formatMoney } from '../../platform/money.ts';
import { inventoryNames, type BasketRequest } from './build-lines.ts';
import { invalidItems, shortOfStock } from './orders.errors.ts';
import type { PricedLine } from './pricing.ts';
import { readAvailability, unitsByInventory } from '../inventory/stock.repo.ts';

/**
 * The checkout's bounds on what one order can take (platform/limits.ts): a request line of at
 * most MAX_LINE_QUANTITY units, no line of more units than a column holds, no figure past
 * MAX_ORDER_CENTS. An order past one is refused before anything is charged or written, never
 * left to inexact arithmetic or to the database's refusal. When one of its stocked items is
 * asked for beyond what is left, the answer is that item's 409 sold_out, the same as for any
 * quantity beyond stock; otherwise 422 invalid_items.
 */

/**
 * What buildLines is shown for a quantity past MAX_LINE_QUANTITY: more than any per-order
 * maximum or capacity can be, both being PostgreSQL integers.
 */
const BEYOND_ANY_LIMIT = PG_INT_MAX + 1;

function isOversized(q: unknown): q is number {
  return typeof q === 'number' && Number.isInteger(q) && q > MAX_LINE_QUANTITY;
}

/** A request line past MAX_LINE_QUANTITY, with the quantity as asked. */
export interface OversizedLine {
  kind: 'tickets' | 'goods';
  id: number;
  quantity: number;
}

/** The request's lines past MAX_LINE_QUANTITY, whatever the integer (2^53 and 1e21 included), in request order. */
export function oversizedLines(req: BasketRequest): OversizedLine[] {
  const out: OversizedLine[] = [];
  if (Array.isArray(req.items)) {
    for (const i of req.items)
      if (isOversized(i?.quantity)) out.push({ kind: 'tickets', id: i.ticket_type_id, quantity: i.quantity });
  }
  if (Array.isArray(req.goods)) {
    for (const g of req.goods) if (isOversized(g?.quantity)) out.push({ kind: 'goods', id: g.good_id, quantity: g.quantity });
  }
  return out;
}

/**
 * The basket buildLines checks when a line is past MAX_LINE_QUANTITY: such a quantity shown as
 * BEYOND_ANY_LIMIT, so every comparison buildLines makes (at least 1, at most the type's own
 * maximum) comes out as for the number asked and its refusals keep their order, while that number
 * never reaches pricing. The lines priced from this basket are only read by refuseOversized,
 * which always refuses.
 */
export function withStandIns<T extends BasketRequest>(req: T): T {
  const swap = <L extends { quantity: number }>(l: L): L => (isOversized(l.quantity) ? { ...l, quantity: BEYOND_ANY_LIMIT } : l);
  return { ...req, items: req.items.map(swap), ...(req.goods ? { goods: req.goods.map(swap) } : {}) };
}

const overLineBound = (name: string) => invalidItems(`At most ${MAX_LINE_QUANTITY} of "${name}" can be ordered at once`);

/**
 * Refuses an order with lines past MAX_LINE_QUANTITY, once buildLines found nothing else wrong
 * with it. An item without stock is over the bound, 422, as over a per-order maximum (which the
 * spec checks before availability). Items with stock are answered by what is left, as for any
 * quantity: 409 sold_out for the first asked beyond it, which a quantity this large nearly
 * always is; only when more than the bound is left is it the bound's 422.
 */
export async function refuseOversized(
  ctx: AppContext,
  accountId: number,
  oversized: OversizedLine[],
  lines: readonly PricedLine[],
  now: Date,
): Promise<never> {
  const lineOf = (o: OversizedLine) =>
    lines.find((l) => l.kind === o.kind && !l.included && (o.kind === 'tickets' ? l.ticket_type_id : l.good_id) === o.id);
  const unstocked = oversized.find((o) => (lineOf(o)?.inventory_id ?? null) === null);
  if (unstocked) throw overLineBound(lineOf(unstocked)?.name ?? `item ${unstocked.id}`);
  const asked = new Map<number, number>();
  const names = new Map<number, string>();
  for (const o of oversized) {
    const l = lineOf(o)!;
    asked.set(l.inventory_id!, (asked.get(l.inventory_id!) ?? 0) + o.quantity);
    if (!names.has(l.inventory_id!)) names.set(l.inventory_id!, l.name);
  }
  await refuseBeyondStock(ctx, accountId, asked, names, now);
  throw overLineBound(lineOf(oversized[0]!)!.name);
}

/**
 * Why the priced lines cannot be taken as they are, or null: a line of more units than
 * order_lines.quantity holds (included goods multiply the tickets' quantity), or a figure past
 * MAX_ORDER_CENTS. Every figure is a sum or product of safe integers, so one that stopped being
 * exact is past the bound too; the running subtotal stops at the first term past it, so it stays
 * exact. Runs for every order: comparisons only, the message built when there is one.
 */
export function boundsProblem(lines: readonly PricedLine[], taxMode: 'inclusive' | 'exclusive', currency: string): string | null {
  let subtotal = 0;
  for (const l of lines) {
    if (l.quantity > PG_INT_MAX) return `Too many of "${l.name}" in one order`;
    subtotal += l.total_cents + (taxMode === 'exclusive' ? l.tax_cents : 0);
    if (l.total_cents > MAX_ORDER_CENTS || l.tax_cents > MAX_ORDER_CENTS || subtotal > MAX_ORDER_CENTS) {
      return `The order comes to more than ${formatMoney(MAX_ORDER_CENTS, currency)}, the most one order can take`;
    }
  }
  return null;
}

/**
 * Refuses priced lines boundsProblem found fault with: 409 sold_out for the first stocked item
 * asked for beyond what is left (pricing comes after the availability check in the spec's
 * pipeline), else 422 invalid_items naming the problem.
 */
export async function refuseOutOfBounds(
  ctx: AppContext,
  accountId: number,
  lines: readonly PricedLine[],
  problem: string,
  now: Date,
): Promise<never> {
  const units = unitsByInventory(lines);
  if (units.size) await refuseBeyondStock(ctx, accountId, units, inventoryNames(lines), now);
  throw invalidItems(problem);
}

/** 409 sold_out for the first inventory row asked for beyond what is left on it; returns when all fit. */
async function refuseBeyondStock(
  ctx: AppContext,
  accountId: number,
  asked: ReadonlyMap<number, number>,
  names: ReadonlyMap<number, string>,
  now: Date,
): Promise<void> {
  const available = await readAvailability(ctx.db, accountId, [...asked.keys()], now);
  for (const [id, q] of asked) {
    const left = available.get(id)?.remaining ?? 0;
    if (q > left) throw shortOfStock(names.get(id) ?? 'An item', left);
  }
}
