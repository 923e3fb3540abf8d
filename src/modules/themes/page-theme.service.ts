import { randomBytes } from 'node:crypto';
import Mustache from 'mustache';
import type { Db } from '../../platform/db/database.ts';
import { escapeHtml } from '../../platform/http/html.ts';
import { BASE_COLORS, deriveThemeSettings, parseHex, readableOn, toHex } from './theme-colors.ts';
import {
  BACKGROUND_SOURCE_DEFAULT,
  BORDER_RADIUS,
  LOCALES,
  LOCALE_DEFAULT,
  RADIUS_DEFAULTS,
  shadowCss,
  typefaceStack,
  TYPEFACE_DEFAULTS,
} from './theme-options.ts';
import { sanitizeHtml } from '../../platform/sanitize.ts';
import { imagePath } from './images.repo.ts';
import { RESERVED_COMPONENT_NAMES } from './templates.ts';

/** The language a page is in: its `lang` attribute and the frame's own two phrases. */
export interface PageLanguage {
  tag: string;
  skipToContent: string;
  poweredBy: string;
}

/** What a buyer page needs from the account's default theme. */
export interface PageTheme {
  /** the theme's page language (setting `locale`): the account page's default when the browser asks for none */
  locale: string;
  /** A `:root { --admit-...: ... }` block of CSS custom properties. */
  css: string;
  /** A full HTML document: the theme's web layout (or the built-in one) around `contentHtml`. */
  wrap(contentHtml: string, title: string, language?: PageLanguage): string;
  /**
   * The document `wrap` puts around the content: what comes before it and what after. A page
   * kept for many responses is kept in two pieces, so that each response can add its own part
   * (a script with the response's CSP nonce) at the end of the content.
   */
  shell(title: string, language?: PageLanguage): [before: string, after: string];
  /** True only when the theme asks for it and the account's plan allows it. */
  hidePoweredBy: boolean;
}

interface ThemeInputs {
  accountName: string;
  settings: Record<string, unknown>;
  hidePoweredBy: boolean;
  logoUrl: string | null;
  bannerUrl: string | null;
  backgroundUrl: string | null;
  layout: string | null;
  components: Record<string, string>;
}

/** Loads the account's default theme (or the built-in defaults when it has none). */
export async function loadPageTheme(db: Db, accountId: number): Promise<PageTheme> {
  return buildPageTheme(await readThemeInputs(db, accountId, 'web', ''));
}

/**
 * What a page or a mail is dressed in: the account's default theme settings (the built-in
 * defaults when it has none), its images' URLs (absolute under `origin` for mail), and the
 * layout of `channel` the theme names, with the account's components.
 */
async function readThemeInputs(db: Db, accountId: number, channel: 'web' | 'email', origin: string): Promise<ThemeInputs> {
  const [account, theme] = await Promise.all([
    db.selectFrom('accounts').select(['name', 'hide_powered_by_allowed']).where('id', '=', accountId).executeTakeFirst(),
    db
      .selectFrom('themes')
      .select(['settings', 'logo_image_id', 'banner_image_id', 'background_image_id'])
      .where('account_id', '=', accountId)
      .where('is_default', '=', true)
      .where('deleted_at', 'is', null)
      .executeTakeFirst(),
  ]);
  const settings = deriveThemeSettings((theme?.settings as Record<string, unknown> | undefined) ?? {});
  const imageIds = [theme?.logo_image_id, theme?.banner_image_id, theme?.background_image_id].filter(
    (x): x is number => typeof x === 'number' || typeof x === 'string',
  );
  const layoutId = channel === 'web' ? settings.default_web_html_template_id : settings.default_email_html_template_id;
  const wantsLayout = typeof layoutId === 'number' && Number.isSafeInteger(layoutId);
  const [images, templates] = await Promise.all([
    imageIds.length
      ? db.selectFrom('images').select(['id', 'sha256']).where('account_id', '=', accountId).where('id', 'in', imageIds).execute()
      : [],
    wantsLayout
      ? db
          .selectFrom('html_templates')
          .select(['id', 'key', 'kind', 'channel', 'body'])
          .where('account_id', '=', accountId)
          .where((eb) => eb.or([eb('id', '=', layoutId), eb('kind', '=', 'component')]))
          .execute()
      : [],
  ]);
  const urlOf = (id: number | null | undefined) => {
    const img = images.find((i) => Number(i.id) === Number(id));
    return img ? `${origin}${imagePath(Number(img.id), img.sha256)}` : null;
  };
  let layout: string | null = null;
  const components: Record<string, string> = {};
  for (const t of templates) {
    if (Number(t.id) === layoutId && t.kind === 'layout' && t.channel === channel) layout = t.body;
    else if (t.kind === 'component') components[t.key] = t.body;
  }
  return {
    accountName: account?.name ?? '',
    settings,
    hidePoweredBy: account?.hide_powered_by_allowed === true && settings.hide_powered_by === true,
    logoUrl: urlOf(theme?.logo_image_id),
    bannerUrl: urlOf(theme?.banner_image_id),
    backgroundUrl: urlOf(theme?.background_image_id),
    layout,
    components,
  };
}

function hexOr(v: unknown, fallback: string): string {
  const rgb = typeof v === 'string' ? parseHex(v) : null;
  return rgb ? toHex(rgb) : fallback;
}

function radius(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= BORDER_RADIUS.min && v <= BORDER_RADIUS.max ? v : fallback;
}

/**
 * Every value is re-validated here (hex colours re-serialised, keys looked up in the curated
 * lists, image paths built by us), so nothing a theme stores can break out of the CSS block.
 */
export function themeCss(settings: Record<string, unknown>, backgroundUrl: string | null): string {
  const s = deriveThemeSettings(settings);
  const vars: Array<[string, string]> = [];
  for (const k of Object.keys(BASE_COLORS) as Array<keyof typeof BASE_COLORS>) {
    vars.push([k, hexOr(s[k], BASE_COLORS[k])]);
    vars.push([`${k}_hover`, hexOr(s[`${k}_hover`], BASE_COLORS[k])]);
  }
  vars.push(['text_color_muted', hexOr(s.text_color_muted, BASE_COLORS.text_color)]);
  vars.push(['text_background_color_contrast', hexOr(s.text_background_color_contrast, '#000000')]);
  vars.push(['accent_color_contrast', readableOn(hexOr(s.accent_color, BASE_COLORS.accent_color))]);
  vars.push(['heading_font', typefaceStack(s.heading_typeface ?? TYPEFACE_DEFAULTS.heading_typeface)]);
  vars.push(['body_font', typefaceStack(s.body_typeface ?? TYPEFACE_DEFAULTS.body_typeface)]);
  vars.push(['card_radius', `${radius(s.card_border_radius_px, RADIUS_DEFAULTS.card_border_radius_px)}px`]);
  vars.push(['button_radius', `${radius(s.button_border_radius_px, RADIUS_DEFAULTS.button_border_radius_px)}px`]);
  vars.push(['card_shadow', shadowCss(s.card_shadow_preset)]);
  const useImage = (s.background_source ?? BACKGROUND_SOURCE_DEFAULT) === 'image' && backgroundUrl;
  vars.push(['background_image', useImage ? `url("${backgroundUrl}")` : 'none']);
  return `:root{${vars.map(([k, v]) => `--admit-${k.replace(/_/g, '-')}:${v};`).join('')}}`;
}

/** Base styles that use the custom properties; pages add their own on top. */
const BASE_CSS =
  'body{margin:0;background:var(--admit-background-color) var(--admit-background-image) center/cover fixed;' +
  'color:var(--admit-text-color);font-family:var(--admit-body-font);line-height:1.5}' +
  'h1,h2,h3{font-family:var(--admit-heading-font)}' +
  '.admit-skip{position:absolute;left:-9999px}.admit-skip:focus{left:1rem;top:1rem}' +
  '.admit-header,.admit-footer{max-width:44rem;margin:0 auto;padding:1rem}' +
  '.admit-header img{max-height:4rem}.admit-banner{display:block;width:100%;max-height:16rem;object-fit:cover}' +
  'main{max-width:44rem;margin:0 auto 2rem;padding:1.5rem;background:var(--admit-text-background-color);' +
  'border-radius:var(--admit-card-radius);box-shadow:var(--admit-card-shadow)}' +
  'a{color:var(--admit-accent-color)}a:hover{color:var(--admit-accent-color-hover)}' +
  'button,.button{background:var(--admit-accent-color);color:var(--admit-accent-color-contrast);border:0;' +
  'border-radius:var(--admit-button-radius);padding:.6rem 1.2rem;font:inherit;cursor:pointer}' +
  'button:hover,.button:hover{background:var(--admit-accent-color-hover)}' +
  // the footer sits on the page background, which the muted colour (mixed against the card) may not suit
  '.muted{color:var(--admit-text-color-muted)}.admit-footer{color:var(--admit-text-color);font-size:.875rem}';

const EMPTY_RESERVED = RESERVED_COMPONENT_NAMES.filter((n) => !['content', 'header', 'footer', 'powered_by'].includes(n));

export function buildPageTheme(t: ThemeInputs): PageTheme {
  const css = themeCss(t.settings, t.backgroundUrl);
  const locale = (LOCALES as readonly string[]).includes(String(t.settings.locale)) ? String(t.settings.locale) : LOCALE_DEFAULT;
  const header =
    `<header class="admit-header">` +
    (t.logoUrl
      ? `<img src="${escapeHtml(t.logoUrl)}" alt="${escapeHtml(t.accountName)}">`
      : `<strong>${escapeHtml(t.accountName)}</strong>`) +
    `</header>` +
    (t.bannerUrl ? `<img class="admit-banner" src="${escapeHtml(t.bannerUrl)}" alt="">` : '');
  const themeLanguage: PageLanguage = { tag: locale, skipToContent: 'Skip to content', poweredBy: 'Powered by admit' };

  const documentOf = (title: string, [before, after]: readonly [string, string], lang: PageLanguage): [string, string] => [
    `<!doctype html><html lang="${escapeHtml(lang.tag)}"><head><meta charset="utf-8">` +
      `<meta name="viewport" content="width=device-width, initial-scale=1">` +
      `<meta name="referrer" content="same-origin"><title>${escapeHtml(title)}</title>` +
      `<style>${css}${BASE_CSS}</style></head><body>${before}`,
    `${after}</body></html>`,
  ];

  const shell = (title: string, lang: PageLanguage = themeLanguage): [string, string] => {
    const poweredBy = t.hidePoweredBy ? '' : `<p class="admit-powered-by">${escapeHtml(lang.poweredBy)}</p>`;
    const footer = `<footer class="admit-footer">${poweredBy}</footer>`;
    const builtIn = () =>
      documentOf(
        title,
        [`<a class="admit-skip" href="#main">${escapeHtml(lang.skipToContent)}</a>${header}<main id="main">`, `</main>${footer}`],
        lang,
      );
    if (!t.layout) return builtIn();
    const rendered = renderLayout(t, title, { header, footer, powered_by: poweredBy });
    if (rendered === null) return builtIn();
    const { html, slot } = rendered;
    const first = html.indexOf(slot);
    return documentOf(
      title,
      first < 0
        ? [`${html}<main id="main">`, '</main>']
        : [
            html.slice(0, first),
            html
              .slice(first + slot.length)
              .split(slot)
              .join(''),
          ],
      lang,
    );
  };
  const wrap = (content: string, title: string, lang?: PageLanguage): string => {
    const [before, after] = shell(title, lang);
    return before + content + after;
  };
  return { css, locale, wrap, shell, hidePoweredBy: t.hidePoweredBy };
}

/**
 * Renders the organiser's layout with Mustache (escaping by default, no functions in the view,
 * so it cannot run code), sanitises the result, and leaves random slot markers where the
 * service's own HTML goes; the markers survive escaping and sanitising unchanged. Returns null
 * when the template does not parse or its partials recurse.
 */
function renderLayout(t: ThemeInputs, title: string, own: Record<string, string>): { html: string; slot: string } | null {
  const nonce = randomBytes(12).toString('hex');
  const mark = (name: string) => `admitslot${nonce}${name.replace(/_/g, '')}`;
  const partials: Record<string, string> = { ...t.components };
  for (const name of EMPTY_RESERVED) partials[name] = '';
  for (const name of Object.keys(own)) partials[name] = mark(name);
  partials.content = mark('content');
  const view = {
    title,
    content: mark('content'),
    account_name: t.accountName,
    logo_url: t.logoUrl ?? '',
    banner_url: t.bannerUrl ?? '',
    header: mark('header'),
    footer: mark('footer'),
    powered_by: mark('powered_by'),
  };
  if (!expansionWithinBudget(t.layout!, partials)) return null;
  let out: string;
  try {
    out = Mustache.render(t.layout!, view, partials);
  } catch {
    return null;
  }
  let html = sanitizeHtml(out);
  for (const [name, value] of Object.entries(own)) html = html.split(mark(name)).join(value);
  return { html, slot: mark('content') };
}

const PARTIAL_REF = /\{\{\s*>\s*([^\s}]+)\s*\}\}/g;
const EXPANSION_BUDGET = 512 * 1024;

/**
 * Components may include components: refuse a cycle, and refuse a template whose partials
 * would expand past the budget (a few components each including the next twice would
 * otherwise grow exponentially on every page view).
 */
export function expansionWithinBudget(layout: string, partials: Record<string, string>): boolean {
  const size = new Map<string, number>();
  const visiting = new Set<string>();
  const measure = (body: string): number => {
    let total = body.length;
    for (const m of body.matchAll(PARTIAL_REF)) {
      const name = m[1]!;
      if (!(name in partials)) continue;
      if (visiting.has(name)) return Infinity;
      if (!size.has(name)) {
        visiting.add(name);
        size.set(name, measure(partials[name]!));
        visiting.delete(name);
      }
      total += size.get(name)!;
      if (total > EXPANSION_BUDGET) return Infinity;
    }
    return total;
  };
  return measure(layout) <= EXPANSION_BUDGET;
}

/**
 * The account's email layout (the default theme's `default_email_html_template_id`) as a wrapper
 * for a mail's HTML: the layout rendered like the web one (Mustache, escaped, sanitised), the mail's
 * own content in its `{{{content}}}` slot, images as absolute URLs. Null when the theme names no
 * email layout (or it does not render): the mail keeps its built-in look.
 */
export async function loadMailLayout(
  db: Db,
  accountId: number,
  baseUrl: string,
): Promise<((contentHtml: string, title: string, lang: string) => string) | null> {
  const read = await readThemeInputs(db, accountId, 'email', baseUrl.replace(/\/$/, ''));
  if (!read.layout) return null;
  const inputs: ThemeInputs = { ...read, hidePoweredBy: true, backgroundUrl: null };
  return (contentHtml, title, lang) => {
    const rendered = renderLayout(inputs, title, { header: '', footer: '', powered_by: '' });
    let body = contentHtml;
    if (rendered) {
      const first = rendered.html.indexOf(rendered.slot);
      body =
        first < 0
          ? `${rendered.html}${contentHtml}`
          : rendered.html.slice(0, first) +
            contentHtml +
            rendered.html
              .slice(first + rendered.slot.length)
              .split(rendered.slot)
              .join('');
    }
    return `<!doctype html><html lang="${escapeHtml(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`;
  };
}
