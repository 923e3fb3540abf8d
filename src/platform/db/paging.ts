import type { Db } from './database.ts';

/**
 * Paging of the account-scoped (B) lists (contract section 4): `page` default 1, `per_page`
 * default 50 clamped to 1..100. Query values arrive as strings; anything unreadable falls back
 * to the default and out-of-range numbers clamp, so paging never answers an error.
 */
export interface Paging {
  page: number;
  perPage: number;
  offset: number;
}

export const PER_PAGE_DEFAULT = 50;
export const PER_PAGE_MAX = 100;
/** Keeps offsets inside what the database handles; no real list has this many pages. */
const PAGE_MAX = 1_000_000;

function intOr(raw: unknown, fallback: number): number {
  if (typeof raw !== 'string' || !/^\s*[+-]?\d+\s*$/.test(raw)) return fallback;
  const n = Number(raw.trim());
  return Number.isSafeInteger(n) ? n : raw.trim().startsWith('-') ? -Infinity : Infinity;
}

export function parsePaging(query: { page?: unknown; per_page?: unknown }): Paging {
  const page = Math.min(PAGE_MAX, Math.max(1, intOr(query.page, 1)));
  const perPage = Math.min(PER_PAGE_MAX, Math.max(1, intOr(query.per_page, PER_PAGE_DEFAULT)));
  return { page, perPage, offset: (page - 1) * perPage };
}

export function totalPages(count: number, perPage: number): number {
  return Math.ceil(count / perPage);
}

export interface PaginationMeta {
  lookup_mode: 'test' | 'live';
  pagination: { page: number; items: number; pages: number; count: number };
}

export function paginationMeta(paging: Paging, count: number, lookupMode: 'test' | 'live'): PaginationMeta {
  return {
    lookup_mode: lookupMode,
    pagination: { page: paging.page, items: paging.perPage, pages: totalPages(count, paging.perPage), count },
  };
}

/** Contract: "test" for an account whose payments run in the sandbox, "live" otherwise. */
export async function lookupModeOf(db: Db, accountId: number): Promise<'test' | 'live'> {
  const row = await db.selectFrom('accounts').select('payments_mode').where('id', '=', accountId).executeTakeFirst();
  return row?.payments_mode === 'sandbox' ? 'test' : 'live';
}

export const pagingQuerySchema = {
  type: 'object',
  properties: {
    // No type: a repeated or odd value falls back to the default instead of failing the request.
    page: { description: 'page number (integer as a string), default 1; unreadable values mean 1' },
    per_page: { description: 'items per page, default 50, clamped to 1..100' },
  },
} as const;

export const paginationMetaSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['lookup_mode', 'pagination'],
  properties: {
    lookup_mode: { type: 'string', enum: ['test', 'live'] },
    pagination: {
      type: 'object',
      additionalProperties: false,
      required: ['page', 'items', 'pages', 'count'],
      properties: {
        page: { type: 'integer' },
        items: { type: 'integer' },
        pages: { type: 'integer' },
        count: { type: 'integer' },
      },
    },
  },
} as const;
