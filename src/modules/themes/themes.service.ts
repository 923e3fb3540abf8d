import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { requireAllEvents, type Principal } from '../../platform/http/auth.ts';
import { iso } from '../../platform/time.ts';
import { lookupModeOf, paginationMeta, parsePaging } from '../../platform/db/paging.ts';
import { fetchImage, ImageFetchError, type FetchedImage } from './image-fetch.ts';
import { copyImage, findImages, imagePath, insertImage, loadImageBytes } from './images.repo.ts';
import { COLOR_KEYS, mergeSettings, presentSettings, validateSettings } from './theme-settings.ts';
import {
  BACKGROUND_SOURCES,
  BACKGROUND_SOURCE_DEFAULT,
  BORDER_RADIUS,
  CARD_SHADOW_DEFAULT,
  CARD_SHADOW_PRESETS,
  HTML_TEMPLATE_KINDS,
  LOCALES,
  TYPEFACES,
  TYPEFACE_DEFAULTS,
} from './theme-options.ts';
import { RESERVED_COMPONENT_NAMES } from './templates.ts';
import {
  clearDefault,
  findTheme,
  hasDefaultTheme,
  hidePoweredByAllowed,
  insertTheme,
  layoutTemplates,
  layoutIndex,
  listThemes,
  softDeleteTheme,
  updateTheme,
  type ThemeRow,
  type ThemeWrite,
} from './themes.repo.ts';

export const IMAGE_FIELDS = {
  logo_url: 'logo_image_id',
  banner_url: 'banner_image_id',
  background_url: 'background_image_id',
} as const;
type ImageField = keyof typeof IMAGE_FIELDS;

export interface ThemeBody {
  name?: string;
  is_default?: boolean;
  settings?: Record<string, unknown>;
  logo_url?: string | null;
  banner_url?: string | null;
  background_url?: string | null;
}

const validationFailed = (fields: Record<string, string[]>) =>
  new AppError(
    'unprocessable',
    'validation_failed',
    `The theme is not valid: ${Object.entries(fields)
      .map(([k, m]) => `${k} ${m.join(', ')}`)
      .join('; ')}`,
    { fields },
  );

function themeIdOf(raw: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw notFound('No such theme');
  return Number(raw);
}

async function loadTheme(db: Db, p: Principal, raw: string): Promise<ThemeRow> {
  const theme = await findTheme(db, p.accountId, themeIdOf(raw));
  if (!theme) throw notFound('No such theme');
  return theme;
}

async function presentTheme(ctx: AppContext, accountId: number, t: ThemeRow) {
  const imageIds = [t.logo_image_id, t.banner_image_id, t.background_image_id].filter((x): x is number => x !== null);
  const images = await findImages(ctx.db, accountId, imageIds.map(Number));
  const url = (id: number | null) => {
    const img = id === null ? undefined : images.get(Number(id));
    return img ? `${ctx.config.baseUrl}${imagePath(img.id, img.sha256)}` : null;
  };
  return {
    id: Number(t.id),
    name: t.name,
    is_default: t.is_default,
    logo_url: url(t.logo_image_id),
    banner_url: url(t.banner_image_id),
    background_url: url(t.background_image_id),
    settings: presentSettings(t.settings ?? {}),
    created_at: iso(t.created_at),
    updated_at: iso(t.updated_at),
  };
}

export async function getThemes(ctx: AppContext, p: Principal, query: object) {
  const paging = parsePaging(query);
  const { rows, count } = await listThemes(ctx.db, p.accountId, paging.perPage, paging.offset);
  return {
    themes: rows.map((t) => ({
      id: Number(t.id),
      name: t.name,
      is_default: t.is_default,
      created_at: iso(t.created_at),
      updated_at: iso(t.updated_at),
    })),
    meta: paginationMeta(paging, count, await lookupModeOf(ctx.db, p.accountId)),
  };
}

export async function getTheme(ctx: AppContext, p: Principal, id: string) {
  return { theme: await presentTheme(ctx, p.accountId, await loadTheme(ctx.db, p, id)) };
}

/** Checks the body (name, settings) and then fetches the images, all before anything is written. */
async function prepare(ctx: AppContext, p: Principal, body: ThemeBody, creating: boolean) {
  const fields: Record<string, string[]> = {};
  if (creating || body.name !== undefined) {
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    if (!name) fields.name = ['is required'];
    else if (name.length > 200) fields.name = ['must be at most 200 characters'];
  }
  Object.assign(fields, validateSettings(body.settings, await layoutIndex(ctx.db, p.accountId)));
  if (Object.keys(fields).length) throw validationFailed(fields);

  // Outside any transaction: a fetch may take seconds and must never hold database locks.
  const fetched = new Map<ImageField, FetchedImage | null>();
  await Promise.all(
    (Object.keys(IMAGE_FIELDS) as ImageField[]).map(async (f) => {
      const v = body[f];
      if (v === undefined) return;
      if (v === null) {
        fetched.set(f, null);
        return;
      }
      try {
        fetched.set(f, await fetchImage(v));
      } catch (err) {
        if (!(err instanceof ImageFetchError)) throw err;
        fields[f] = [`${err.message}`];
      }
    }),
  );
  if (Object.keys(fields).length) throw validationFailed(fields);
  return fetched;
}

/** Stores the fetched images and turns them into the theme's image columns. */
async function storeImages(trx: Db, accountId: number, fetched: Map<ImageField, FetchedImage | null>, urls: ThemeBody) {
  const out: ThemeWrite = {};
  for (const [f, img] of fetched) {
    out[IMAGE_FIELDS[f]] = img
      ? (
          await insertImage(trx, {
            accountId,
            contentType: img.contentType,
            bytes: img.bytes,
            sha256: img.sha256,
            sourceUrl: urls[f] ?? null,
          })
        ).id
      : null;
  }
  return out;
}

/** Serialises theme writes of one account, so "only one default" never races. */
async function lockAccount(trx: Db, accountId: number): Promise<void> {
  await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
}

export async function createTheme(ctx: AppContext, p: Principal, body: ThemeBody) {
  requireAllEvents(p);
  const fetched = await prepare(ctx, p, body, true);
  const at = ctx.clock.now();
  const id = await ctx.db.transaction().execute(async (trx) => {
    await lockAccount(trx, p.accountId);
    const images = await storeImages(trx, p.accountId, fetched, body);
    // The account's first theme becomes its default, so it takes effect on the buyer pages.
    const makeDefault = body.is_default === true || !(await hasDefaultTheme(trx, p.accountId));
    if (makeDefault) await clearDefault(trx, p.accountId, at);
    return insertTheme(
      trx,
      p.accountId,
      { ...images, name: body.name!.trim(), is_default: makeDefault, settings: mergeSettings({}, body.settings) },
      at,
    );
  });
  return getTheme(ctx, p, String(id));
}

export async function patchTheme(ctx: AppContext, p: Principal, rawId: string, body: ThemeBody) {
  requireAllEvents(p);
  await loadTheme(ctx.db, p, rawId);
  const fetched = await prepare(ctx, p, body, false);
  const at = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await lockAccount(trx, p.accountId);
    const theme = await findTheme(trx, p.accountId, themeIdOf(rawId));
    if (!theme) throw notFound('No such theme');
    const write: ThemeWrite = await storeImages(trx, p.accountId, fetched, body);
    if (body.name !== undefined) write.name = body.name.trim();
    if (body.settings !== undefined) write.settings = mergeSettings(theme.settings ?? {}, body.settings);
    if (body.is_default === true && !theme.is_default) {
      await clearDefault(trx, p.accountId, at);
      write.is_default = true;
    } else if (body.is_default === false) write.is_default = false;
    await updateTheme(trx, p.accountId, theme.id, write, at);
  });
  return getTheme(ctx, p, rawId);
}

export async function deleteTheme(ctx: AppContext, p: Principal, rawId: string): Promise<void> {
  requireAllEvents(p);
  const deleted = await softDeleteTheme(ctx.db, p.accountId, themeIdOf(rawId), ctx.clock.now());
  if (!deleted) throw notFound('No such theme');
}

export async function duplicateTheme(ctx: AppContext, p: Principal, rawId: string) {
  requireAllEvents(p);
  const at = ctx.clock.now();
  const id = await ctx.db.transaction().execute(async (trx) => {
    const theme = await findTheme(trx, p.accountId, themeIdOf(rawId));
    if (!theme) throw notFound('No such theme');
    return insertTheme(
      trx,
      p.accountId,
      {
        name: `${theme.name} copy`,
        is_default: false,
        settings: theme.settings ?? {},
        logo_image_id: await copyImage(trx, p.accountId, theme.logo_image_id),
        banner_image_id: await copyImage(trx, p.accountId, theme.banner_image_id),
        background_image_id: await copyImage(trx, p.accountId, theme.background_image_id),
      },
      at,
    );
  });
  return getTheme(ctx, p, String(id));
}

export async function getThemeOptions(ctx: AppContext, p: Principal) {
  const [web, email, hide] = await Promise.all([
    layoutTemplates(ctx.db, p.accountId, 'web'),
    layoutTemplates(ctx.db, p.accountId, 'email'),
    hidePoweredByAllowed(ctx.db, p.accountId),
  ]);
  return {
    colors: [...COLOR_KEYS],
    typefaces: TYPEFACES.map((t) => ({ key: t.key, name: t.name, font_stack: t.stack })),
    typeface_defaults: { ...TYPEFACE_DEFAULTS },
    card_shadow_presets: CARD_SHADOW_PRESETS.map((s) => ({ key: s.key, name: s.name, box_shadow: s.css })),
    card_shadow_default: CARD_SHADOW_DEFAULT,
    border_radius: { ...BORDER_RADIUS },
    background_sources: [...BACKGROUND_SOURCES],
    background_source_default: BACKGROUND_SOURCE_DEFAULT,
    html_template_kinds: [...HTML_TEMPLATE_KINDS],
    reserved_component_names: [...RESERVED_COMPONENT_NAMES],
    web_html_templates: web.map((t) => ({ id: Number(t.id), name: t.name })),
    email_html_templates: email.map((t) => ({ id: Number(t.id), name: t.name })),
    locales: [...LOCALES],
    hide_powered_by_allowed: hide,
  };
}

/** A stored image for its public URL: the id and a prefix of its hash (at least 16 hex digits) must both match. */
export function imageForUrl(ctx: AppContext, id: number, hashPrefix: string) {
  return loadImageBytes(ctx.db, id, hashPrefix);
}
