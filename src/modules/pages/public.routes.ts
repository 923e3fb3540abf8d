import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { notFound } from '../../platform/errors.ts';
import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { Db } from '../../platform/db/database.ts';
import type { EventVenue } from '../../platform/db/schema.ts';
import { findAccountBySlug } from '../accounts/accounts.repo.ts';
import { calendarFileName, calendarOf } from '../events/calendar.ts';
import { findEventBySlug } from '../events/events.repo.ts';
import type { Locale } from '../i18n/i18n.ts';
import { frameOf, langQuery, languageSwitch, pageLocale, sendPage } from './page-language.ts';
import { buildPageTheme, loadPageTheme } from '../themes/page-theme.service.ts';
import { deriveThemeSettings } from '../themes/theme-colors.ts';

/**
 * The public pages around the shop: `/` (what this server is: the console, the API docs, the
 * upcoming events), `/e/{account}` (an account's upcoming events in its theme) and the event's
 * calendar file `/e/{account}/{event}/calendar.ics`.
 */

const LIST_LIMIT = 100;

interface Upcoming {
  slug: string;
  name: string;
  starts_at: Date;
  timezone: string;
  venue: EventVenue | null;
  account_slug: string;
  account_name: string;
}

/** Events not yet over (their end, or their start when they have none, is still ahead), soonest first. */
function upcoming(db: Db, now: Date, accountId: number | null): Promise<Upcoming[]> {
  let q = db
    .selectFrom('events as e')
    .innerJoin('accounts as a', 'a.id', 'e.account_id')
    .select(['e.slug', 'e.name', 'e.starts_at', 'e.timezone', 'e.venue', 'a.slug as account_slug', 'a.name as account_name'])
    .where(sql<boolean>`coalesce(e.ends_at, e.starts_at) >= ${now}`)
    .orderBy('e.starts_at')
    .orderBy('e.id')
    .limit(LIST_LIMIT);
  if (accountId !== null) q = q.where('e.account_id', '=', accountId);
  return q.execute() as Promise<Upcoming[]>;
}

const LIST_CSS = raw(`<style>
.admit-events{list-style:none;padding:0;margin:1rem 0;display:grid;gap:.75rem}
.admit-events li{border:1px solid color-mix(in srgb,var(--admit-text-color-muted) 45%,transparent);border-radius:var(--admit-card-radius);padding:.85rem 1rem}
.admit-events a{font-weight:600;font-size:1.1rem}
.admit-events p{margin:.25rem 0 0}
.admit-links{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;padding:0;list-style:none}
</style>`);

function eventList(events: Upcoming[], loc: Locale, showAccount: boolean): SafeHtml {
  if (!events.length) return html`<p>${loc.m.noUpcomingEvents}</p>`;
  return html`<ul class="admit-events">
    ${events.map(
      (e) => html`<li>
        <a href="/e/${encodeURIComponent(e.account_slug)}/${encodeURIComponent(e.slug)}">${e.name}</a>
        <p class="muted">
          <time datetime="${new Date(e.starts_at).toISOString()}">${loc.dateTime(e.starts_at, e.timezone)}</time>${e.venue ? html` · ${e.venue.name}` : ''}${showAccount ? html` · ${e.account_name}` : ''}
        </p>
      </li>`,
    )}
  </ul>`;
}

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
      const events = await upcoming(ctx.db, ctx.clock.now(), null);
      const loc = pageLocale(request, null);
      const { m } = loc;
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
      const body = html`${LIST_CSS}${languageSwitch(loc, '/')}
        <h1>${m.ticketsOnServer}</h1>
        <ul class="admit-links">
          <li><a href="/console">${m.organiserConsole}</a></li>
          <li><a href="/docs">${m.apiDocs}</a></li>
        </ul>
        <h2>${m.upcomingEvents}</h2>
        ${eventList(events, loc, true)}`;
      return sendPage(reply, theme.wrap(body.value, 'admit', frameOf(loc)), { cache: 'no-cache' });
    },
  );

  app.get<{ Params: { account: string } }>(
    '/e/:account',
    { config: { html: true }, schema: htmlSchema("An account's upcoming events", accountParams) },
    async (request, reply) => {
      const account = await findAccountBySlug(ctx.db, request.params.account);
      if (!account) throw notFound('This page does not exist');
      const [events, theme] = await Promise.all([
        upcoming(ctx.db, ctx.clock.now(), account.id),
        loadPageTheme(ctx.db, account.id),
      ]);
      const loc = pageLocale(request, theme.locale);
      const body = html`${LIST_CSS}${languageSwitch(loc, `/e/${encodeURIComponent(account.slug)}`)}
        <h1>${account.name}</h1>
        <h2>${loc.m.upcomingEvents}</h2>
        ${eventList(events, loc, false)}`;
      return sendPage(reply, theme.wrap(body.value, account.name, frameOf(loc)), { cache: 'no-cache' });
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
      const account = await findAccountBySlug(ctx.db, request.params.account);
      const event = account ? await findEventBySlug(ctx.db, account.id, request.params.event) : undefined;
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
