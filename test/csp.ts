import { createHash } from 'node:crypto';
import { expect } from 'vitest';

interface HtmlResponse {
  headers: Record<string, unknown>;
  body: string;
}

/** The response's Content-Security-Policy directives, by name. */
export function cspOf(res: HtmlResponse): Map<string, string[]> {
  const header = res.headers['content-security-policy'];
  expect(typeof header, 'a content-security-policy header').toBe('string');
  return new Map(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!.toLowerCase(), sources]),
  );
}

/** The nonce script-src allows (`'nonce-<it>'`), or null. */
export function scriptNonceOf(res: HtmlResponse): string | null {
  const source = cspOf(res)
    .get('script-src')
    ?.find((s) => s.startsWith("'nonce-"));
  return source ? source.slice("'nonce-".length, -1) : null;
}

/**
 * The opening tags of the page's scripts that run inline code: every `<script>` without `src`
 * that is not a data block (`type="application/json"`).
 */
export function inlineScriptTags(body: string): string[] {
  return [...body.matchAll(/<script\b[^>]*>/gi)]
    .map((m) => m[0])
    .filter((tag) => !/\ssrc\s*=/i.test(tag) && !/\stype\s*=\s*["']?application\/json/i.test(tag));
}

/**
 * The page's policy allows no inline script but its own: no `'unsafe-inline'` in script-src, a
 * nonce there, and every inline script carrying that nonce. Returns the nonce and how many
 * inline scripts the page has.
 */
export function expectNoncedScripts(res: HtmlResponse): { nonce: string; scripts: number } {
  const script = cspOf(res).get('script-src') ?? [];
  expect(script).not.toContain("'unsafe-inline'");
  const nonce = scriptNonceOf(res);
  // 128 bits, base64url without padding (CSP's nonce grammar takes '-' and '_')
  expect(nonce, 'a nonce in script-src').toMatch(/^[A-Za-z0-9_-]{22}$/);
  const tags = inlineScriptTags(res.body);
  for (const tag of tags) expect(/\snonce="([^"]*)"/.exec(tag)?.[1], tag).toBe(nonce);
  return { nonce: nonce!, scripts: tags.length };
}

/**
 * The page's policy allows its inline scripts by their hashes only: no `'unsafe-inline'`, no
 * nonce, one `'sha256-…'` source per inline script (the hash of its exact text) and none for a
 * script the page does not have. Returns how many inline scripts the page has.
 */
export function expectHashedScripts(res: HtmlResponse): { scripts: number } {
  const script = cspOf(res).get('script-src') ?? [];
  expect(script).not.toContain("'unsafe-inline'");
  expect(scriptNonceOf(res), 'no nonce in script-src').toBeNull();
  const codes = [...res.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
    .filter(([, attrs]) => !/\ssrc\s*=/i.test(attrs!) && !/\stype\s*=\s*["']?application\/json/i.test(attrs!))
    .map(([, , code]) => code!);
  const hashes = codes.map((code) => `'sha256-${createHash('sha256').update(code, 'utf8').digest('base64')}'`);
  expect(script.filter((s) => s.startsWith("'sha"))).toEqual(hashes);
  return { scripts: codes.length };
}
