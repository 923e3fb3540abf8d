import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import { applyBp } from '../../platform/money.ts';
import { invalidCode } from './orders.errors.ts';
import type { PricedLine } from './pricing.ts';

export interface AppliedCode {
  id: number;
  code: string;
  amount_cents: number;
}

/**
 * Prices discount codes against a basket, in the order given (the redemption order). A code
 * limited to ticket types discounts only those ticket lines; an unrestricted one discounts
 * tickets and goods (never donations). Percent codes round half away from zero; amount codes
 * never take more than what they apply to. Each later code works on what earlier ones left.
 * Throws `invalid_code` saying why a code cannot be used.
 */
export async function applyCodes(
  db: Db,
  accountId: number,
  eventId: number,
  requested: string[],
  lines: readonly PricedLine[],
  taxMode: 'inclusive' | 'exclusive',
  now: Date,
): Promise<AppliedCode[]> {
  // A code counts once per order however it is typed: the same code in two cases is one code,
  // matched as the lookup below matches it (without regard to case).
  const seen = new Set<string>();
  const wanted = requested.map((c) => c.trim()).filter((c) => c && !seen.has(c.toUpperCase()) && seen.add(c.toUpperCase()));
  if (wanted.length === 0) return [];
  const rows = await db
    .selectFrom('discount_codes')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('event_id', '=', eventId)
    .where(
      sql<string>`upper(code)`,
      'in',
      wanted.map((c) => c.toUpperCase()),
    )
    // a disabled code (removed after it was redeemed) is refused like an unknown one
    .where('disabled_at', 'is', null)
    .execute();
  const byCode = new Map(rows.map((r) => [r.code.toUpperCase(), r]));
  const gross = (l: PricedLine) => l.total_cents + (taxMode === 'exclusive' ? l.tax_cents : 0);
  const remaining = new Map<number, number>(lines.map((l, i) => [i, gross(l)]));
  const out: AppliedCode[] = [];
  for (const code of wanted) {
    const row = byCode.get(code.toUpperCase());
    if (!row) throw invalidCode(`The code "${code}" does not exist for this event`);
    if (row.valid_until && new Date(row.valid_until).getTime() <= now.getTime())
      throw invalidCode(`The code "${row.code}" has expired`);
    if (row.max_uses !== null && row.uses >= row.max_uses) throw invalidCode(`The code "${row.code}" has been used up`);
    const eligible = lines
      .map((l, i) => ({ l, i }))
      .filter(({ l }) =>
        row.ticket_type_ids
          ? l.kind === 'tickets' && row.ticket_type_ids.includes(l.ticket_type_id!)
          : l.kind === 'tickets' || l.kind === 'goods',
      );
    const base = eligible.reduce((s, { i }) => s + remaining.get(i)!, 0);
    if (base === 0) throw invalidCode(`The code "${row.code}" does not apply to anything in this basket`);
    let amount = row.percent_off !== null ? applyBp(base, row.percent_off * 100) : Math.min(row.amount_off_cents ?? 0, base);
    out.push({ id: row.id, code: row.code, amount_cents: amount });
    for (const { i } of eligible) {
      const take = Math.min(amount, remaining.get(i)!);
      remaining.set(i, remaining.get(i)! - take);
      amount -= take;
    }
  }
  return out;
}
