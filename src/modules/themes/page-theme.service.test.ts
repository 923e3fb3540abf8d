import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, seedAccount } from '../../../test/factories.ts';
import { buildPageTheme, expansionWithinBudget, loadPageTheme } from './page-theme.service.ts';
import { contrastRatio } from './theme-colors.ts';

let t: TestApp;
const accountIds: Record<string, number> = {};

const LAYOUT =
  '<div class="shell" onclick="alert(1)"><script>alert("layout")</script>{{> header}}<h1>{{ title }}</h1>' +
  '{{> promo}}<section>{{ content }}</section><a href="javascript:alert(1)">bad</a>{{> powered_by}}</div>';

beforeAll(async () => {
  t = await createTestApp();
  const seed = async (slug: string, extra: object) => {
    await seedAccount(t.ctx, makeAccountFile({ slug, ...extra }));
    accountIds[slug] = Number(
      (await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', slug).executeTakeFirstOrThrow()).id,
    );
  };
  await seed('plain', {});
  await seed('styled', {
    account: { slug: 'styled', name: 'Styled <Co>', payments: { mode: 'sandbox' }, plan: { hide_powered_by: true } },
    html_templates: [
      { key: 'web', name: 'Web', kind: 'layout', channel: 'web', body: LAYOUT },
      {
        key: 'promo',
        name: 'Promo',
        kind: 'component',
        channel: 'web',
        body: '<aside class="promo">Promo<img src=x onerror=alert(2)></aside>',
      },
    ],
    themes: [
      { name: 'Other', settings: { accent_color: '#00ff00' } },
      {
        name: 'Main',
        is_default: true,
        settings: {
          accent_color: '#ff0000',
          heading_typeface: 'old_style',
          card_border_radius_px: 30,
          hide_powered_by: true,
          default_web_html_template_id: 'web',
        },
      },
    ],
  });
  await seed('noplan', {
    account: { slug: 'noplan', name: 'No plan', payments: { mode: 'sandbox' } },
    themes: [{ name: 'Hide', is_default: true, settings: { hide_powered_by: true, text_background_color: '#000000' } }],
  });
});
afterAll(() => t.close());

describe('loadPageTheme', () => {
  it('without a theme: the built-in accessible layout and default properties', async () => {
    const theme = await loadPageTheme(t.ctx.db, accountIds.plain!);
    expect(theme.hidePoweredBy).toBe(false);
    expect(theme.css).toMatch(/^:root\{/);
    expect(theme.css).toContain('--admit-accent-color:#2d4fd6;');
    expect(theme.css).toContain('--admit-body-font:system-ui, sans-serif;');
    const doc = theme.wrap('<form method="post"><button>Pay now</button></form>', 'Pay <order>');
    expect(doc).toMatch(/^<!doctype html><html lang="en">/);
    expect(doc).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(doc).toContain('<meta name="referrer" content="same-origin">');
    expect(doc).toContain('<title>Pay &lt;order&gt;</title>');
    expect(doc).toContain('<main id="main" class="admit-main"><form method="post"><button>Pay now</button></form></main>');
    expect(doc).toContain('href="#main"');
    expect(doc).toContain('Powered by admit');
  });

  it("the default theme's colours, typefaces and radii become custom properties", async () => {
    const theme = await loadPageTheme(t.ctx.db, accountIds.styled!);
    expect(theme.css).toContain('--admit-accent-color:#ff0000;');
    expect(theme.css).toContain('--admit-accent-color-hover:#ff3333;');
    expect(theme.css).toContain('--admit-heading-font:');
    expect(theme.css).toMatch(/--admit-heading-font:'Iowan Old Style'/);
    expect(theme.css).toContain('--admit-card-radius:30px;');
    expect(theme.css).not.toContain('#00ff00'); // not the non-default theme
  });

  it('wraps pages in the web layout, sanitised, with the content untouched', async () => {
    const theme = await loadPageTheme(t.ctx.db, accountIds.styled!);
    expect(theme.hidePoweredBy).toBe(true); // plan allows it and the theme asks
    const doc = theme.wrap('<form method="post"><input name="x"><button>Pay</button></form>', 'Order <1>');
    expect(doc).toContain('<div class="shell">');
    expect(doc).toContain('<h1>Order &lt;1&gt;</h1>');
    // the layout goes around the frame's main, never instead of it
    expect(doc).toContain(
      '<section><main id="main" class="admit-main"><form method="post"><input name="x"><button>Pay</button></form></main></section>',
    );
    expect(doc.indexOf('<header class="admit-header">')).toBeLessThan(doc.indexOf('<div class="shell">'));
    expect(doc).toContain('<aside class="promo">Promo<img src="x"></aside>');
    expect(doc).toContain('Styled &lt;Co&gt;');
    expect(doc).not.toContain('alert');
    expect(doc).not.toContain('onclick');
    expect(doc).not.toContain('Powered by admit');
    expect(doc).toContain('<meta name="referrer" content="same-origin">');
  });

  it('hide_powered_by is ignored where the plan does not allow it', async () => {
    const theme = await loadPageTheme(t.ctx.db, accountIds.noplan!);
    expect(theme.hidePoweredBy).toBe(false);
    expect(theme.wrap('<p>x</p>', 'x')).toContain('Powered by admit');
    expect(theme.css).toContain('--admit-text-background-color-contrast:#ffffff;');
  });
});

describe('buildPageTheme fallbacks', () => {
  const base = {
    accountName: 'A',
    settings: {},
    hidePoweredBy: false,
    logoUrl: null,
    bannerUrl: null,
    backgroundUrl: null,
    layout: null as string | null,
    components: {} as Record<string, string>,
  };
  it('a broken or recursive layout falls back to the built-in one', () => {
    for (const [layout, components] of [
      ['<div>{{#open}}{{ content }}</div>', {}],
      ['<div>{{> a}}{{ content }}</div>', { a: '{{> b}}', b: '{{> a}}' }],
      [
        '<div>{{> a}}{{ content }}</div>',
        Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`a${i ? i : ''}`, `x{{> a${i + 1}}}{{> a${i + 1}}}`])),
      ],
    ] as const) {
      const doc = buildPageTheme({ ...base, layout, components: { ...components } }).wrap('<p>content</p>', 'T');
      expect(doc).toContain('<main id="main" class="admit-main"><p>content</p></main>');
    }
  });
  it('keeps the frame whatever the layout: container, header with the language switch, one main, footer', () => {
    const languages = [
      { lang: 'en', name: 'English', href: '/e/a?lang=en', current: true },
      { lang: 'de', name: 'Deutsch', href: '/e/a?lang=de', current: false },
    ];
    for (const layout of [
      '<div class="lantern">{{ content }}</div>',
      '<main id="main" role="main">{{{ content }}}</main>',
      '<p>no content placeholder at all</p>',
      '{{> header}}<div>{{ content }}</div>{{> footer}}{{> powered_by}}',
    ]) {
      const doc = buildPageTheme({ ...base, layout }).wrap('<p>content</p>', 'T', {
        tag: 'en',
        skipToContent: 'Skip to content',
        poweredBy: 'Powered by admit',
        switchLabel: 'Language',
        languages,
      });
      expect(doc, layout).toContain('<div class="admit-page"><header class="admit-header">');
      expect(doc, layout).toContain('<nav class="admit-lang" aria-label="Language"><a href="/e/a?lang=en" lang="en"');
      expect(doc.match(/<main\b/g), layout).toHaveLength(1);
      expect(doc.match(/id="main"/g), layout).toHaveLength(1);
      expect(doc.match(/<header\b/g), layout).toHaveLength(1);
      expect(doc.match(/Powered by admit/g), layout).toHaveLength(1);
      expect(doc, layout).toContain('<p>content</p></main>');
    }
  });
  it('text, links, muted text and button labels reach 4.5:1 whatever colours the organiser picks', () => {
    const vars = (css: string) => Object.fromEntries([...css.matchAll(/--admit-([a-z-]+):([^;]+);/g)].map((m) => [m[1]!, m[2]!]));
    for (const settings of [
      { background_color: '#ffffff', text_color: '#c8c8c8', text_background_color: '#fdfdfd', accent_color: '#ffe08a' },
      { background_color: '#101418', text_color: '#30343a', text_background_color: '#1b2128', accent_color: '#2b2b80' },
      { background_color: '#fbf7f0', text_color: '#1f1a14', text_background_color: '#ffffff', accent_color: '#b4461b' },
      { background_color: '#777777', text_color: '#808080', text_background_color: '#7a7a7a', accent_color: '#767676' },
    ]) {
      const v = vars(buildPageTheme({ ...base, settings }).css);
      const card = v['text-background-color']!;
      for (const k of ['text-color', 'text-color-muted', 'link-color', 'link-color-hover', 'error-color']) {
        expect(contrastRatio(v[k]!, card), `${k} on ${card}`).toBeGreaterThanOrEqual(4.5);
      }
      expect(contrastRatio(v['page-text-color']!, v['page-surface']!)).toBeGreaterThanOrEqual(4.5);
      expect(contrastRatio(v['page-link-color']!, v['page-surface']!)).toBeGreaterThanOrEqual(4.5);
      expect(contrastRatio(v['accent-color-contrast']!, v['accent-color']!)).toBeGreaterThanOrEqual(4.5);
      expect(contrastRatio(v['accent-color-hover-contrast']!, v['accent-color-hover']!)).toBeGreaterThanOrEqual(4.5);
      // a colour that already reads well is left as the organiser picked it
      if (settings.accent_color === '#b4461b') expect(v['link-color']).toBe('#b4461b');
    }
  });
  it('a layout that lost its content placeholder still shows the content', () => {
    const doc = buildPageTheme({ ...base, layout: '<div><script>{{ content }}</script></div>' }).wrap('<p>kept</p>', 'T');
    expect(doc).toContain('<p>kept</p>');
  });
  it('values that could escape the CSS block are ignored', () => {
    const css = buildPageTheme({
      ...base,
      settings: { accent_color: 'red;}</style><script>', body_typeface: "x'}", card_border_radius_px: '9px;}' },
    }).css;
    expect(css).not.toMatch(/<|script|9px/);
    expect(css).toContain('--admit-accent-color:#2d4fd6;');
  });
  it('the expansion budget', () => {
    expect(expansionWithinBudget('{{> a}}', { a: 'small' })).toBe(true);
    expect(expansionWithinBudget('{{> a}}', { a: '{{> a}}' })).toBe(false);
  });
});
