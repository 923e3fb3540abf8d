import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { RESERVED_COMPONENT_NAMES } from './templates.ts';

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;
const tpl: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      account: { slug: 'brand', name: 'Brand', payments: { mode: 'sandbox' }, plan: { hide_powered_by: true } },
      slug: 'brand',
      events: [makeEvent({ slug: 'one' }), makeEvent({ slug: 'two' })],
      html_templates: [
        { key: 'web-main', name: 'Web main', kind: 'layout', channel: 'web', body: '<main>{{ content }}</main>' },
        { key: 'mail-main', name: 'Mail main', kind: 'layout', channel: 'email', body: '<div>{{ content }}</div>' },
        { key: 'promo', name: 'Promo', kind: 'component', channel: 'web', body: '<p>Promo</p>' },
      ],
    }),
  );
  other = await seedAccount(t.ctx, makeAccountFile({ slug: 'other-brand' }));
  for (const r of await t.ctx.db.selectFrom('html_templates').select(['id', 'key']).execute()) tpl[r.key] = Number(r.id);
});
afterAll(() => t.close());

const url = (path = '') => `/brand/themes${path}`;
const call = (token: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path = '', payload?: object) =>
  t.call(token, { method, url: url(path), ...(payload ? { payload } : {}) });

describe('themes round trip', () => {
  it('creates, shows, patches (merged, recalculated), duplicates and deletes', async () => {
    t.clock.set('2026-11-22T12:00:00Z');
    const created = await call(acct.tokens.all, 'POST', '', {
      name: 'Night',
      settings: { background_color: '#101010', text_color: '#eeeeee', card_border_radius_px: 20 },
    });
    expect(created.statusCode).toBe(200);
    const theme = created.json().theme;
    expect(theme).toMatchObject({
      id: expect.any(Number),
      name: 'Night',
      is_default: true, // the account's first theme
      logo_url: null,
      banner_url: null,
      background_url: null,
      created_at: '2026-11-22T12:00:00Z',
      updated_at: '2026-11-22T12:00:00Z',
    });
    expect(theme.settings).toMatchObject({
      background_color: '#101010',
      text_color: '#eeeeee',
      text_background_color: '#ffffff',
      accent_color: '#2d4fd6',
      card_border_radius_px: 20,
      button_border_radius_px: 8,
      heading_typeface: 'system_ui',
      card_shadow_preset: 'subtle',
      background_source: 'color',
      default_web_html_template_id: null,
      hide_powered_by: false,
      background_color_hover: '#292929',
      text_color_hover: '#d4d4d4',
      text_background_color_contrast: '#000000',
    });
    expect(theme.settings.text_color_muted).toMatch(/^#[0-9a-f]{6}$/);

    const shown = await call(acct.tokens.none, 'GET', `/${theme.id}`);
    expect(shown.statusCode).toBe(200);
    expect(shown.json().theme).toEqual(theme);

    t.clock.set('2026-11-22T13:00:00Z');
    const patched = await call(acct.tokens.all, 'PATCH', `/${theme.id}`, {
      name: 'Night 2',
      settings: {
        text_background_color: '#000000',
        heading_typeface: 'old_style',
        default_web_html_template_id: tpl['web-main'],
      },
    });
    expect(patched.statusCode).toBe(200);
    const p = patched.json().theme;
    expect(p.name).toBe('Night 2');
    expect(p.updated_at).toBe('2026-11-22T13:00:00Z');
    expect(p.settings).toMatchObject({
      background_color: '#101010', // not sent: unchanged
      card_border_radius_px: 20,
      text_background_color: '#000000',
      text_background_color_contrast: '#ffffff', // recalculated
      text_background_color_hover: '#1a1a1a',
      heading_typeface: 'old_style',
      default_web_html_template_id: tpl['web-main'],
    });
    expect(p.settings.text_color_muted).not.toBe(theme.settings.text_color_muted);
    // null resets a key to its default
    const reset = await call(acct.tokens.all, 'PATCH', `/${theme.id}`, { settings: { card_border_radius_px: null } });
    expect(reset.json().theme.settings.card_border_radius_px).toBe(12);

    const dup = await call(acct.tokens.all, 'POST', `/${theme.id}/duplicate`);
    expect(dup.statusCode).toBe(200);
    const d = dup.json().theme;
    expect(d.id).not.toBe(theme.id);
    expect(d.name).toBe('Night 2 copy');
    expect(d.is_default).toBe(false);
    expect(d.settings).toEqual(reset.json().theme.settings);

    const list = await call(acct.tokens.view, 'GET');
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({
      themes: [
        { id: theme.id, name: 'Night 2', is_default: true, created_at: expect.any(String), updated_at: expect.any(String) },
        { id: d.id, name: 'Night 2 copy', is_default: false, created_at: expect.any(String), updated_at: expect.any(String) },
      ],
      meta: { lookup_mode: 'test', pagination: { page: 1, items: 50, pages: 1, count: 2 } },
    });

    const del = await t.call(acct.tokens.all, {
      method: 'DELETE',
      url: url(`/${theme.id}`),
      headers: { 'content-type': 'application/json' },
    });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await call(acct.tokens.all, 'GET', `/${theme.id}`)).statusCode).toBe(404);
    expect((await call(acct.tokens.all, 'DELETE', `/${theme.id}`)).statusCode).toBe(404);
    expect((await call(acct.tokens.all, 'PATCH', `/${theme.id}`, { name: 'x' })).statusCode).toBe(404);
    expect((await call(acct.tokens.all, 'POST', `/${theme.id}/duplicate`)).statusCode).toBe(404);
    const after = (await call(acct.tokens.all, 'GET')).json();
    expect(after.themes.map((x: { id: number }) => x.id)).toEqual([d.id]);
    // the row stays (soft delete)
    const row = await t.ctx.db.selectFrom('themes').select('deleted_at').where('id', '=', theme.id).executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
  });

  it('is_default moves the default; only one theme is the default', async () => {
    const a = (await call(acct.tokens.all, 'POST', '', { name: 'A', is_default: true })).json().theme;
    expect(a.is_default).toBe(true);
    const b = (await call(acct.tokens.all, 'POST', '', { name: 'B' })).json().theme;
    expect(b.is_default).toBe(false);
    await call(acct.tokens.all, 'PATCH', `/${b.id}`, { is_default: true });
    expect((await call(acct.tokens.all, 'GET', `/${a.id}`)).json().theme.is_default).toBe(false);
    expect((await call(acct.tokens.all, 'GET', `/${b.id}`)).json().theme.is_default).toBe(true);
  });

  it('pages the list', async () => {
    const r = await call(acct.tokens.all, 'GET', '?per_page=1&page=2');
    const body = r.json();
    expect(body.themes).toHaveLength(1);
    expect(body.meta.pagination).toMatchObject({ page: 2, items: 1 });
    expect(body.meta.pagination.pages).toBe(body.meta.pagination.count);
    expect((await call(acct.tokens.all, 'GET', '?page=zzz&per_page=-1')).json().meta.pagination).toMatchObject({
      page: 1,
      items: 1,
    });
  });
});

describe('authorisation', () => {
  it('writes need an all-events token (403); reads any valid token; other accounts 404; no token 401', async () => {
    const theme = (await call(acct.tokens.all, 'POST', '', { name: 'Auth' })).json().theme;
    for (const [method, path, body] of [
      ['POST', '', { name: 'x' }],
      ['PATCH', `/${theme.id}`, { name: 'x' }],
      ['DELETE', `/${theme.id}`, undefined],
      ['POST', `/${theme.id}/duplicate`, undefined],
    ] as const) {
      const r = await call(acct.tokens.limited, method, path, body);
      expect(r.statusCode, `${method} ${path}`).toBe(403);
      expect(r.json().error.code).toBe('forbidden');
    }
    expect((await call(acct.tokens.limited, 'GET', `/${theme.id}`)).statusCode).toBe(200);
    expect((await call(acct.tokens.none, 'GET', '/options')).statusCode).toBe(200);
    expect((await call(acct.tokens.none, 'POST', '', { name: 'No caps, all events' })).statusCode).toBe(200);
    const foreign = await call(other.tokens.all, 'GET', `/${theme.id}`);
    expect(foreign.statusCode).toBe(404);
    // the other account's own path does not reach this theme either
    const own = await t.call(other.tokens.all, { method: 'GET', url: `/other-brand/themes/${theme.id}` });
    expect(own.statusCode).toBe(404);
    expect((await t.call(null, { method: 'GET', url: url() })).statusCode).toBe(401);
    for (const id of ['abc', '0', '99999999', '1.5']) {
      expect((await call(acct.tokens.all, 'GET', `/${id}`)).statusCode, id).toBe(404);
    }
  });
});

describe('validation', () => {
  const bad = async (payload: object, method: 'POST' | 'PATCH' = 'POST', path = '') => {
    const r = await call(acct.tokens.all, method, path, payload);
    expect(r.statusCode).toBe(422);
    expect(r.json().error.code).toBe('validation_failed');
    return r.json().error.fields as Record<string, string[]>;
  };

  it('refuses unknown keys, bad colours, typefaces, radii, calculated keys and foreign templates', async () => {
    expect(await bad({})).toHaveProperty('name');
    expect(await bad({ name: '   ' })).toHaveProperty('name');
    expect(await bad({ name: 5 })).toHaveProperty('name');
    expect(await bad({ name: 'x', colour: 'red' })).toHaveProperty('colour');
    const fields = await bad({
      name: 'x',
      settings: {
        sparkle: true,
        accent_color: 'red',
        text_color: '#12345',
        heading_typeface: 'comic_sans',
        card_border_radius_px: 65,
        button_border_radius_px: 2.5,
        text_color_muted: '#000000',
        accent_color_hover: '#000000',
        text_background_color_contrast: '#000000',
        card_shadow_preset: 'huge',
        background_source: 'video',
        hide_powered_by: 'yes',
        default_web_html_template_id: tpl['mail-main'],
        default_email_html_template_id: tpl['promo'],
        default_attendee_hub_html_template_id: 999999,
      },
    });
    expect(Object.keys(fields).sort()).toEqual(
      [
        'settings.sparkle',
        'settings.accent_color',
        'settings.text_color',
        'settings.heading_typeface',
        'settings.card_border_radius_px',
        'settings.button_border_radius_px',
        'settings.text_color_muted',
        'settings.accent_color_hover',
        'settings.text_background_color_contrast',
        'settings.card_shadow_preset',
        'settings.background_source',
        'settings.hide_powered_by',
        'settings.default_web_html_template_id',
        'settings.default_email_html_template_id',
        'settings.default_attendee_hub_html_template_id',
      ].sort(),
    );
    expect(fields['settings.text_color_muted']![0]).toMatch(/read-only/);
    expect(await bad({ name: 'x', settings: { card_border_radius_px: -1 } })).toHaveProperty('settings.card_border_radius_px');
    expect(await bad({ name: 'x', settings: [] })).toHaveProperty('settings');
    // radius bounds are inclusive
    const edge = await call(acct.tokens.all, 'POST', '', {
      name: 'Edge',
      settings: { card_border_radius_px: 64, button_border_radius_px: 0 },
    });
    expect(edge.statusCode).toBe(200);
    // a template of another account is refused like an unknown one
    const foreignTpl = await t.ctx.db
      .insertInto('html_templates')
      .values({
        account_id: (
          await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', 'other-brand').executeTakeFirstOrThrow()
        ).id,
        key: 'theirs',
        name: 'Theirs',
        kind: 'layout',
        channel: 'web',
        body: '{{ content }}',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(await bad({ name: 'x', settings: { default_web_html_template_id: Number(foreignTpl.id) } })).toHaveProperty(
      'settings.default_web_html_template_id',
    );
  });

  it('a refused patch changes nothing', async () => {
    const theme = (await call(acct.tokens.all, 'POST', '', { name: 'Keep', settings: { accent_color: '#ff0000' } })).json().theme;
    await bad({ name: 'Changed', settings: { accent_color: '#00ff00', text_color: 'nope' } }, 'PATCH', `/${theme.id}`);
    const now = (await call(acct.tokens.all, 'GET', `/${theme.id}`)).json().theme;
    expect(now).toEqual(theme);
  });
});

describe('GET /themes/options', () => {
  it('serves the option space with the account templates and plan', async () => {
    const r = await call(acct.tokens.view, 'GET', '/options');
    expect(r.statusCode).toBe(200);
    const o = r.json();
    expect(o.colors).toEqual(['background_color', 'text_color', 'text_background_color', 'accent_color']);
    expect(o.typefaces.map((x: { key: string }) => x.key)).toEqual(
      expect.arrayContaining(['system_ui', 'old_style', 'neo_grotesque']),
    );
    expect(o.typefaces[0]).toEqual({
      key: 'system_ui',
      name: expect.any(String),
      font_stack: expect.stringContaining('system-ui'),
    });
    expect(o.typeface_defaults).toEqual({ heading_typeface: 'system_ui', body_typeface: 'system_ui' });
    expect(o.card_shadow_presets.map((x: { key: string }) => x.key)).toContain(o.card_shadow_default);
    expect(o.border_radius).toEqual({ min: 0, max: 64 });
    expect(o.background_sources).toContain(o.background_source_default);
    expect(o.html_template_kinds).toEqual(['layout', 'component']);
    expect(o.reserved_component_names).toEqual([...RESERVED_COMPONENT_NAMES]);
    expect(o.web_html_templates).toEqual([{ id: tpl['web-main'], name: 'Web main' }]);
    expect(o.email_html_templates).toEqual([{ id: tpl['mail-main'], name: 'Mail main' }]);
    expect(o.locales).toContain('en');
    expect(o.hide_powered_by_allowed).toBe(true);
    const theirs = (await t.call(other.tokens.view, { method: 'GET', url: '/other-brand/themes/options' })).json();
    expect(theirs.hide_powered_by_allowed).toBe(false);
    expect(theirs.web_html_templates.map((x: { name: string }) => x.name)).not.toContain('Web main');
  });
});
