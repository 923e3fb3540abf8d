import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { CONSOLE_CATALOGUES, LANGS, negotiate, type ConsoleMessages, type Lang } from '../i18n/i18n.ts';

// The language one console request speaks. Views are pure functions deep below the routes, so
// rather than thread the language through every helper (fields, flashes, formats, plain words),
// the route's handler runs inside a request-scoped store: it starts from the browser's
// Accept-Language and becomes the person's own choice once the session is read (viewerOf).

interface Held {
  lang: Lang;
}

const store = new AsyncLocalStorage<Held>();

/** Formats per language: the console reads "€18.50" / "27 Nov 2026, 18:14" or "18,50 €" / "27. Nov. 2026, 18:14". */
const FORMAT_TAGS: Record<Lang, string> = { en: 'en-GB', de: 'de-DE' };

/** Runs every console route's handler in its request's language (registered before the routes). */
export function speakConsoleLanguages(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const handler = route.handler as (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => unknown;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const held: Held = { lang: negotiate({ acceptLanguage: request.headers['accept-language'] }).lang };
      return store.run(held, () => handler.call(this, request, reply));
    } as RouteHandlerMethod;
  });
}

/** The signed-in person's choice, when they made one, overrides the browser's. */
export function useChosenLanguage(language: string | null | undefined): void {
  const held = store.getStore();
  if (held && language && (LANGS as string[]).includes(language)) held.lang = language as Lang;
}

/** The language of the request being answered (English outside a request, as in unit tests). */
export function consoleLang(): Lang {
  return store.getStore()?.lang ?? 'en';
}

/** The console's messages in the request's language. */
export function t(): ConsoleMessages {
  return CONSOLE_CATALOGUES[consoleLang()];
}

/** The BCP 47 tag the console formats money, dates and counts with. */
export function formatTag(): string {
  return FORMAT_TAGS[consoleLang()];
}
