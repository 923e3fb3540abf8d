import type { FastifyInstance } from 'fastify';
import { notFound } from '../../platform/errors.ts';
import type { EventVenue } from '../../platform/db/schema.ts';
import { findAccount } from '../accounts/accounts.service.ts';
import { calendarFileName, calendarOf } from '../events/calendar.ts';
import { findPublicEvent, upcomingEvents } from '../events/event-listings.service.ts';
import { frameOf, langQuery, pageLocale, sendPage } from './page-language.ts';
import { accountEventsBody, homeBody } from './public.view.ts';
import { buildPageTheme, loadPageTheme } from '../themes/page-theme.service.ts';
import { deriveThemeSettings } from '../themes/theme-colors.ts';

/**
 * The public pages around the shop: `/` (what this server is: the console, the API docs, the
 * upcoming events), `/e/{account}` (an account's upcoming events in its theme) and the event's
 * calendar file `/e/{account}/{event}/calendar.ics`.
 */

const htmlSchema = (summary: string, params?: object) => ({
  tags: ['pages'],
  summary,
  ...(params ? { params } : {}),
  querystring: { type: 'object', properties: { ...langQuery } },
  produces: ['text/html'],
  response: { 200: { type: 'string' }, 404: { type: 'string' } },
});

const accountParams = {
  type: 'object',
  required: ['account'],
  properties: { account: { type: 'string', maxLength: 100 } },
} as const;
const eventParams = {
  type: 'object',
  required: ['account', 'event'],
  properties: { account: { type: 'string', maxLength: 100 }, event: { type: 'string', maxLength: 100 } },
} as const;

export async function publicRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  app.get(
    '/',
    { config: { html: true }, schema: htmlSchema('This server: the console, the API docs, upcoming events') },
    async (request, reply) => {
      const events = await upcomingEvents(ctx, null);
      const loc = pageLocale(request, null);
      const theme = buildPageTheme({
        accountName: 'admit',
        settings: deriveThemeSettings({}),
        hidePoweredBy: true,
        logoUrl: null,
        bannerUrl: null,
        backgroundUrl: null,
        layout: null,
        components: {},
      });
      const body = homeBody(events, loc);
      return sendPage(reply, theme.wrap(body.value, 'admit', frameOf(loc, '/')), { cache: 'no-cache' });
    },
  );

  app.get<{ Params: { account: string } }>(
    '/e/:account',
    { config: { html: true }, schema: htmlSchema("An account's upcoming events", accountParams) },
    async (request, reply) => {
      const account = await findAccount(ctx, request.params.account);
      if (!account) throw notFound('This page does not exist');
      const [events, theme] = await Promise.all([upcomingEvents(ctx, account.id), loadPageTheme(ctx.db, account.id)]);
      const loc = pageLocale(request, theme.locale);
      const body = accountEventsBody(account, events, loc);
      return sendPage(reply, theme.wrap(body.value, account.name, frameOf(loc, `/e/${encodeURIComponent(account.slug)}`)), {
        cache: 'no-cache',
      });
    },
  );

  app.get<{ Params: { account: string; event: string } }>(
    '/e/:account/:event/calendar.ics',
    {
      config: { html: true },
      schema: {
        tags: ['pages'],
        summary: 'The event as an iCalendar file (add to calendar)',
        params: eventParams,
        produces: ['text/calendar'],
        response: { 200: { type: 'string' }, 404: { type: 'string' } },
      },
    },
    async (request, reply) => {
      const account = await findAccount(ctx, request.params.account);
      const event = account ? await findPublicEvent(ctx, account.id, request.params.event) : undefined;
      if (!account || !event) throw notFound('This event does not exist');
      const ics = calendarOf({
        baseUrl: ctx.config.baseUrl,
        accountSlug: account.slug,
        event: { ...event, venue: (event.venue as EventVenue | null) ?? null },
        now: ctx.clock.now(),
      });
      return reply
        .header('cache-control', 'no-cache')
        .header('content-disposition', `attachment; filename="${calendarFileName(event.slug)}"`)
        .type('text/calendar; charset=utf-8')
        .send(ics);
    },
  );
}
