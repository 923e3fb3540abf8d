import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { isUniqueViolation } from '../../platform/db/pg-errors.ts';
import { AppError, notFound } from '../../platform/errors.ts';

/** A discount code as the management API shows it (contract section 6). */
export interface CodeView {
  code: string;
  percent_off: number | null;
  amount_off: number | null;
  max_uses: number | null;
  ticket_types: number[] | null;
  used: number;
  disabled: boolean;
}

export interface CodeTerms {
  percent_off?: number;
  amount_off?: number;
  max_uses?: number | null;
  ticket_types?: number[] | null;
}

export type CreateCodes = CodeTerms & ({ code: string } | { count: number; prefix?: string });

export const MAX_GENERATED = 10_000;
// no 0/O, 1/I/L: codes are read aloud and typed from paper
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

const failed = (fields: Record<string, string[]>) =>
  new AppError(
    'unprocessable',
    'validation_failed',
    `Invalid discount code: ${Object.entries(fields)
      .map(([k, v]) => `${k} ${v.join(', ')}`)
      .join('; ')}`,
    { fields },
  );

type CodeRow = {
  code: string;
  percent_off: number | null;
  amount_off_cents: number | null;
  max_uses: number | null;
  ticket_type_ids: number[] | null;
  uses: number;
  disabled_at: Date | string | null;
};

function present(r: CodeRow): CodeView {
  return {
    code: r.code,
    percent_off: r.percent_off,
    amount_off: r.amount_off_cents === null ? null : Number(r.amount_off_cents),
    max_uses: r.max_uses,
    ticket_types: r.ticket_type_ids ? r.ticket_type_ids.map(Number) : null,
    used: r.uses,
    disabled: r.disabled_at !== null,
  };
}

const COLUMNS = ['code', 'percent_off', 'amount_off_cents', 'max_uses', 'ticket_type_ids', 'uses', 'disabled_at'] as const;

/** Codes by code (case-insensitive order), `limit` clamped to 1..200 (default 50), `after` a code. */
export async function listCodes(
  db: Db,
  eventId: number,
  query: { limit?: string; after?: string },
): Promise<{ discount_codes: CodeView[]; next_after: string | null }> {
  const n = Number.parseInt(query.limit ?? '', 10);
  const limit = Number.isFinite(n) ? Math.min(200, Math.max(1, n)) : 50;
  let q = db.selectFrom('discount_codes').select(COLUMNS).where('event_id', '=', eventId);
  if (query.after) q = q.where(sql<string>`upper(code)`, '>', query.after.toUpperCase());
  const rows = await q
    .orderBy(sql`upper(code)`)
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  return { discount_codes: page.map(present), next_after: rows.length > limit ? page.at(-1)!.code : null };
}

/** How often each of the event's codes has been used (its redeemed orders), by code. */
export async function codeUses(db: Db, eventId: number): Promise<Map<string, number>> {
  const rows = await db.selectFrom('discount_codes').select(['code', 'uses']).where('event_id', '=', eventId).execute();
  return new Map(rows.map((r) => [r.code, Number(r.uses)]));
}

async function checkTerms(db: Db, eventId: number, t: CodeTerms): Promise<void> {
  const fields: Record<string, string[]> = {};
  if ((t.percent_off === undefined) === (t.amount_off === undefined))
    fields.percent_off = ['give exactly one of percent_off and amount_off'];
  if (t.ticket_types?.length) {
    const found = await db
      .selectFrom('ticket_types')
      .select('id')
      .where('event_id', '=', eventId)
      .where('archived', '=', false)
      .where('id', 'in', t.ticket_types)
      .execute();
    const known = new Set(found.map((r) => Number(r.id)));
    t.ticket_types.forEach((id, i) => {
      if (!known.has(id)) (fields[`ticket_types.${i}`] ??= []).push(`no ticket type ${id} in this event`);
    });
  }
  if (Object.keys(fields).length) throw failed(fields);
}

function randomCode(prefix: string): string {
  let s = prefix;
  for (let i = 0; i < 8; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/** One code, or `count` new unique random codes (at most 10,000) in one transaction. */
export async function createCodes(
  ctx: AppContext,
  accountId: number,
  eventId: number,
  input: CreateCodes,
): Promise<{ single: CodeView } | { many: CodeView[] }> {
  await checkTerms(ctx.db, eventId, input);
  const values = {
    account_id: accountId,
    event_id: eventId,
    percent_off: input.percent_off ?? null,
    amount_off_cents: input.amount_off ?? null,
    max_uses: input.max_uses ?? null,
    ticket_type_ids: input.ticket_types?.length ? input.ticket_types : null,
  };
  if ('code' in input) {
    try {
      const row = await ctx.db
        .insertInto('discount_codes')
        .values({ ...values, code: input.code })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      return { single: present(row) };
    } catch (err) {
      if (isUniqueViolation(err))
        throw new AppError('conflict', 'conflict', `The code "${input.code}" exists already in this event`);
      throw err;
    }
  }
  const prefix = (input.prefix ?? '').toUpperCase();
  return ctx.db.transaction().execute(async (trx) => {
    const made: CodeView[] = [];
    // a clash with an existing code (or within the draw) is skipped and drawn again
    for (let round = 0; made.length < input.count && round < 20; round++) {
      const want = input.count - made.length;
      const draw = [...new Set(Array.from({ length: want }, () => randomCode(prefix)))];
      for (let i = 0; i < draw.length; i += 1000) {
        const chunk = draw.slice(i, i + 1000);
        const rows = await sql<CodeRow>`
          insert into discount_codes (account_id, event_id, code, percent_off, amount_off_cents, max_uses, ticket_type_ids)
          select ${accountId}, ${eventId}, c, ${values.percent_off}, ${values.amount_off_cents}, ${values.max_uses},
            ${values.ticket_type_ids === null ? null : sql`${sql.val(values.ticket_type_ids)}::bigint[]`}
          from unnest(${sql.val(chunk)}::text[]) as c
          on conflict do nothing
          returning code, percent_off, amount_off_cents, max_uses, ticket_type_ids, uses, disabled_at`.execute(trx);
        made.push(...rows.rows.map(present));
      }
    }
    if (made.length < input.count) {
      throw new AppError(
        'conflict',
        'conflict',
        'Could not find enough unused codes with this prefix; use a longer prefix or fewer codes',
      );
    }
    return { many: made.slice(0, input.count) };
  });
}

/** Deletes a code; one already redeemed is disabled instead (reports and orders name it). */
export async function removeCode(db: Db, eventId: number, code: string, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('discount_codes')
      .select(['id', 'uses', 'disabled_at'])
      .where('event_id', '=', eventId)
      .where(sql<string>`upper(code)`, '=', code.toUpperCase())
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw notFound(`No discount code "${code}" in this event`);
    const redeemed =
      row.uses > 0 ||
      (await trx.selectFrom('order_discounts').select('id').where('discount_code_id', '=', row.id).limit(1).executeTakeFirst());
    if (redeemed) {
      if (!row.disabled_at) await trx.updateTable('discount_codes').set({ disabled_at: now }).where('id', '=', row.id).execute();
    } else await trx.deleteFrom('discount_codes').where('id', '=', row.id).execute();
  });
}
