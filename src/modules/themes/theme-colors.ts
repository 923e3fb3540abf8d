/**
 * Calculated theme colours, derived on every save from the four base colours:
 *
 * - `<colour>_hover` for each base colour: the same hue and saturation with HSL lightness moved
 *   10 points towards the middle (darker for light colours, lighter for dark ones), so a hover
 *   state is visible on any colour.
 * - `text_color_muted`: text colour mixed 60/40 with the text background colour, channel by
 *   channel in sRGB, which keeps it quieter; then darkened or lightened until it reaches 4.5:1
 *   against the text background colour (and the page background, when both are light or both
 *   dark), so quiet text such as prices stays readable whatever the base colours are.
 * - `text_background_color_contrast`: black or white, whichever has the higher WCAG 2.x contrast
 *   ratio against the text background colour.
 */
export const BASE_COLORS = {
  background_color: '#f6f6f4',
  text_color: '#1b1b1f',
  text_background_color: '#ffffff',
  accent_color: '#2d4fd6',
} as const;

export const CALCULATED_KEY = /(_hover|^text_color_muted|^text_background_color_contrast)$/;

type Rgb = [number, number, number];

export function parseHex(hex: string): Rgb | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) return null;
  let h = m[1]!;
  if (h.length === 3) h = [...h].map((c) => c + c).join('');
  return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
}

export function toHex([r, g, b]: Rgb): string {
  return (
    '#' +
    [r, g, b]
      .map((v) =>
        Math.round(Math.min(255, Math.max(0, v)))
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')
  );
}

function rgbToHsl([r, g, b]: Rgb): Rgb {
  const [rn, gn, bn] = [r / 255, g / 255, b / 255];
  const max = Math.max(rn, gn, bn);
  const min = Math.min(rn, gn, bn);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l * 100];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  let h = max === rn ? (gn - bn) / d + (gn < bn ? 6 : 0) : max === gn ? (bn - rn) / d + 2 : (rn - gn) / d + 4;
  h *= 60;
  return [h, s * 100, l * 100];
}

function hslToRgb([h, s, l]: Rgb): Rgb {
  const sn = s / 100;
  const ln = l / 100;
  const k = (n: number) => (n + h / 30) % 12;
  const a = sn * Math.min(ln, 1 - ln);
  const f = (n: number) => ln - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [f(0) * 255, f(8) * 255, f(4) * 255];
}

export function hoverOf(hex: string): string {
  const rgb = parseHex(hex);
  if (!rgb) return hex;
  const [h, s, l] = rgbToHsl(rgb);
  return toHex(hslToRgb([h, s, l > 50 ? l - 10 : l + 10]));
}

export function mix(a: string, b: string, weightOfA: number): string {
  const x = parseHex(a);
  const y = parseHex(b);
  if (!x || !y) return a;
  return toHex([0, 1, 2].map((i) => x[i]! * weightOfA + y[i]! * (1 - weightOfA)) as Rgb);
}

/** WCAG 2.x relative luminance. */
export function luminance(hex: string): number {
  const rgb = parseHex(hex) ?? [0, 0, 0];
  const lin = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * lin[0]! + 0.7152 * lin[1]! + 0.0722 * lin[2]!;
}

export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

export function readableOn(background: string): '#000000' | '#ffffff' {
  return contrastRatio('#000000', background) >= contrastRatio('#ffffff', background) ? '#000000' : '#ffffff';
}

/** WCAG 2.x AA for body text. */
export const TEXT_CONTRAST = 4.5;

/**
 * `fg`, moved in HSL lightness (keeping hue and saturation) away from the backgrounds until it
 * has at least `ratio` against every one of them; `fg` itself when it already has. Backgrounds
 * on both sides of the middle can leave no colour that suits all: then the first one wins, and
 * black or white is the last resort.
 */
export function ensureContrast(fg: string, backgrounds: string[], ratio = TEXT_CONTRAST): string {
  const rgb = parseHex(fg);
  if (!rgb || !backgrounds.length) return fg;
  const suits = (c: string, bgs: string[]) => bgs.every((b) => contrastRatio(c, b) >= ratio);
  const attempt = (bgs: string[]): string | null => {
    if (suits(toHex(rgb), bgs)) return toHex(rgb);
    const [h, s, l] = rgbToHsl(rgb);
    // towards black on a light background, towards white on a dark one
    const down = readableOn(bgs[0]!) === '#000000';
    for (let step = 1; step <= 100; step++) {
      const c = toHex(hslToRgb([h, s, down ? Math.max(0, l - step) : Math.min(100, l + step)]));
      if (suits(c, bgs)) return c;
    }
    return null;
  };
  return attempt(backgrounds) ?? attempt([backgrounds[0]!]) ?? readableOn(backgrounds[0]!);
}

/** The backgrounds text may sit on: the card always, the page too when it is on the same side. */
export function textBackgrounds(card: string, page: string): string[] {
  return readableOn(card) === readableOn(page) ? [card, page] : [card];
}

/** Drops any calculated key sent in and recomputes them all from the base colours. */
export function deriveThemeSettings(settings: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(settings)) if (!CALCULATED_KEY.test(k)) out[k] = v;
  const color = (k: keyof typeof BASE_COLORS): string =>
    typeof out[k] === 'string' && parseHex(out[k] as string) ? (out[k] as string) : BASE_COLORS[k];
  for (const k of Object.keys(BASE_COLORS) as Array<keyof typeof BASE_COLORS>) {
    out[`${k}_hover`] = hoverOf(color(k));
  }
  out.text_color_muted = ensureContrast(
    mix(color('text_color'), color('text_background_color'), 0.6),
    textBackgrounds(color('text_background_color'), color('background_color')),
  );
  out.text_background_color_contrast = readableOn(color('text_background_color'));
  return out;
}
