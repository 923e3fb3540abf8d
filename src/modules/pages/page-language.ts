import type { FastifyReply, FastifyRequest } from 'fastify';
import { languageLinks, negotiate, type Lang, type Locale } from '../i18n/i18n.ts';
import type { PageLanguage } from '../themes/page-theme.service.ts';

/**
 * A buyer page's language: `?lang=` (the language switch), else `choice` (the language the
 * order was bought in), else the browser's Accept-Language among the catalogues, else `fallback`
 * (the event's locale), else English.
 */
export function pageLocale(request: FastifyRequest, fallback: string | null, choice: string | null = null): Locale {
  const q = (request.query ?? {}) as { lang?: unknown };
  return negotiate({
    choice: typeof q.lang === 'string' && q.lang ? q.lang : choice,
    acceptLanguage: request.headers['accept-language'],
    fallback,
  });
}

/**
 * What the page frame (the theme's layout) needs to speak the page's language, with the language
 * switch in the frame's header: its links go to `path` (the page's own), keeping `query`.
 */
export function frameOf(loc: Locale, path?: string, query: Record<string, string | undefined> = {}): PageLanguage {
  const hrefFor = (lang: Lang) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
    params.set('lang', lang);
    return `${path}?${params.toString()}`;
  };
  return {
    tag: loc.tag,
    skipToContent: loc.m.skipToContent,
    poweredBy: loc.m.poweredBy,
    switchLabel: loc.m.language,
    languages: path === undefined ? [] : languageLinks(loc, hrefFor),
  };
}

/**
 * A buyer page's answer: HTML that depends on the browser's language (`Vary: Accept-Language`),
 * never stored by a shared cache (`no-store`; the public lists revalidate with `no-cache`).
 */
export function sendPage(
  reply: FastifyReply,
  page: string | Buffer,
  opts: { status?: number; cache?: 'no-store' | 'no-cache' } = {},
): FastifyReply {
  return reply
    .code(opts.status ?? 200)
    .header('cache-control', opts.cache ?? 'no-store')
    .header('vary', 'accept-language')
    .type('text/html; charset=utf-8')
    .send(page);
}

/** `lang` as a query parameter schema: what `?lang=` may hold. */
export const langQuery = { lang: { type: 'string', maxLength: 35 } } as const;
