import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { csrfToken } from '../../platform/http/csrf.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { randomSecret } from '../../platform/secrets.ts';
import type { Locale } from '../i18n/i18n.ts';
import { buyerBase, listInvoices } from '../invoices/invoices.service.ts';
import type { OrderDocument } from '../orders/order-document.repo.ts';
import { selfServiceRights } from '../orders/self-service.ts';
import { cancelQuote } from '../refunds/self-cancel.service.ts';
import { ticketsWithPrices } from '../refunds/refund-scope.repo.ts';
import { loadPageTheme } from '../themes/page-theme.service.ts';
import { invoiceRequestForm, type InvoiceRequestView } from './invoice-request.view.ts';
import { invoiceLinks, walletButtons } from './order.view.ts';
import { walletLinks } from '../wallet/wallet.service.ts';
import { frameOf, pageLocale, sendPage } from './page-language.ts';
import { orderPageBody, pageContent } from './pay.view.ts';
import { BUYER_FORM_CSS, cancelSection, SELF_SERVICE_CSS, ticketActions, type SelfServiceRefusal } from './self-service.view.ts';

/**
 * The order page (`/o/{secret}`) as one builder, shared by the routes that show it and by the
 * forms on it that answer a refusal with the page itself (422, their problems marked): the
 * tickets with their self-service forms, the receipt, the invoices, and "Need an invoice?".
 */

export type InvoiceRequestRefusal = Pick<InvoiceRequestView, 'form' | 'fields'>;

export interface OrderPageRefusals {
  invoice?: InvoiceRequestRefusal;
  selfService?: SelfServiceRefusal;
}

/** The order's page language: `?lang=`, the language it was bought in, the browser's, the event's. */
export const orderLocale = (request: FastifyRequest, doc: OrderDocument) =>
  pageLocale(request, doc.order.event_locale, doc.order.locale);

export const selfServiceCsrf = (ctx: AppContext, orderId: number) => csrfToken(ctx, `self:${orderId}`);

export async function orderPage(
  ctx: AppContext,
  doc: OrderDocument,
  loc: Locale,
  secret: string,
  refused: OrderPageRefusals = {},
): Promise<SafeHtml> {
  const invoices = await listInvoices(ctx, doc.order, buyerBase(ctx, secret));
  const invoicing = doc.order.invoicing;
  const askable = invoicing?.enabled && doc.order.status === 'paid' && !invoices.some((i) => i.kind === 'invoice' && !i.canceled);
  const request = askable
    ? invoiceRequestForm({
        action: `/o/${secret}/invoice`,
        csrf: await csrfToken(ctx, `invoice:${doc.order.id}`),
        loc,
        businessOnly: Boolean(invoicing.business_only),
        ...(refused.invoice ?? {}),
      })
    : html``;
  const rights = selfServiceRights(doc.order.self_service, doc.order, ctx.clock.now());
  let extras = {};
  if (rights.edit || rights.transfer || rights.cancel) {
    const view = {
      secret,
      csrf: await selfServiceCsrf(ctx, doc.order.id),
      loc,
      rights,
      timezone: doc.order.timezone,
      ...(refused.selfService ? { refused: refused.selfService } : {}),
    };
    let after = html``;
    if (rights.cancel) {
      const tickets = await ticketsWithPrices(ctx.db, doc.order.id);
      after = cancelSection(doc, view, (ref) => cancelQuote(doc, tickets, [ref], rights.feePercent), randomSecret(12));
    }
    extras = {
      card: (t: OrderDocument['tickets'][number]) => ticketActions(t, view),
      afterTickets: html`${BUYER_FORM_CSS}${SELF_SERVICE_CSS}${after}`,
    };
  }
  const notice = refused.selfService?.fields.form
    ? html`<p class="admit-status admit-error" role="alert">${refused.selfService.fields.form}</p>`
    : html``;
  const wallet =
    doc.order.status === 'paid' ? walletButtons(await walletLinks(ctx, doc.order.account_id, secret, doc.tickets), loc) : '';
  return html`${notice}${await orderPageBody(doc, loc, secret, extras)}${wallet}${invoiceLinks(invoices, loc)}${request}`;
}

/** A page about one order, in the account's theme; the language switch links to the page itself. */
export async function sendOrderPage(
  ctx: AppContext,
  reply: FastifyReply,
  doc: OrderDocument,
  loc: Locale,
  title: string,
  body: SafeHtml,
  status = 200,
) {
  const theme = await loadPageTheme(ctx.db, doc.order.account_id);
  // a form's answer (a confirmation, a refused form) links to the page the form is on
  const path = new URL(reply.request.url, 'http://x').pathname.replace(/\/confirm$/, '').replace(/^(\/o\/[^/]+)\/.+$/, '$1');
  return sendPage(reply, theme.wrap(pageContent(body).value, title, frameOf(loc, path)), { status });
}
