import type { FastifyInstance, FastifyReply } from 'fastify';
import { csrfToken, verifyCsrf } from '../../platform/http/csrf.ts';
import type { SafeHtml } from '../../platform/http/html.ts';
import { pageCsp } from '../../platform/http/security-headers.ts';
import type { Locale } from '../i18n/i18n.ts';
import type { OrderDocument } from '../orders/order-document.repo.ts';
import { ticketsPdf } from '../orders/ticket-pdf.view.ts';
import { confirmCard, loadBySecret, paySandbox, payState, startCardPayment } from './pay-order.ts';
import { cardPageBody, notPayable, payPageBody, paymentPendingBody } from './pay.view.ts';
import { shopRoutes } from './shop.routes.ts';
import { ADDRESS_KEYS } from './invoice-address.view.ts';
import { readAddressForm } from './address-form.ts';
import { requestInvoice } from '../orders/invoice-reissue.service.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { qrRoutes } from './qr.routes.ts';
import { publicRoutes } from './public.routes.ts';
import { waitlistPageRoutes } from './waitlist.routes.ts';
import { walletPageRoutes } from './wallet.routes.ts';
import { langQuery } from './page-language.ts';
import { orderLocale, orderPage as buildOrderPage, sendOrderPage, type InvoiceRequestRefusal } from './order-page.ts';
import { selfServiceRoutes } from './self-service.routes.ts';

const secretParams = {
  type: 'object',
  required: ['secret'],
  properties: { secret: { type: 'string', maxLength: 128 } },
} as const;

const pageSchema = (summary: string) => ({
  tags: ['pages'],
  summary,
  params: secretParams,
  querystring: { type: 'object', properties: { ...langQuery } },
  produces: ['text/html'],
  response: {
    200: { type: 'string' },
    303: { type: 'null' },
    404: { type: 'string' },
    409: { type: 'string' },
    422: { type: 'string' },
  },
});

const formBody = {
  type: 'object',
  properties: { csrf: { type: 'string', maxLength: 200 } },
} as const;

const render = (
  app: FastifyInstance,
  reply: FastifyReply,
  doc: OrderDocument,
  loc: Locale,
  title: string,
  body: SafeHtml,
  status = 200,
) => sendOrderPage(app.ctx, reply, doc, loc, title, body, status);

const localeOf = orderLocale;

/** The buyer's pay page and order page, reached only through their capability URLs. */
export async function pagesRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  await app.register(shopRoutes);
  await app.register(qrRoutes);
  await app.register(publicRoutes);
  await app.register(waitlistPageRoutes);
  await app.register(selfServiceRoutes);
  await app.register(walletPageRoutes);

  app.get<{ Params: { secret: string } }>(
    '/pay/:secret',
    { config: { html: true }, schema: pageSchema('Pay page (capability URL)') },
    async (request, reply) => {
      const doc = await loadBySecret(ctx, request.params.secret);
      const loc = localeOf(request, doc);
      const state = payState(ctx, doc);
      const body =
        state === 'payable'
          ? payPageBody(doc, loc, request.cspNonce, await csrfToken(ctx, `pay:${doc.order.id}`))
          : notPayable(doc, loc, state);
      return render(app, reply, doc, loc, loc.m.payFor(doc.order.event_name), body);
    },
  );

  app.post<{ Params: { secret: string }; Body: { csrf?: string } }>(
    '/pay/:secret',
    { config: { html: true }, schema: { ...pageSchema('Pay (sandbox) or open a card payment'), body: formBody } },
    async (request, reply) => {
      const doc = await loadBySecret(ctx, request.params.secret);
      await verifyCsrf(ctx, request, `pay:${doc.order.id}`, request.body?.csrf);
      const loc = localeOf(request, doc);
      const state = payState(ctx, doc);
      if (state !== 'payable')
        return render(app, reply, doc, loc, loc.m.notPayable, notPayable(doc, loc, state), state === 'paid' ? 409 : 422);
      if (doc.order.payments_mode === 'sandbox' || doc.order.payments_provider === 'sandbox') {
        await paySandbox(ctx, doc);
        return reply.code(303).header('location', `/o/${request.params.secret}`).send();
      }
      const intent = await startCardPayment(ctx, doc);
      const body = cardPageBody(doc, loc, intent.client_secret ?? '', await csrfToken(ctx, `pay:${doc.order.id}`));
      return render(
        app,
        reply.header(
          'content-security-policy',
          pageCsp(
            { nonce: request.cspNonce },
            {
              default: ['https://js.stripe.com', 'https://api.stripe.com'],
              script: ['https://js.stripe.com'],
            },
          ),
        ),
        doc,
        loc,
        loc.m.payByCard,
        body,
      );
    },
  );

  app.post<{ Params: { secret: string }; Body: { csrf?: string } }>(
    '/pay/:secret/confirm',
    { config: { html: true }, schema: { ...pageSchema('Record a card payment the browser confirmed'), body: formBody } },
    async (request, reply) => {
      const doc = await loadBySecret(ctx, request.params.secret);
      await verifyCsrf(ctx, request, `pay:${doc.order.id}`, request.body?.csrf);
      const outcome = await confirmCard(ctx, doc);
      const loc = localeOf(request, doc);
      if (outcome === 'pending')
        return render(app, reply, doc, loc, loc.m.paymentPending, paymentPendingBody(doc, loc, request.params.secret), 202);
      return reply.code(303).header('location', `/o/${request.params.secret}`).send();
    },
  );

  app.get<{ Params: { secret: string } }>(
    '/o/:secret',
    { config: { html: true }, schema: pageSchema('Order page with tickets (capability URL)') },
    async (request, reply) => {
      const doc = await loadBySecret(ctx, request.params.secret);
      const loc = localeOf(request, doc);
      return render(
        app,
        reply,
        doc,
        loc,
        loc.m.yourOrderFor(doc.order.event_name),
        await orderPage(doc, loc, request.params.secret),
      );
    },
  );

  const orderPage = (doc: OrderDocument, loc: Locale, secret: string, refused?: InvoiceRequestRefusal) =>
    buildOrderPage(ctx, doc, loc, secret, refused ? { invoice: refused } : {});

  app.post<{ Params: { secret: string }; Body: Record<string, string> }>(
    '/o/:secret/invoice',
    {
      config: { html: true },
      schema: {
        ...pageSchema('Ask for the invoice of a paid order that has none (capability URL)'),
        body: {
          type: 'object',
          properties: {
            csrf: { type: 'string', maxLength: 200 },
            ...Object.fromEntries(ADDRESS_KEYS.map((k) => [`inv_${k}`, { type: 'string', maxLength: 400 }])),
          },
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => {
      const doc = await loadBySecret(ctx, request.params.secret);
      await verifyCsrf(ctx, request, `invoice:${doc.order.id}`, request.body?.csrf);
      const loc = localeOf(request, doc);
      const business = Boolean(doc.order.invoicing?.business_only);
      const read = readAddressForm(request.body ?? {}, business ? 'required' : 'optional', loc.m);
      const back = () => reply.code(303).header('location', `/o/${request.params.secret}`).send();
      if (Object.keys(read.fields).length) {
        const body = await orderPage(doc, loc, request.params.secret, { form: request.body, fields: read.fields });
        return render(app, reply, doc, loc, loc.m.yourOrderFor(doc.order.event_name), body, 422);
      }
      try {
        await requestInvoice(ctx, doc.order, read.address, 'buyer');
      } catch (err) {
        // asked twice (a double click, a second tab): the invoice is there
        if (err instanceof AppError && err.code === 'already_invoiced') return back();
        throw err;
      }
      return back();
    },
  );

  const pdfSchema = (summary: string, withRef: boolean) => ({
    tags: ['pages'],
    summary,
    params: {
      type: 'object',
      required: withRef ? ['secret', 'ref'] : ['secret'],
      properties: { secret: { type: 'string', maxLength: 128 }, ...(withRef ? { ref: { type: 'string', maxLength: 64 } } : {}) },
    },
    produces: ['application/pdf'],
    response: { 200: { type: 'string', format: 'binary' }, 404: { type: 'string' } },
  });
  const sendPdf = async (reply: FastifyReply, doc: OrderDocument, loc: Locale, refs: string[] | undefined, filename: string) => {
    const pdf = doc.order.status === 'paid' ? await ticketsPdf({ doc, loc, ...(refs ? { refs } : {}) }) : null;
    if (!pdf) throw notFound('There is no valid ticket to print here');
    return reply
      .header('cache-control', 'private, no-store')
      .header('content-disposition', `inline; filename="${filename}"`)
      .type('application/pdf')
      .send(pdf);
  };
  app.get<{ Params: { secret: string } }>(
    '/o/:secret/tickets.pdf',
    { config: { html: true }, schema: pdfSchema("The order's valid tickets as one PDF (capability URL)", false) },
    async (request, reply) => {
      const doc = await loadBySecret(ctx, request.params.secret);
      return sendPdf(reply, doc, localeOf(request, doc), undefined, `tickets-${doc.order.ref}.pdf`);
    },
  );
  app.get<{ Params: { secret: string; ref: string } }>(
    '/o/:secret/tickets/:ref.pdf',
    { config: { html: true }, schema: pdfSchema('One ticket as a PDF (capability URL)', true) },
    async (request, reply) => {
      const doc = await loadBySecret(ctx, request.params.secret);
      return sendPdf(reply, doc, localeOf(request, doc), [request.params.ref], `ticket-${request.params.ref}.pdf`);
    },
  );
}
