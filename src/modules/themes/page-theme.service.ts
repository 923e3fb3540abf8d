import { randomBytes } from 'node:crypto';
import Mustache from 'mustache';
import type { Db } from '../../platform/db/database.ts';
import { escapeHtml } from '../../platform/http/html.ts';
import { BASE_COLORS, deriveThemeSettings, ensureContrast, parseHex, readableOn, toHex } from './theme-colors.ts';
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

/** The language a page is in: its `lang` attribute, the frame's own phrases, the language switch. */
export interface PageLanguage {
  tag: string;
  skipToContent: string;
  poweredBy: string;
  /** the switch's name ("Language") and its links, one per language, each named in its own language */
  switchLabel?: string;
  languages?: Array<{ lang: string; name: string; href: string; current: boolean }>;
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
 *
 * The colours text is drawn in are derived, never taken as they are: text, links and errors reach
 * 4.5:1 against the surface they sit on (the card, or the page background for what sits on it),
 * and button labels are black or white, whichever reads better on the button. An organiser may
 * pick light grey on white; the buyer still reads the page.
 */
export function themeCss(settings: Record<string, unknown>, backgroundUrl: string | null): string {
  const s = deriveThemeSettings(settings);
  const vars: Array<[string, string]> = [];
  const base = (k: keyof typeof BASE_COLORS) => hexOr(s[k], BASE_COLORS[k]);
  const card = base('text_background_color');
  for (const k of Object.keys(BASE_COLORS) as Array<keyof typeof BASE_COLORS>) {
    // text is drawn in its readable version (below, with the other derived colours)
    vars.push([k, k === 'text_color' ? ensureContrast(base(k), [card]) : base(k)]);
    vars.push([`${k}_hover`, hexOr(s[`${k}_hover`], BASE_COLORS[k])]);
  }
  const page = base('background_color');
  const accent = base('accent_color');
  const accentHover = hexOr(s.accent_color_hover, accent);
  const useImage = (s.background_source ?? BACKGROUND_SOURCE_DEFAULT) === 'image' && backgroundUrl;
  // on an image nothing is known about the page's colour: what would sit on it sits on the card colour
  const pageSurface = useImage ? card : page;
  vars.push(['text_color_muted', ensureContrast(hexOr(s.text_color_muted, BASE_COLORS.text_color), [card])]);
  vars.push(['text_background_color_contrast', hexOr(s.text_background_color_contrast, '#000000')]);
  vars.push(['accent_color_contrast', readableOn(accent)]);
  vars.push(['accent_color_hover_contrast', readableOn(accentHover)]);
  vars.push(['link_color', ensureContrast(accent, [card])]);
  vars.push(['link_color_hover', ensureContrast(accentHover, [card])]);
  vars.push(['page_surface', pageSurface]);
  vars.push(['page_text_color', ensureContrast(base('text_color'), [pageSurface])]);
  vars.push(['page_link_color', ensureContrast(accent, [pageSurface])]);
  vars.push(['error_color', ensureContrast('#b00020', [card])]);
  vars.push(['heading_font', typefaceStack(s.heading_typeface ?? TYPEFACE_DEFAULTS.heading_typeface)]);
  vars.push(['body_font', typefaceStack(s.body_typeface ?? TYPEFACE_DEFAULTS.body_typeface)]);
  vars.push(['card_radius', `${radius(s.card_border_radius_px, RADIUS_DEFAULTS.card_border_radius_px)}px`]);
  vars.push(['button_radius', `${radius(s.button_border_radius_px, RADIUS_DEFAULTS.button_border_radius_px)}px`]);
  vars.push(['card_shadow', shadowCss(s.card_shadow_preset)]);
  vars.push(['background_image', useImage ? `url("${backgroundUrl}")` : 'none']);
  return `:root{${vars.map(([k, v]) => `--admit-${k.replace(/_/g, '-')}:${v};`).join('')}}`;
}

/**
 * The frame's styles, which use the custom properties; pages add their own on top. The frame is
 * a centred column: the header (the account and the language switch), the organiser's layout
 * with the page's `main` inside it, the footer.
 */
const BASE_CSS =
  '*,*::before,*::after{box-sizing:border-box}' +
  'body{margin:0;background:var(--admit-background-color) var(--admit-background-image) center/cover fixed;' +
  'color:var(--admit-text-color);font-family:var(--admit-body-font);line-height:1.5;-webkit-text-size-adjust:100%}' +
  'h1,h2,h3{font-family:var(--admit-heading-font);line-height:1.2}h1{font-size:1.75rem;margin:.25rem 0 .5rem}' +
  'img,svg{max-width:100%}' +
  '.admit-skip{position:absolute;left:-9999px}.admit-skip:focus{left:1rem;top:1rem;z-index:10;background:var(--admit-text-background-color);padding:.5rem}' +
  // what an organiser's layout puts around main sits on the page background: its readable colours
  '.admit-page{max-width:46rem;margin:0 auto;padding:1rem 1rem 2rem;overflow-wrap:break-word;color:var(--admit-page-text-color)}' +
  '.admit-page a{color:var(--admit-page-link-color)}.admit-page .admit-main a,.admit-page .admit-header a{color:var(--admit-link-color)}' +
  '.admit-header{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem 1rem;' +
  'padding:.6rem 1rem;margin:0 0 1rem;background:var(--admit-text-background-color);color:var(--admit-text-color);' +
  'border-radius:var(--admit-card-radius);box-shadow:var(--admit-card-shadow)}' +
  '.admit-header .admit-brand{font-weight:700;font-family:var(--admit-heading-font);font-size:1.05rem;text-decoration:none;color:inherit}' +
  '.admit-header img{max-height:3rem;display:block}' +
  '.admit-banner{display:block;width:100%;max-height:16rem;object-fit:cover;border-radius:var(--admit-card-radius);margin:0 0 1rem}' +
  '.admit-lang{display:flex;flex-wrap:wrap;gap:.25rem .75rem;font-size:.9rem}' +
  '.admit-lang a{color:var(--admit-link-color);padding:.25rem 0}' +
  '.admit-lang [aria-current]{font-weight:600;text-decoration:none;color:inherit}' +
  '.admit-main{display:block;margin:0 0 1.5rem;padding:1.5rem;background:var(--admit-text-background-color);color:var(--admit-text-color);' +
  'border-radius:var(--admit-card-radius);box-shadow:var(--admit-card-shadow)}' +
  'a{color:var(--admit-link-color)}a:hover{color:var(--admit-link-color-hover)}' +
  'a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid var(--admit-link-color);outline-offset:2px}' +
  'button,.button{display:inline-block;background:var(--admit-accent-color);color:var(--admit-accent-color-contrast);border:0;' +
  'border-radius:var(--admit-button-radius);padding:.7rem 1.3rem;font:inherit;font-weight:600;cursor:pointer;text-decoration:none;min-height:2.75rem}' +
  'button:hover,.button:hover{background:var(--admit-accent-color-hover);color:var(--admit-accent-color-hover-contrast)}' +
  '.admit-page a.button{color:var(--admit-accent-color-contrast)}.admit-page a.button:hover{color:var(--admit-accent-color-hover-contrast)}' +
  '.muted{color:var(--admit-text-color-muted)}' +
  '.admit-footer{color:var(--admit-page-text-color);font-size:.875rem;text-align:center;padding:0 1rem}' +
  '.admit-footer a{color:var(--admit-page-link-color)}' +
  '@media (max-width:30rem){.admit-page{padding:.5rem .5rem 1.5rem}.admit-main{padding:1.1rem 1rem}h1{font-size:1.45rem}}';

const EMPTY_RESERVED = RESERVED_COMPONENT_NAMES.filter((n) => !['content', 'header', 'footer', 'powered_by'].includes(n));

export function buildPageTheme(t: ThemeInputs): PageTheme {
  const css = themeCss(t.settings, t.backgroundUrl);
  const locale = (LOCALES as readonly string[]).includes(String(t.settings.locale)) ? String(t.settings.locale) : LOCALE_DEFAULT;
  const themeLanguage: PageLanguage = { tag: locale, skipToContent: 'Skip to content', poweredBy: 'Powered by admit' };
  const header = (lang: PageLanguage) =>
    `<header class="admit-header">` +
    (t.logoUrl
      ? `<img src="${escapeHtml(t.logoUrl)}" alt="${escapeHtml(t.accountName)}">`
      : `<span class="admit-brand">${escapeHtml(t.accountName)}</span>`) +
    languageSwitch(lang) +
    `</header>` +
    (t.bannerUrl ? `<img class="admit-banner" src="${escapeHtml(t.bannerUrl)}" alt="">` : '');

  const documentOf = (title: string, [before, after]: readonly [string, string], lang: PageLanguage): [string, string] => {
    const poweredBy = t.hidePoweredBy ? '' : `<p class="admit-powered-by">${escapeHtml(lang.poweredBy)}</p>`;
    return [
      `<!doctype html><html lang="${escapeHtml(lang.tag)}"><head><meta charset="utf-8">` +
        `<meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<meta name="referrer" content="same-origin"><title>${escapeHtml(title)}</title>` +
        `<style>${css}${BASE_CSS}</style></head><body>` +
        `<a class="admit-skip" href="#main">${escapeHtml(lang.skipToContent)}</a><div class="admit-page">${header(lang)}${before}` +
        `<main id="main" class="admit-main">`,
      `</main>${after}<footer class="admit-footer">${poweredBy}</footer></div></body></html>`,
    ];
  };

  // The frame (skip link, container, header with the language switch, main, footer) is the
  // service's, whatever the organiser's layout: the layout only adds what goes around `main`,
  // so a layout can never lose the page its landmarks or its container.
  const shell = (title: string, lang: PageLanguage = themeLanguage): [string, string] => {
    const rendered = t.layout ? renderLayout(t, title, { header: '', footer: '', powered_by: '' }) : null;
    if (!rendered) return documentOf(title, ['', ''], lang);
    const html = withoutLandmarkClash(rendered.html);
    const first = html.indexOf(rendered.slot);
    return documentOf(
      title,
      first < 0
        ? [html, '']
        : [
            html.slice(0, first),
            html
              .slice(first + rendered.slot.length)
              .split(rendered.slot)
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

/** The language switch: one link per language, each named in its own language; none without links. */
function languageSwitch(lang: PageLanguage): string {
  if (!lang.languages?.length) return '';
  const links = lang.languages.map(
    (l) =>
      `<a href="${escapeHtml(l.href)}" lang="${escapeHtml(l.lang)}" hreflang="${escapeHtml(l.lang)}"${l.current ? ' aria-current="true"' : ''}>${escapeHtml(l.name)}</a>`,
  );
  return `<nav class="admit-lang" aria-label="${escapeHtml(lang.switchLabel ?? 'Language')}">${links.join('')}</nav>`;
}

/**
 * The page's `main` (and the skip link's target) are the frame's: a layout's own `main`, `role="main"`
 * or `id="main"` becomes a plain element, so the page keeps exactly one main landmark.
 */
function withoutLandmarkClash(layoutHtml: string): string {
  return layoutHtml
    .replace(/<(\/?)main\b/gi, '<$1div')
    .replace(/\srole="main"/gi, '')
    .replace(/\sid="main"/gi, '');
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

/** What a buyer mail takes from the account's default theme: its email layout and its colours. */
export interface MailTheme {
  accountName: string;
  logoUrl: string | null;
  /** the button's colour and its label's (black or white, whichever reads better) */
  accent: string;
  onAccent: string;
  /** links on the mail's white card: the accent, darkened or lightened to 4.5:1 */
  link: string;
  /**
   * The theme's email layout (`default_email_html_template_id`) around a mail's content: rendered
   * like the web one (Mustache, escaped, sanitised), the content in its `{{{content}}}` slot,
   * images as absolute URLs. Null when the theme names none (or it does not render).
   */
  layout: ((contentHtml: string, title: string) => string) | null;
}

export async function loadMailTheme(db: Db, accountId: number, baseUrl: string): Promise<MailTheme> {
  const read = await readThemeInputs(db, accountId, 'email', baseUrl.replace(/\/$/, ''));
  const accent = hexOr(read.settings.accent_color, BASE_COLORS.accent_color);
  const inputs: ThemeInputs = { ...read, hidePoweredBy: true, backgroundUrl: null };
  const layout = (contentHtml: string, title: string): string => {
    const rendered = renderLayout(inputs, title, { header: '', footer: '', powered_by: '' });
    if (!rendered) return contentHtml;
    const first = rendered.html.indexOf(rendered.slot);
    return first < 0
      ? `${rendered.html}${contentHtml}`
      : rendered.html.slice(0, first) +
          contentHtml +
          rendered.html
            .slice(first + rendered.slot.length)
            .split(rendered.slot)
            .join('');
  };
  return {
    accountName: read.accountName,
    logoUrl: read.logoUrl,
    accent,
    onAccent: readableOn(accent),
    link: ensureContrast(accent, ['#ffffff']),
    layout: read.layout ? layout : null,
  };
}
