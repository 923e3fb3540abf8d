import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { csrfToken, verifyCsrf } from '../../platform/http/csrf.ts';
import { limitAction } from '../../platform/http/rate-limit.ts';
import { loadPageTheme, type PageTheme } from '../themes/page-theme.service.ts';
import { cacheOf } from '../../platform/cache.ts';
import { checkout, loadShop, loadShopCatalogue, quote, shopCurrency, type Form, type ShopData } from './shop.service.ts';
import { negotiate, type Locale } from '../i18n/i18n.ts';
import { frameOf, langQuery, pageLocale, sendPage } from './page-language.ts';
import { shopPage, shopScript, shopScriptHashes } from './shop.view.ts';
import { seatCodes } from '../events/seat-map.service.ts';
import { addCookie, readCookie } from '../../platform/http/cookies.ts';
import { pageCsp } from '../../platform/http/security-headers.ts';
import {
  hasValidPass,
  passCookie,
  passGate,
  placeCookie,
  queueRuns,
  queueStatus,
  visitorCookie,
  type Gate,
  type QueuedEvent,
} from '../queue/queue.service.ts';
import { queuePage } from './queue.view.ts';

/** Checkout starts allowed per client address and per event, per minute. */
export const CHECKOUTS_PER_IP = 30;
export const CHECKOUTS_PER_EVENT = 6000;
/** Running-total quotes with a code allowed per client address, per minute. */
export const QUOTES_PER_IP = 120;

const params = {
  type: 'object',
  required: ['account', 'event'],
  properties: {
    account: { type: 'string', maxLength: 100 },
    event: { type: 'string', maxLength: 100 },
    audience: { type: 'string', maxLength: 100 },
    portal: { type: 'string', maxLength: 100 },
  },
} as const;
const query = { type: 'object', properties: { currency: { type: 'string', maxLength: 10 }, ...langQuery } } as const;
const formBody = { type: 'object', additionalProperties: { type: 'string', maxLength: 5000 }, maxProperties: 400 } as const;
const htmlResponses = {
  200: { type: 'string' },
  303: { type: 'null' },
  404: { type: 'string' },
  409: { type: 'string' },
  422: { type: 'string' },
  429: { type: 'string' },
};

type Params = { account: string; event: string; audience?: string; portal?: string };

/**
 * The event page in its parts: the document up to the end of the page's content, the page's
 * script, and the rest.
 */
interface Pieces {
  head: string;
  tail: string;
  salesOpen: boolean;
  /** the page draws a seat map: its script comes with the running total's */
  seated: boolean;
}

/**
 * The event page as shared between responses: encoded once and sent as these same bytes to
 * every visitor of the same second, with its policy (its script is allowed by hash, so no
 * response needs bytes of its own).
 */
interface SharedPage {
  bytes: Buffer;
  csp: string;
}

/** The policy for a page with this script (see shopScriptHashes); two pages share one string. */
const cspFor = (() => {
  const made = new Map<string, string>();
  return (hashes: readonly string[]) => {
    const key = hashes.join(' ');
    const csp = made.get(key) ?? pageCsp({ hashes });
    made.set(key, csp);
    return csp;
  };
})();

function encodePage(pieces: Pieces): SharedPage {
  return { bytes: Buffer.from(pieces.head + shopScript(pieces).value + pieces.tail), csp: cspFor(shopScriptHashes(pieces)) };
}

const FIELD_OF_CODE: Record<string, string> = {
  invalid_code: 'code',
  email_required: 'email',
  invalid_items: 'items',
  sold_out: 'items',
  seat_unavailable: 'items',
};

/** The buyer's shop: the event page, its audience pages and portals, and the browser checkout. */
export async function shopRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const via = (p: Params) => ({ ...(p.audience ? { audience: p.audience } : {}), ...(p.portal ? { portal: p.portal } : {}) });
  const pathOf = (p: Params) =>
    `/e/${encodeURIComponent(p.account)}/${encodeURIComponent(p.event)}${p.audience ? `/a/${encodeURIComponent(p.audience)}` : ''}${p.portal ? `/p/${encodeURIComponent(p.portal)}` : ''}`;

  async function render(
    reply: FastifyReply,
    shop: ShopData,
    p: Params,
    loc: Locale,
    form: Form,
    fields: Record<string, string[]>,
    message: string | null,
    status = 200,
  ) {
    const page = encodePage(await pageHtml(shop, p, loc, form, fields, message));
    return sendPage(reply.header('content-security-policy', page.csp), page.bytes, { status });
  }

  async function pageHtml(
    shop: ShopData,
    p: Params,
    loc: Locale,
    form: Form,
    fields: Record<string, string[]>,
    message: string | null,
  ): Promise<Pieces> {
    // the theme changes only by the console or an import: reused like the catalogue
    const theme = await cacheOf<PageTheme>(ctx.db, 'page-theme', ctx.config.catalogueCacheMs).get(String(shop.account.id), () =>
      loadPageTheme(ctx.db, shop.account.id),
    );
    const body = shopPage({
      data: shop,
      action: `${pathOf(p)}/checkout`,
      csrf: await csrfToken(ctx, `checkout:${shop.event.id}`),
      form,
      fields,
      message,
      loc,
      path: pathOf(p),
      waitlist: {
        action: `/e/${encodeURIComponent(p.account)}/${encodeURIComponent(p.event)}/waiting-list`,
        csrf: await csrfToken(ctx, `waitlist:${shop.event.id}`),
      },
    });
    const [before, after] = theme.shell(
      shop.event.name,
      frameOf(loc, pathOf(p), { currency: shop.event.currencies.length > 1 ? shop.currency : undefined }),
    );
    return { head: before + body.value, tail: after, salesOpen: shop.salesOpen, seated: shop.seatMap !== null };
  }

  const eventPath = (p: Params) => `/e/${encodeURIComponent(p.account)}/${encodeURIComponent(p.event)}`;
  const cookiesOf = (request: FastifyRequest, eventId: number) => ({
    visitor: readCookie(request, visitorCookie(eventId)),
    pass: readCookie(request, passCookie(eventId)),
  });
  /** The queue's cookies for this event's pages (the event page, its audiences and portals, the checkout). */
  const setQueueCookies = (reply: FastifyReply, p: Params, eventId: number, gate: Gate) => {
    const path = eventPath(p);
    if ('visitor' in gate && gate.visitor)
      addCookie(reply, ctx.config.baseUrl, visitorCookie(eventId), gate.visitor, { path, maxAgeSeconds: 86_400 });
    if (gate.kind === 'waiting' && gate.placeToken)
      addCookie(reply, ctx.config.baseUrl, placeCookie(eventId), gate.placeToken, { path, maxAgeSeconds: 86_400 });
    if (gate.kind === 'admitted')
      addCookie(reply, ctx.config.baseUrl, passCookie(eventId), gate.pass, {
        path,
        maxAgeSeconds: Math.max(1, Math.round((gate.expires.getTime() - ctx.clock.now().getTime()) / 1000)),
      });
  };

  const show = async (
    request: FastifyRequest<{ Params: Params; Querystring: { currency?: string; lang?: string } }>,
    reply: FastifyReply,
  ) => {
    const p = request.params;
    const { event } = await loadShopCatalogue(ctx, p.account, p.event, via(p));
    const loc = pageLocale(request, event.locale);
    // an on-sale queue in front of the page: the queue page until this browser's turn
    const gate = await passGate(ctx, event as QueuedEvent, cookiesOf(request, event.id));
    setQueueCookies(reply, p, event.id, gate);
    if (gate.kind === 'waiting') {
      const theme = await loadPageTheme(ctx.db, event.account_id);
      const body = queuePage({
        event: event.name,
        timezone: event.timezone,
        start: gate.start,
        place: gate.place,
        ahead: gate.ahead,
        waitSeconds: gate.waitSeconds,
        statusUrl: `${eventPath(p)}/queue.json`,
        nonce: request.cspNonce,
        loc,
      });
      void reply.header('cache-control', 'no-store');
      return sendPage(reply, theme.wrap(body.value, loc.m.queueTitle(event.name), frameOf(loc, pathOf(p))));
    }
    const currency = shopCurrency(event, request.query.currency);
    // The page as a whole (stock hints included) is reused for catalogueCacheMs: under a flash
    // sale every visitor of the same second gets one rendering. The checkout itself always
    // counts stock afresh, so a hint a second old can never sell a seat that is gone.
    const key = [p.account, p.event, p.audience ?? '', p.portal ?? '', currency, loc.tag].join('\u0000');
    // kept encoded: a hit is written as it is, without turning 12 KB of text into UTF-8 again
    const shared = await cacheOf<SharedPage>(ctx.db, 'event-page', ctx.config.catalogueCacheMs, 32 * 1024 * 1024).get(
      key,
      async () => encodePage(await pageHtml(await loadShop(ctx, p.account, p.event, via(p), currency), p, loc, {}, {}, null)),
    );
    return sendPage(reply.header('content-security-policy', shared.csp), shared.bytes);
  };

  const submit = async (request: FastifyRequest<{ Params: Params; Body: Form }>, reply: FastifyReply) => {
    const form = (request.body ?? {}) as Form;
    const shop = await loadShop(ctx, request.params.account, request.params.event, via(request.params), form.currency);
    await verifyCsrf(ctx, request, `checkout:${shop.event.id}`, form.csrf);
    const loc = negotiate({ choice: form.lang, acceptLanguage: request.headers['accept-language'], fallback: shop.event.locale });
    // while an on-sale queue runs, only a browser holding its own pass checks out
    const { visitor, pass } = cookiesOf(request, shop.event.id);
    if (queueRuns(shop.event as QueuedEvent, ctx.clock.now()) && !(await hasValidPass(ctx, shop.event.id, visitor, pass)))
      throw new AppError('forbidden', 'queue_pass_required', loc.m.passNeeded);
    try {
      await limitAction(ctx, `checkout:ip:${request.ip}`, CHECKOUTS_PER_IP);
      await limitAction(ctx, `checkout:event:${shop.event.id}`, CHECKOUTS_PER_EVENT);
      const result = await checkout(ctx, shop, form, loc);
      return reply
        .code(303)
        .header('location', result.paid ? `/o/${result.secret}` : `/pay/${result.secret}`)
        .send();
    } catch (err) {
      if (!(err instanceof AppError) || err.kind === 'internal') throw err;
      const fresh = await loadShop(ctx, request.params.account, request.params.event, via(request.params), form.currency);
      const said = loc.m.checkoutError(err.code, err.message);
      const fields = err.fields ?? (FIELD_OF_CODE[err.code] ? { [FIELD_OF_CODE[err.code]!]: [said] } : {});
      if (err.kind === 'rate_limited' && typeof err.extra?.retry_after === 'number')
        void reply.header('retry-after', String(err.extra.retry_after));
      const status = err.kind === 'conflict' ? 409 : err.kind === 'rate_limited' ? 429 : 422;
      return render(reply, fresh, request.params, loc, form, fields, err.fields ? null : said, status);
    }
  };

  // the queue page's poll: its place and wait, never admitting anyone by itself
  app.get<{ Params: Params }>(
    '/e/:account/:event/queue.json',
    {
      schema: {
        tags: ['pages'],
        summary: "A queued browser's place in the event's on-sale queue (its visitor cookie)",
        params,
        response: {
          200: {
            type: 'object',
            required: ['state'],
            properties: {
              state: { type: 'string', enum: ['open', 'unknown', 'before_start', 'waiting', 'admitted'] },
              place: { type: 'integer' },
              ahead: { type: 'integer' },
              wait_seconds: { type: 'integer' },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const { event } = await loadShopCatalogue(ctx, request.params.account, request.params.event, {});
      const { placeToken, ...status } = (await queueStatus(
        ctx,
        event as QueuedEvent,
        readCookie(request, visitorCookie(event.id)),
        readCookie(request, placeCookie(event.id)),
      )) as Awaited<ReturnType<typeof queueStatus>> & { placeToken?: string };
      if (placeToken)
        addCookie(reply, ctx.config.baseUrl, placeCookie(event.id), placeToken, {
          path: eventPath(request.params),
          maxAgeSeconds: 86_400,
        });
      return reply.header('cache-control', 'no-store').send(status);
    },
  );

  // the seat map's states while the page is open: one character a seat, in plan order
  app.get<{ Params: Params }>(
    '/e/:account/:event/seats.json',
    {
      schema: {
        tags: ['pages'],
        summary:
          "The states of a seated event's seats, one character each in plan order (a available, h held, s sold, b blocked)",
        params,
        response: {
          200: {
            type: 'object',
            required: ['version', 'codes'],
            properties: { version: { type: 'string' }, codes: { type: 'string' } },
          },
        },
      },
    },
    async (request, reply) => {
      const { event } = await loadShopCatalogue(ctx, request.params.account, request.params.event, {});
      return reply.header('cache-control', 'no-store').send(await seatCodes(ctx, event.id));
    },
  );

  // the running total with a typed code: priced by the checkout's own code, nothing written
  const quoteRoute = (url: string) =>
    app.post<{ Params: Params; Body: Form }>(
      url,
      {
        config: { forms: true },
        schema: {
          tags: ['pages'],
          summary:
            "The event page's running total with a discount code: the basket priced as the checkout would, nothing written",
          params,
          body: formBody,
          response: {
            200: {
              type: 'object',
              required: ['state'],
              properties: {
                state: { type: 'string', enum: ['priced', 'empty', 'refused'] },
                total_cents: { type: 'integer' },
                discount_cents: { type: 'integer' },
                message: { type: 'string' },
              },
            },
          },
        },
      },
      async (request, reply) => {
        const form = (request.body ?? {}) as Form;
        const shop = await loadShop(ctx, request.params.account, request.params.event, via(request.params), form.currency);
        const loc = negotiate({
          choice: form.lang,
          acceptLanguage: request.headers['accept-language'],
          fallback: shop.event.locale,
        });
        // codes are guessable one by one here as at the checkout: the same per-address budget
        await limitAction(ctx, `quote:ip:${request.ip}`, QUOTES_PER_IP);
        void reply.header('cache-control', 'no-store');
        try {
          const q = shop.salesOpen ? await quote(ctx, shop, form, loc) : null;
          if (!q) return { state: 'empty' };
          return { state: 'priced', total_cents: q.total_cents, discount_cents: q.discount_cents };
        } catch (err) {
          if (!(err instanceof AppError) || err.kind === 'internal') throw err;
          return { state: 'refused', message: loc.m.checkoutError(err.code, err.message) };
        }
      },
    );

  for (const suffix of ['', '/a/:audience', '/p/:portal']) {
    const url = `/e/:account/:event${suffix}`;
    quoteRoute(`${url}/quote`);
    app.get(
      url,
      {
        config: { html: true },
        schema: {
          tags: ['pages'],
          summary: 'Event shop page',
          params,
          querystring: query,
          produces: ['text/html'],
          response: htmlResponses,
        },
      },
      show,
    );
    app.post(
      `${url}/checkout`,
      {
        config: { html: true },
        schema: {
          tags: ['pages'],
          summary: 'Start a browser checkout (form post)',
          params,
          body: formBody,
          produces: ['text/html'],
          response: htmlResponses,
        },
      },
      submit,
    );
  }
}
