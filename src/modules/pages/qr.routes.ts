import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Locale } from '../i18n/i18n.ts';
import { notFound } from '../../platform/errors.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { frameOf, langQuery, pageLocale, sendPage } from './page-language.ts';
import { loadPageTheme } from '../themes/page-theme.service.ts';

const params = { type: 'object', required: ['qr'], properties: { qr: { type: 'string', maxLength: 128 } } } as const;
const schema = (summary: string) => ({
  tags: ['pages'],
  summary,
  params,
  querystring: { type: 'object', properties: { ...langQuery } },
  produces: ['text/html'],
  response: { 200: { type: 'string' }, 404: { type: 'string' } },
});

/**
 * What a phone camera opens when it reads a ticket's or an order's QR code (`qr_code_url`): the
 * event and whether the ticket is valid. No names, no order details: door staff check people in
 * with the scanning API, which takes the same token.
 */
export async function qrRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  async function page(reply: FastifyReply, accountId: number, title: string, body: SafeHtml, loc: Locale) {
    const theme = await loadPageTheme(ctx.db, accountId);
    return sendPage(reply, theme.wrap(body.value, title, frameOf(loc)));
  }

  app.get<{ Params: { qr: string } }>(
    '/t/:qr',
    { config: { html: true }, schema: schema('What a ticket QR code opens') },
    async (request, reply) => {
      const t = await ctx.db
        .selectFrom('tickets as t')
        .innerJoin('events as e', 'e.id', 't.event_id')
        .innerJoin('ticket_types as tt', 'tt.id', 't.ticket_type_id')
        .innerJoin('orders as o', 'o.id', 't.order_id')
        .select([
          't.ref',
          't.status',
          't.account_id',
          'o.status as order_status',
          'e.name as event',
          'e.starts_at',
          'e.timezone',
          'e.locale',
          'tt.name as type',
        ])
        .where('t.qr_token', '=', request.params.qr)
        .executeTakeFirst();
      if (!t) throw notFound('This QR code is not a ticket of ours');
      const valid = t.status === 'valid' && t.order_status === 'paid';
      const loc = pageLocale(request, t.locale);
      return page(
        reply,
        t.account_id,
        t.event,
        html`<h1>${t.event}</h1>
          <p class="muted">${loc.dateTime(t.starts_at, t.timezone)}</p>
          <p class="admit-status" role="status">${loc.m.qrTicketStatus(t.ref, t.type, valid)}</p>
          <p class="muted">${loc.m.qrShowAtDoor}</p>`,
        loc,
      );
    },
  );

  app.get<{ Params: { qr: string } }>(
    '/t/o/:qr',
    { config: { html: true }, schema: schema('What an order QR code opens') },
    async (request, reply) => {
      const o = await ctx.db
        .selectFrom('orders as o')
        .innerJoin('events as e', 'e.id', 'o.event_id')
        .select([
          'o.id',
          'o.ref',
          'o.status',
          'o.account_id',
          'o.locale',
          'e.name as event',
          'e.starts_at',
          'e.timezone',
          'e.locale as event_locale',
        ])
        .where('o.qr_token', '=', request.params.qr)
        .executeTakeFirst();
      if (!o) throw notFound('This QR code is not an order of ours');
      const tickets = await ctx.db.selectFrom('tickets').select('status').where('order_id', '=', o.id).execute();
      const valid = o.status === 'paid' ? tickets.filter((x) => x.status === 'valid').length : 0;
      const loc = pageLocale(request, o.event_locale, o.locale);
      return page(
        reply,
        o.account_id,
        o.event,
        html`<h1>${o.event}</h1>
          <p class="muted">${loc.dateTime(o.starts_at, o.timezone)}</p>
          <p class="admit-status" role="status">${loc.m.qrOrderStatus(o.ref, valid)}</p>`,
        loc,
      );
    },
  );
}
