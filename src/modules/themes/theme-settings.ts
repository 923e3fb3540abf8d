import { BASE_COLORS, CALCULATED_KEY, deriveThemeSettings, parseHex } from './theme-colors.ts';
import {
  BACKGROUND_SOURCES,
  BACKGROUND_SOURCE_DEFAULT,
  BORDER_RADIUS,
  CARD_SHADOW_DEFAULT,
  CARD_SHADOW_PRESETS,
  LOCALES,
  LOCALE_DEFAULT,
  RADIUS_DEFAULTS,
  TYPEFACES,
  TYPEFACE_DEFAULTS,
} from './theme-options.ts';

export const COLOR_KEYS = Object.keys(BASE_COLORS) as Array<keyof typeof BASE_COLORS>;
export const TEMPLATE_CHANNELS = ['web', 'email', 'attendee_hub'] as const;
export type TemplateChannel = (typeof TEMPLATE_CHANNELS)[number];
export const templateKey = (c: TemplateChannel) => `default_${c}_html_template_id` as const;

/** Every key a client may set. `locale` (the page language) goes beyond the spec's list. */
export const SETTABLE_KEYS = [
  ...COLOR_KEYS,
  'heading_typeface',
  'body_typeface',
  'card_border_radius_px',
  'button_border_radius_px',
  'card_shadow_preset',
  'background_source',
  ...TEMPLATE_CHANNELS.map(templateKey),
  'hide_powered_by',
  'locale',
] as const;

export const CALCULATED_KEYS = [
  ...COLOR_KEYS.map((k) => `${k}_hover`),
  'text_color_muted',
  'text_background_color_contrast',
] as const;

/** The values a theme has for keys it never set. */
export const SETTING_DEFAULTS: Record<string, unknown> = {
  ...BASE_COLORS,
  ...TYPEFACE_DEFAULTS,
  ...RADIUS_DEFAULTS,
  card_shadow_preset: CARD_SHADOW_DEFAULT,
  background_source: BACKGROUND_SOURCE_DEFAULT,
  default_web_html_template_id: null,
  default_email_html_template_id: null,
  default_attendee_hub_html_template_id: null,
  hide_powered_by: false,
  locale: LOCALE_DEFAULT,
};

/** The layout templates of the account, by channel, for checking template ids. */
export type LayoutIndex = Record<TemplateChannel, Set<number>>;

/**
 * Checks a settings patch; returns field path -> messages (empty when valid). `null` for a
 * settable key means "back to the default".
 */
export function validateSettings(input: unknown, layouts: LayoutIndex): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  const add = (k: string, m: string) => (fields[`settings.${k}`] ??= []).push(m);
  if (input === undefined) return fields;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    fields.settings = ['must be an object'];
    return fields;
  }
  const typefaceKeys = TYPEFACES.map((t) => t.key);
  for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
    if (CALCULATED_KEY.test(k)) {
      add(k, 'is calculated from the colours and read-only');
      continue;
    }
    if (!(SETTABLE_KEYS as readonly string[]).includes(k)) {
      add(k, 'is not a known setting');
      continue;
    }
    if (v === null) continue;
    if ((COLOR_KEYS as string[]).includes(k)) {
      if (typeof v !== 'string' || !/^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(v) || !parseHex(v)) {
        add(k, 'must be a hex colour like #1a2b3c');
      }
    } else if (k === 'heading_typeface' || k === 'body_typeface') {
      if (typeof v !== 'string' || !typefaceKeys.includes(v)) add(k, `must be one of ${typefaceKeys.join(', ')}`);
    } else if (k === 'card_border_radius_px' || k === 'button_border_radius_px') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < BORDER_RADIUS.min || v > BORDER_RADIUS.max) {
        add(k, `must be a whole number from ${BORDER_RADIUS.min} to ${BORDER_RADIUS.max}`);
      }
    } else if (k === 'card_shadow_preset') {
      const keys = CARD_SHADOW_PRESETS.map((p) => p.key);
      if (typeof v !== 'string' || !keys.includes(v)) add(k, `must be one of ${keys.join(', ')}`);
    } else if (k === 'background_source') {
      if (typeof v !== 'string' || !(BACKGROUND_SOURCES as readonly string[]).includes(v)) {
        add(k, `must be one of ${BACKGROUND_SOURCES.join(', ')}`);
      }
    } else if (k === 'hide_powered_by') {
      if (typeof v !== 'boolean') add(k, 'must be true or false');
    } else if (k === 'locale') {
      if (typeof v !== 'string' || !(LOCALES as readonly string[]).includes(v)) add(k, `must be one of ${LOCALES.join(', ')}`);
    } else {
      const channel = TEMPLATE_CHANNELS.find((c) => templateKey(c) === k)!;
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) add(k, 'must be the integer id of a layout template, or null');
      else if (!layouts[channel].has(v)) add(k, `is not a ${channel} layout template of this account`);
    }
  }
  return fields;
}

/** Merges a validated patch into stored settings and recomputes the calculated keys. */
export function mergeSettings(
  stored: Record<string, unknown>,
  patch: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored };
  for (const [k, v] of Object.entries(patch ?? {})) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return deriveThemeSettings(out);
}

/** Full settings as shown: defaults for keys never set, then the calculated keys. */
export function presentSettings(stored: Record<string, unknown>): Record<string, unknown> {
  const base: Record<string, unknown> = { ...SETTING_DEFAULTS };
  for (const [k, v] of Object.entries(stored)) if (v !== null && v !== undefined) base[k] = v;
  return deriveThemeSettings(base);
}
