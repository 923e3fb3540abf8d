import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../platform/errors.ts';
import { loadHolderDocument, type OrderDocument } from '../orders/order-document.repo.ts';
import { ticketApplePass, ticketGoogleLink } from '../wallet/wallet.service.ts';
import { loadBySecret } from './pay-order.ts';
import { pageLocale } from './page-language.ts';

/**
 * A ticket's wallet passes under a capability URL (contract section 15): the order's
 * (`/o/{secret}/tickets/{ref}…`) or, for a ticket passed on, its holder's (`/ticket/{secret}/…`).
 * The .pkpass for Apple Wallet, and a redirect to Google's save page with a freshly signed JWT.
 * 404 for an unknown secret, a ticket not of this order (or passed on), or an account without
 * that wallet's keys.
 */
const orderParams = {
  type: 'object',
  required: ['secret', 'ref'],
  properties: { secret: { type: 'string', maxLength: 128 }, ref: { type: 'string', maxLength: 64 } },
} as const;
const holderParams = {
  type: 'object',
  required: ['secret'],
  properties: { secret: { type: 'string', maxLength: 128 } },
} as const;

const appleSchema = (summary: string, params: object) => ({
  tags: ['pages'],
  summary,
  params,
  produces: ['application/vnd.apple.pkpass'],
  response: { 200: { type: 'string', format: 'binary' }, 404: { type: 'string' } },
});
const googleSchema = (summary: string, params: object) => ({
  tags: ['pages'],
  summary,
  params,
  response: { 303: { type: 'null' }, 404: { type: 'string' } },
});

export async function walletPageRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const lang = (request: FastifyRequest, doc: OrderDocument) =>
    pageLocale(request, doc.order.event_locale, doc.order.locale).lang;
  const loadHolder = async (secret: string) => {
    const doc = /^[A-Za-z0-9_-]{16,64}$/.test(secret) ? await loadHolderDocument(ctx.db, secret) : null;
    if (!doc?.tickets[0]) throw notFound('This link is not valid. It may have been mistyped or replaced by a newer one.');
    return { doc, ref: doc.tickets[0].ref };
  };

  const sendPass = async (reply: FastifyReply, request: FastifyRequest, doc: OrderDocument, ref: string) => {
    const pass = await ticketApplePass(ctx, doc, ref, lang(request, doc));
    if (!pass) throw notFound('There is no wallet pass here');
    return reply
      .header('cache-control', 'private, no-store')
      .header('content-disposition', `attachment; filename="ticket-${ref}.pkpass"`)
      .type('application/vnd.apple.pkpass')
      .send(pass);
  };
  const sendGoogle = async (reply: FastifyReply, request: FastifyRequest, doc: OrderDocument, ref: string) => {
    const link = await ticketGoogleLink(ctx, doc, ref, lang(request, doc));
    if (!link) throw notFound('There is no wallet pass here');
    // no Referer: Google need not learn the capability URL the button was on
    return reply
      .header('cache-control', 'private, no-store')
      .header('referrer-policy', 'no-referrer')
      .code(303)
      .header('location', link)
      .send();
  };

  app.get<{ Params: { secret: string; ref: string } }>(
    '/o/:secret/tickets/:ref.pkpass',
    { config: { html: true }, schema: appleSchema('One ticket as an Apple Wallet pass (capability URL)', orderParams) },
    async (request, reply) => sendPass(reply, request, await loadBySecret(ctx, request.params.secret), request.params.ref),
  );

  app.get<{ Params: { secret: string; ref: string } }>(
    '/o/:secret/tickets/:ref/google',
    {
      config: { html: true },
      schema: googleSchema("One ticket's Save to Google Wallet link (capability URL): 303 to Google", orderParams),
    },
    async (request, reply) => sendGoogle(reply, request, await loadBySecret(ctx, request.params.secret), request.params.ref),
  );

  app.get<{ Params: { secret: string } }>(
    '/ticket/:secret/ticket.pkpass',
    { config: { html: true }, schema: appleSchema('A transferred ticket as an Apple Wallet pass, for its holder', holderParams) },
    async (request, reply) => {
      const { doc, ref } = await loadHolder(request.params.secret);
      return sendPass(reply, request, doc, ref);
    },
  );

  app.get<{ Params: { secret: string } }>(
    '/ticket/:secret/ticket/google',
    {
      config: { html: true },
      schema: googleSchema("A transferred ticket's Save to Google Wallet link, for its holder", holderParams),
    },
    async (request, reply) => {
      const { doc, ref } = await loadHolder(request.params.secret);
      return sendGoogle(reply, request, doc, ref);
    },
  );
}
