/**
 * The option space of theme settings: the curated typefaces (system font stacks, so no web
 * font is ever fetched from a third party), shadow presets, background sources, radius bounds
 * and locales. The options endpoint serves these; validation and the page CSS read them too.
 */
export interface Typeface {
  key: string;
  name: string;
  stack: string;
}

/** System font stacks after modernfontstacks.com: every one renders with fonts already installed. */
export const TYPEFACES: readonly Typeface[] = [
  { key: 'system_ui', name: 'System UI', stack: 'system-ui, sans-serif' },
  { key: 'transitional', name: 'Transitional', stack: "Charter, 'Bitstream Charter', 'Sitka Text', Cambria, serif" },
  {
    key: 'old_style',
    name: 'Old Style',
    stack: "'Iowan Old Style', 'Palatino Linotype', 'URW Palladio L', P052, serif",
  },
  {
    key: 'humanist',
    name: 'Humanist',
    stack: "Seravek, 'Gill Sans Nova', Ubuntu, Calibri, 'DejaVu Sans', source-sans-pro, sans-serif",
  },
  {
    key: 'geometric_humanist',
    name: 'Geometric Humanist',
    stack: "Avenir, Montserrat, Corbel, 'URW Gothic', source-sans-pro, sans-serif",
  },
  {
    key: 'neo_grotesque',
    name: 'Neo-Grotesque',
    stack: "Inter, Roboto, 'Helvetica Neue', 'Arial Nova', 'Nimbus Sans', Arial, sans-serif",
  },
  {
    key: 'slab_serif',
    name: 'Slab Serif',
    stack: "Rockwell, 'Rockwell Nova', 'Roboto Slab', 'DejaVu Serif', 'Sitka Small', serif",
  },
  {
    key: 'didone',
    name: 'Didone',
    stack: "Didot, 'Bodoni MT', 'Noto Serif Display', 'URW Palladio L', P052, Sylfaen, serif",
  },
  {
    key: 'rounded_sans',
    name: 'Rounded Sans',
    stack:
      "ui-rounded, 'Hiragino Maru Gothic ProN', Quicksand, Comfortaa, Manjari, 'Arial Rounded MT', Calibri, source-sans-pro, sans-serif",
  },
  {
    key: 'monospace_code',
    name: 'Monospace',
    stack: "ui-monospace, 'Cascadia Code', 'Source Code Pro', Menlo, Consolas, 'DejaVu Sans Mono', monospace",
  },
];

export const TYPEFACE_DEFAULTS = { heading_typeface: 'system_ui', body_typeface: 'system_ui' } as const;

export interface ShadowPreset {
  key: string;
  name: string;
  css: string;
}

export const CARD_SHADOW_PRESETS: readonly ShadowPreset[] = [
  { key: 'none', name: 'None', css: 'none' },
  { key: 'subtle', name: 'Subtle', css: '0 1px 2px rgba(0, 0, 0, 0.08)' },
  { key: 'medium', name: 'Medium', css: '0 2px 8px rgba(0, 0, 0, 0.12)' },
  { key: 'strong', name: 'Strong', css: '0 8px 24px rgba(0, 0, 0, 0.18)' },
];
export const CARD_SHADOW_DEFAULT = 'subtle';

export const BACKGROUND_SOURCES = ['color', 'image'] as const;
export const BACKGROUND_SOURCE_DEFAULT = 'color';

export const BORDER_RADIUS = { min: 0, max: 64 } as const;
export const RADIUS_DEFAULTS = { card_border_radius_px: 12, button_border_radius_px: 8 } as const;

export const HTML_TEMPLATE_KINDS = ['layout', 'component'] as const;

/** Page languages a theme can declare (`<html lang>`). */
export const LOCALES = ['en', 'de', 'fr', 'nl', 'es', 'it', 'pt', 'da', 'sv', 'nb', 'fi', 'pl'] as const;
export const LOCALE_DEFAULT = 'en';

export function typefaceStack(key: unknown): string {
  return (TYPEFACES.find((t) => t.key === key) ?? TYPEFACES[0]!).stack;
}

export function shadowCss(key: unknown): string {
  return (CARD_SHADOW_PRESETS.find((p) => p.key === key) ?? CARD_SHADOW_PRESETS.find((p) => p.key === CARD_SHADOW_DEFAULT)!).css;
}
