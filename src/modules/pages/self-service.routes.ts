import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { verifyCsrf } from '../../platform/http/csrf.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import type { Locale } from '../i18n/i18n.ts';
import { renameAttendee, transferTicket } from '../orders/attendees.service.ts';
import { loadHolderDocument, type OrderDocument } from '../orders/order-document.repo.ts';
import { isEmail } from '../orders/orders.service.ts';
import { ticketsPdf } from '../orders/ticket-pdf.view.ts';
import { cancelTickets } from '../refunds/self-cancel.service.ts';
import { loadBySecret } from './pay-order.ts';
import { orderLocale, orderPage, sendOrderPage } from './order-page.ts';
import { holderPageBody } from './holder.view.ts';
import { html } from '../../platform/http/html.ts';
import { walletButtons } from './order.view.ts';
import { holderWalletLinks } from '../wallet/wallet.service.ts';
import { langQuery } from './page-language.ts';
import type { SelfServiceRefusal } from './self-service.view.ts';

/**
 * What a buyer changes on the order page (contract section 15): an attendee's name, a ticket
 * passed on, tickets cancelled; and the page of a ticket's new holder (`/ticket/{secret}`). Each form
 * carries the order's CSRF token; a refused one answers 422 with the order page, the form open
 * and its problems marked; a change the rules no longer allow answers the page with a notice.
 */

const htmlResponses = { 200: { type: 'string' }, 303: { type: 'null' }, 404: { type: 'string' }, 422: { type: 'string' } };

const ticketParams = {
  type: 'object',
  required: ['secret', 'ref'],
  properties: { secret: { type: 'string', maxLength: 128 }, ref: { type: 'string', maxLength: 64 } },
} as const;

const attendeeBody = {
  type: 'object',
  required: ['csrf'],
  properties: {
    csrf: { type: 'string', maxLength: 200 },
    name: { type: 'string', maxLength: 400 },
    email: { type: 'string', maxLength: 400 },
  },
  additionalProperties: false,
} as const;

const cancelBody = {
  type: 'object',
  required: ['csrf', 'key'],
  properties: {
    csrf: { type: 'string', maxLength: 200 },
    key: { type: 'string', minLength: 8, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' },
    tickets: {
      anyOf: [
        { type: 'string', maxLength: 64 },
        { type: 'array', maxItems: 500, items: { type: 'string', maxLength: 64 } },
      ],
    },
    confirm: { type: 'string', maxLength: 10 },
  },
  additionalProperties: false,
} as const;

type AttendeeForm = { csrf: string; name?: string; email?: string };
type CancelForm = { csrf: string; key: string; tickets?: string | string[]; confirm?: string };

/** The buyer's words for what is wrong with a name and email, field by field. */
function attendeeProblems(body: AttendeeForm, loc: Locale, emailRequired: boolean): Record<string, string> {
  const fields: Record<string, string> = {};
  const name = (body.name ?? '').trim();
  const email = (body.email ?? '').trim();
  if (!name || name.length > 200) fields.name = loc.m.giveName;
  if (email ? !isEmail(email) : emailRequired) fields.email = loc.m.giveEmail;
  return fields;
}

export async function selfServiceRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  const refuse = async (request: FastifyRequest, reply: FastifyReply, doc: OrderDocument, refused: SelfServiceRefusal) => {
    const loc = orderLocale(request, doc);
    const body = await orderPage(ctx, doc, loc, doc.order.access_secret, { selfService: refused });
    return sendOrderPage(ctx, reply, doc, loc, loc.m.yourOrderFor(doc.order.event_name), body, 422);
  };
  /** A rule that closed since the page was shown: the page again, with the reason on top. */
  const closedNotice = (
    request: FastifyRequest,
    reply: FastifyReply,
    doc: OrderDocument,
    form: SelfServiceRefusal['form'],
    ref?: string,
  ) =>
    refuse(request, reply, doc, {
      form,
      ...(ref ? { ref } : {}),
      values: {},
      fields: { form: orderLocale(request, doc).m.selfServiceClosed },
    });

  const back = (reply: FastifyReply, secret: string) => reply.code(303).header('location', `/o/${secret}`).send();

  const closedOr = async (err: unknown, onClosed: () => Promise<unknown>) => {
    if (err instanceof AppError && err.code === 'self_service_closed') return onClosed();
    throw err;
  };

  for (const form of ['attendee', 'transfer'] as const) {
    app.post<{ Params: { secret: string; ref: string }; Body: AttendeeForm }>(
      `/o/:secret/tickets/:ref/${form}`,
      {
        config: { html: true },
        schema: {
          tags: ['pages'],
          summary:
            form === 'attendee'
              ? "Name a ticket's attendee (capability URL)"
              : 'Pass a ticket on to someone else (capability URL)',
          params: ticketParams,
          body: attendeeBody,
          produces: ['text/html'],
          response: htmlResponses,
        },
      },
      async (request, reply) => {
        const doc = await loadBySecret(ctx, request.params.secret);
        await verifyCsrf(ctx, request, `self:${doc.order.id}`, request.body.csrf);
        const { ref } = request.params;
        if (!doc.tickets.some((t) => t.ref === ref)) throw notFound('No such ticket on this order');
        const loc = orderLocale(request, doc);
        const fields = attendeeProblems(request.body, loc, form === 'transfer');
        const values = { name: request.body.name ?? '', email: request.body.email ?? '' };
        if (Object.keys(fields).length) return refuse(request, reply, doc, { form, ref, values, fields });
        const input = { name: values.name, email: values.email };
        try {
          if (form === 'attendee') await renameAttendee(ctx, doc.order, ref, input, { kind: 'buyer' });
          else await transferTicket(ctx, doc.order, ref, input, { kind: 'buyer' });
        } catch (err) {
          return closedOr(err, () => closedNotice(request, reply, doc, form, ref));
        }
        return back(reply, request.params.secret);
      },
    );
  }

  app.post<{ Params: { secret: string }; Body: CancelForm }>(
    '/o/:secret/cancel',
    {
      config: { html: true },
      schema: {
        tags: ['pages'],
        summary: 'Cancel tickets of a paid order within the event’s rules; the refund less the fee goes back (capability URL)',
        params: { type: 'object', required: ['secret'], properties: { secret: { type: 'string', maxLength: 128 } } },
        body: cancelBody,
        produces: ['text/html'],
        response: htmlResponses,
      },
    },
    async (request, reply) => {
      const doc = await loadBySecret(ctx, request.params.secret);
      await verifyCsrf(ctx, request, `self:${doc.order.id}`, request.body.csrf);
      const loc = orderLocale(request, doc);
      const refs = [request.body.tickets ?? []].flat();
      const fields: Record<string, string> = {};
      if (!refs.length) fields.tickets = loc.m.chooseTickets;
      if (request.body.confirm !== 'yes') fields.confirm = loc.m.confirmCancel;
      if (Object.keys(fields).length) return refuse(request, reply, doc, { form: 'cancel', values: { tickets: refs }, fields });
      try {
        await cancelTickets(ctx, doc.order, refs, { kind: 'buyer' }, request.body.key);
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_refundable' && err.fields)
          return refuse(request, reply, doc, {
            form: 'cancel',
            values: { tickets: refs },
            fields: { tickets: loc.m.chooseTickets },
          });
        return closedOr(err, () => closedNotice(request, reply, doc, 'cancel'));
      }
      return back(reply, request.params.secret);
    },
  );

  const holderParams = {
    type: 'object',
    required: ['secret'],
    properties: { secret: { type: 'string', maxLength: 128 } },
  } as const;
  const loadHolder = async (secret: string) => {
    const doc = /^[A-Za-z0-9_-]{16,64}$/.test(secret) ? await loadHolderDocument(ctx.db, secret) : null;
    if (!doc || !doc.tickets.length)
      throw notFound('This link is not valid. It may have been mistyped or replaced by a newer one.');
    return doc;
  };

  app.get<{ Params: { secret: string } }>(
    '/ticket/:secret',
    {
      config: { html: true },
      schema: {
        tags: ['pages'],
        summary: "A transferred ticket's page, for its holder (capability URL)",
        params: holderParams,
        querystring: { type: 'object', properties: { ...langQuery } },
        produces: ['text/html'],
        response: { 200: { type: 'string' }, 404: { type: 'string' } },
      },
    },
    async (request, reply) => {
      const doc = await loadHolder(request.params.secret);
      const loc = orderLocale(request, doc);
      const wallet = await holderWalletLinks(ctx, doc.order.account_id, request.params.secret, doc.tickets[0]!);
      const body = html`${await holderPageBody(doc, loc, `/ticket/${request.params.secret}/ticket.pdf`)}${doc.order.status === 'paid' ? walletButtons(wallet, loc) : ''}`;
      return sendOrderPage(ctx, reply, doc, loc, loc.m.yourTicketFor(doc.order.event_name), body);
    },
  );

  app.get<{ Params: { secret: string } }>(
    '/ticket/:secret/ticket.pdf',
    {
      config: { html: true },
      schema: {
        tags: ['pages'],
        summary: 'A transferred ticket as a PDF, for its holder (capability URL)',
        params: holderParams,
        produces: ['application/pdf'],
        response: { 200: { type: 'string', format: 'binary' }, 404: { type: 'string' } },
      },
    },
    async (request, reply) => {
      const doc = await loadHolder(request.params.secret);
      const pdf = doc.order.status === 'paid' ? await ticketsPdf({ doc, loc: orderLocale(request, doc) }) : null;
      if (!pdf) throw notFound('There is no valid ticket to print here');
      return reply
        .header('cache-control', 'private, no-store')
        .header('content-disposition', `inline; filename="ticket-${doc.tickets[0]!.ref}.pdf"`)
        .type('application/pdf')
        .send(pdf);
    },
  );
}
