import type { FastifyInstance } from 'fastify';
import { notFound } from '../../platform/errors.ts';
import { ticketApplePass, ticketGoogleLink } from '../wallet/wallet.service.ts';
import { loadBySecret } from './pay-order.ts';
import { pageLocale } from './page-language.ts';

/**
 * A ticket's wallet passes under its order's capability URL (contract section 15): the .pkpass
 * for Apple Wallet, and a redirect to Google's save page with a freshly signed JWT. 404 for an
 * unknown secret, a ticket not of this order, or an account without that wallet's keys.
 */
const params = {
  type: 'object',
  required: ['secret', 'ref'],
  properties: { secret: { type: 'string', maxLength: 128 }, ref: { type: 'string', maxLength: 64 } },
} as const;

export async function walletPageRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  app.get<{ Params: { secret: string; ref: string } }>(
    '/o/:secret/tickets/:ref.pkpass',
    {
      config: { html: true },
      schema: {
        tags: ['pages'],
        summary: 'One ticket as an Apple Wallet pass (capability URL)',
        params,
        produces: ['application/vnd.apple.pkpass'],
        response: { 200: { type: 'string', format: 'binary' }, 404: { type: 'string' } },
      },
    },
    async (request, reply) => {
      const doc = await loadBySecret(ctx, request.params.secret);
      const loc = pageLocale(request, doc.order.event_locale, doc.order.locale);
      const pass = await ticketApplePass(ctx, doc, request.params.ref, loc.lang);
      if (!pass) throw notFound('There is no wallet pass here');
      return reply
        .header('cache-control', 'private, no-store')
        .header('content-disposition', `attachment; filename="ticket-${request.params.ref}.pkpass"`)
        .type('application/vnd.apple.pkpass')
        .send(pass);
    },
  );

  app.get<{ Params: { secret: string; ref: string } }>(
    '/o/:secret/tickets/:ref/google',
    {
      config: { html: true },
      schema: {
        tags: ['pages'],
        summary: "One ticket's Save to Google Wallet link (capability URL): 303 to Google",
        params,
        response: { 303: { type: 'null' }, 404: { type: 'string' } },
      },
    },
    async (request, reply) => {
      const doc = await loadBySecret(ctx, request.params.secret);
      const loc = pageLocale(request, doc.order.event_locale, doc.order.locale);
      const link = await ticketGoogleLink(ctx, doc, request.params.ref, loc.lang);
      if (!link) throw notFound('There is no wallet pass here');
      return reply
        .header('cache-control', 'private, no-store')
        .header('referrer-policy', 'no-referrer')
        .code(303)
        .header('location', link)
        .send();
    },
  );
}
