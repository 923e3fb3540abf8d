import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Locale } from '../i18n/i18n.ts';
import type { SafeHtml } from '../../platform/http/html.ts';
import { orderOfQr, ticketOfQr } from '../orders/orders.service.ts';
import { frameOf, langQuery, pageLocale, sendPage } from './page-language.ts';
import { orderQrBody, ticketQrBody } from './qr.view.ts';
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
      const t = await ticketOfQr(ctx, request.params.qr);
      const loc = pageLocale(request, t.locale);
      return page(reply, t.account_id, t.event, ticketQrBody(t, loc), loc);
    },
  );

  app.get<{ Params: { qr: string } }>(
    '/t/o/:qr',
    { config: { html: true }, schema: schema('What an order QR code opens') },
    async (request, reply) => {
      const o = await orderOfQr(ctx, request.params.qr);
      const loc = pageLocale(request, o.event_locale, o.locale);
      return page(reply, o.account_id, o.event, orderQrBody(o, loc), loc);
    },
  );
}
