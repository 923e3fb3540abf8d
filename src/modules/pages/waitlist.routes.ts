import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { csrfToken, verifyCsrf } from '../../platform/http/csrf.ts';
import type { SafeHtml } from '../../platform/http/html.ts';
import { limitAction } from '../../platform/http/rate-limit.ts';
import { negotiate, type Locale } from '../i18n/i18n.ts';
import { loadPageTheme } from '../themes/page-theme.service.ts';
import { joinWaitingList, leaveInfo, leaveWaitingList } from '../waitlist/waitlist.service.ts';
import { frameOf, langQuery, pageLocale, sendPage } from './page-language.ts';
import { pageContent } from './pay.view.ts';
import { loadShop } from './shop.service.ts';
import { joinedBody, joinForms, leaveBody } from './waitlist.view.ts';

/** Joins allowed per client address per minute (each one mails). */
export const JOINS_PER_IP = 10;

const eventParams = {
  type: 'object',
  required: ['account', 'event'],
  properties: { account: { type: 'string', maxLength: 100 }, event: { type: 'string', maxLength: 100 } },
} as const;
const secretParams = {
  type: 'object',
  required: ['secret'],
  properties: { secret: { type: 'string', maxLength: 128 } },
} as const;
const formBody = { type: 'object', additionalProperties: { type: 'string', maxLength: 1000 }, maxProperties: 20 } as const;
const htmlResponses = {
  200: { type: 'string' },
  303: { type: 'null' },
  403: { type: 'string' },
  404: { type: 'string' },
  422: { type: 'string' },
  429: { type: 'string' },
};

type EventParams = { account: string; event: string };
type Form = Record<string, string | undefined>;

/** The waiting list's buyer pages: join from the event page, its confirmation, leave by the mailed link. */
export async function waitlistPageRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const eventPath = (p: EventParams) => `/e/${encodeURIComponent(p.account)}/${encodeURIComponent(p.event)}`;

  async function page(
    reply: FastifyReply,
    accountId: number,
    loc: Locale,
    title: string,
    body: SafeHtml,
    path: string,
    status = 200,
  ) {
    const theme = await loadPageTheme(ctx.db, accountId);
    return sendPage(reply, theme.wrap(pageContent(body).value, title, frameOf(loc, path)), { status });
  }

  app.post<{ Params: EventParams; Body: Form }>(
    '/e/:account/:event/waiting-list',
    {
      config: { html: true },
      schema: {
        tags: ['pages'],
        summary: 'Join the waiting list of a sold-out ticket type (form post)',
        params: eventParams,
        body: formBody,
        produces: ['text/html'],
        response: htmlResponses,
      },
    },
    async (request, reply) => {
      const p = request.params;
      const form = request.body ?? {};
      const shop = await loadShop(ctx, p.account, p.event, {});
      await verifyCsrf(ctx, request, `waitlist:${shop.event.id}`, form.csrf);
      const loc = negotiate({
        choice: form.lang,
        acceptLanguage: request.headers['accept-language'],
        fallback: shop.event.locale,
      });
      const typeId = Number(form.ticket_type_id);
      const type = shop.types.find((t) => t.id === typeId && t.waitlistMax !== null);
      // on sale again, or never a type of this event with a list: the event page says which
      if (!type || !shop.salesOpen) return reply.code(303).header('location', eventPath(p)).send();
      const quantity = Number(form.quantity);
      const joined = `${eventPath(p)}/waiting-list/joined?${new URLSearchParams({ t: String(type.id), q: String(quantity), lang: loc.tag })}`;
      try {
        await limitAction(ctx, `waitlist:ip:${request.ip}`, JOINS_PER_IP);
        if (!Number.isInteger(quantity) || quantity < 1 || quantity > type.waitlistMax!)
          throw new AppError('unprocessable', 'validation_failed', 'quantity', { fields: { quantity: [loc.m.checkFields] } });
        await joinWaitingList(ctx, shop.event, {
          ticket_type_id: type.id,
          quantity,
          email: form.email ?? '',
          name: form.name ?? '',
          locale: loc.tag,
        });
      } catch (err) {
        if (!(err instanceof AppError) || err.kind === 'internal') throw err;
        // already on the list: the same answer as joining, so the form tells nobody who waits
        if (err.code === 'already_waiting') return reply.code(303).header('location', joined).send();
        if (err.kind === 'rate_limited' && typeof err.extra?.retry_after === 'number')
          void reply.header('retry-after', String(err.extra.retry_after));
        // each field's problem in the buyer's words and language (the service's are the API's)
        const said: Record<string, string> = {
          name: loc.m.enterName,
          email: (form.email ?? '').trim() ? loc.m.notAnEmail : loc.m.enterEmail,
        };
        const fields = Object.fromEntries(
          Object.keys(err.fields ?? { name: [] }).map((k) => [k, [said[k] ?? loc.m.checkFields]]),
        );
        const body = joinForms({
          data: { types: [type], salesOpen: true },
          loc,
          action: request.url,
          csrf: await csrfToken(ctx, `waitlist:${shop.event.id}`),
          failed: { typeId: type.id, form: form as Record<string, string>, fields },
        });
        return page(reply, shop.account.id, loc, loc.m.waitlistJoin, body, eventPath(p), err.kind === 'rate_limited' ? 429 : 422);
      }
      return reply.code(303).header('location', joined).send();
    },
  );

  app.get<{ Params: EventParams; Querystring: { t?: string; q?: string; lang?: string } }>(
    '/e/:account/:event/waiting-list/joined',
    {
      config: { html: true },
      schema: {
        tags: ['pages'],
        summary: 'Confirmation after joining a waiting list',
        params: eventParams,
        querystring: {
          type: 'object',
          properties: { t: { type: 'string', maxLength: 20 }, q: { type: 'string', maxLength: 6 }, ...langQuery },
        },
        produces: ['text/html'],
        response: htmlResponses,
      },
    },
    async (request, reply) => {
      const p = request.params;
      const shop = await loadShop(ctx, p.account, p.event, {});
      const loc = pageLocale(request, shop.event.locale);
      const type = shop.types.find((t) => String(t.id) === request.query.t);
      const quantity = Math.max(1, Math.min(1000, Math.floor(Number(request.query.q)) || 1));
      const body = joinedBody(loc, { quantity, type: type?.name ?? '', event: shop.event.name, eventPath: eventPath(p) });
      return page(reply, shop.account.id, loc, loc.m.waitlistJoinedTitle, body, `${eventPath(p)}/waiting-list/joined`);
    },
  );

  app.get<{ Params: { secret: string }; Querystring: { lang?: string } }>(
    '/waiting-list/:secret',
    {
      config: { html: true },
      schema: {
        tags: ['pages'],
        summary: 'A place on a waiting list, with a button to leave it (capability URL from the mail)',
        params: secretParams,
        querystring: { type: 'object', properties: { ...langQuery } },
        produces: ['text/html'],
        response: htmlResponses,
      },
    },
    async (request, reply) => {
      const info = await leaveInfo(ctx, request.params.secret);
      const loc = pageLocale(request, info.eventLocale, info.locale);
      const path = `/waiting-list/${request.params.secret}`;
      const body = leaveBody(loc, info, await csrfToken(ctx, `waitlist-leave:${info.id}`), path);
      return page(reply, info.accountId, loc, loc.m.waitlistLeaveTitle, body, path);
    },
  );

  app.post<{ Params: { secret: string }; Body: Form }>(
    '/waiting-list/:secret',
    {
      config: { html: true },
      schema: {
        tags: ['pages'],
        summary: 'Leave a waiting list (form post from its page)',
        params: secretParams,
        body: formBody,
        produces: ['text/html'],
        response: htmlResponses,
      },
    },
    async (request, reply) => {
      const info = await leaveInfo(ctx, request.params.secret);
      await verifyCsrf(ctx, request, `waitlist-leave:${info.id}`, request.body?.csrf);
      await leaveWaitingList(ctx, request.params.secret);
      const lang = request.body?.lang ? `?lang=${encodeURIComponent(request.body.lang)}` : '';
      return reply.code(303).header('location', `/waiting-list/${request.params.secret}${lang}`).send();
    },
  );
}
