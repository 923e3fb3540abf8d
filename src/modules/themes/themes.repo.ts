import type { Insertable } from 'kysely';
import type { Db } from '../../platform/db/database.ts';
import type { HtmlTemplatesTable } from '../../platform/db/schema.ts';
import type { LayoutIndex } from './theme-settings.ts';

export interface ThemeRow {
  id: number;
  name: string;
  is_default: boolean;
  settings: Record<string, unknown>;
  logo_image_id: number | null;
  banner_image_id: number | null;
  background_image_id: number | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'name',
  'is_default',
  'settings',
  'logo_image_id',
  'banner_image_id',
  'background_image_id',
  'created_at',
  'updated_at',
] as const;

const live = (db: Db, accountId: number) =>
  db.selectFrom('themes').where('account_id', '=', accountId).where('deleted_at', 'is', null);

export async function listThemes(
  db: Db,
  accountId: number,
  limit: number,
  offset: number,
): Promise<{ rows: ThemeRow[]; count: number }> {
  const [rows, total] = await Promise.all([
    live(db, accountId).select(COLUMNS).orderBy('id').limit(limit).offset(offset).execute(),
    live(db, accountId)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.n) };
}

export function findTheme(db: Db, accountId: number, id: number): Promise<ThemeRow | undefined> {
  return live(db, accountId).select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function hasDefaultTheme(db: Db, accountId: number): Promise<boolean> {
  return !!(await live(db, accountId).select('id').where('is_default', '=', true).executeTakeFirst());
}

export async function clearDefault(db: Db, accountId: number, at: Date): Promise<void> {
  await db
    .updateTable('themes')
    .set({ is_default: false, updated_at: at })
    .where('account_id', '=', accountId)
    .where('is_default', '=', true)
    .where('deleted_at', 'is', null)
    .execute();
}

export interface ThemeWrite {
  name?: string;
  is_default?: boolean;
  settings?: Record<string, unknown>;
  logo_image_id?: number | null;
  banner_image_id?: number | null;
  background_image_id?: number | null;
}

export async function insertTheme(db: Db, accountId: number, w: ThemeWrite & { name: string }, at: Date): Promise<number> {
  const row = await db
    .insertInto('themes')
    .values({
      account_id: accountId,
      name: w.name,
      is_default: w.is_default ?? false,
      settings: JSON.stringify(w.settings ?? {}),
      logo_image_id: w.logo_image_id ?? null,
      banner_image_id: w.banner_image_id ?? null,
      background_image_id: w.background_image_id ?? null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function updateTheme(db: Db, accountId: number, id: number, w: ThemeWrite, at: Date): Promise<void> {
  await db
    .updateTable('themes')
    .set({ ...w, ...(w.settings ? { settings: JSON.stringify(w.settings) } : {}), updated_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();
}

export async function softDeleteTheme(db: Db, accountId: number, id: number, at: Date): Promise<boolean> {
  const res = await db
    .updateTable('themes')
    .set({ deleted_at: at, is_default: false, updated_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function layoutIndex(db: Db, accountId: number): Promise<LayoutIndex> {
  const rows = await db
    .selectFrom('html_templates')
    .select(['id', 'channel'])
    .where('account_id', '=', accountId)
    .where('kind', '=', 'layout')
    .execute();
  const idx: LayoutIndex = { web: new Set(), email: new Set(), attendee_hub: new Set() };
  for (const r of rows) idx[r.channel].add(Number(r.id));
  return idx;
}

export function layoutTemplates(db: Db, accountId: number, channel: 'web' | 'email') {
  return db
    .selectFrom('html_templates')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('kind', '=', 'layout')
    .where('channel', '=', channel)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

export async function hidePoweredByAllowed(db: Db, accountId: number): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('hide_powered_by_allowed').where('id', '=', accountId).executeTakeFirst();
  return row?.hide_powered_by_allowed === true;
}

export async function insertHtmlTemplate(
  db: Db,
  accountId: number,
  t: Pick<Insertable<HtmlTemplatesTable>, 'key' | 'name' | 'kind' | 'channel' | 'body'>,
): Promise<number> {
  const row = await db
    .insertInto('html_templates')
    .values({ account_id: accountId, key: t.key, name: t.name, kind: t.kind, channel: t.channel, body: t.body })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
