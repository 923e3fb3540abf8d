import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { InvoicingSettings } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { invoicingProblems, readInvoicing, saveInvoicing } from '../accounts/invoicing.service.ts';
import { documentPdf, documentXml, listInvoices, orderDocument } from '../invoices/invoices.service.ts';
import { readInvoiceAddress } from '../orders/invoice-address.ts';
import { reissueWithAddress } from '../orders/invoice-reissue.service.ts';
import type { Flash } from './console-layout.view.ts';
import { orderOnDesk } from '../orders/order-desk.service.ts';
import {
  checkForm,
  CONSOLE_FORM,
  CONSOLE_PAGE,
  principalOfViewer,
  requireRole,
  can,
  see,
  send,
  viewerOf,
  type Viewer,
} from './console.http.ts';
import type { FieldErrors } from './console-layout.view.ts';
import { eventBase } from './console.order-desk.view.ts';
import { invoicingBase, invoicingPage, orderInvoicesPage } from './console.invoices.view.ts';
import { t } from './console-lang.ts';
import type { ConsoleMessages } from '../i18n/i18n.ts';

type PO = { account: string; event: string; ref: string };

/** `invoicing.issuer.vat_id: ...` -> the form's `vat_id` */
function fieldsOf(problems: string[]): FieldErrors {
  const out: FieldErrors = {};
  for (const p of problems) {
    const [path = '', ...rest] = p.split(': ');
    const key = path.split('.').at(-1) === 'issuer' ? 'vat_id' : (path.split('.').at(-1) ?? 'name');
    (out[key] ??= []).push(rest.join(': '));
  }
  return out;
}

/** The account's invoicing settings (owners), and an order's invoices on the order desk. */
/** What the invoices page says after a form redirected back to it (`?done=`). */
const INVOICE_DONE: Record<string, (m: ConsoleMessages) => string> = {
  reissued: (m) => m.ivcDoneReissued,
  issued: (m) => m.ivcDoneIssued,
};
const invoiceDone = (done: string | undefined): Flash | null =>
  done && Object.hasOwn(INVOICE_DONE, done) ? { kind: 'ok', text: INVOICE_DONE[done]!(t()) } : null;

export async function consoleInvoicesRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  const owner = async (request: FastifyRequest<{ Params: { account: string } }>) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'invoicing.manage');
    return viewer;
  };

  app.get<{ Params: { account: string } }>('/console/a/:account/invoicing', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await owner(request);
    const settings = await readInvoicing(ctx.db, viewer.account!.id);
    const done = (request.query as Record<string, string>).done === 'saved';
    return send(reply, invoicingPage({ viewer, settings, flash: done ? { kind: 'ok', text: t().ivcSaved } : null }));
  });

  app.post<{ Params: { account: string } }>('/console/a/:account/invoicing', CONSOLE_FORM, async (request, reply) => {
    const viewer = await owner(request);
    const form = await checkForm(ctx, request, viewer);
    const f = (k: string) => (form[k] ?? '').trim();
    const settings: InvoicingSettings = {
      enabled: form.enabled === '1',
      issuer: {
        name: f('name'),
        address: f('address'),
        country: f('country').toUpperCase(),
        ...(f('vat_id') ? { vat_id: f('vat_id') } : {}),
        ...(f('tax_number') ? { tax_number: f('tax_number') } : {}),
      },
      number_prefix: f('number_prefix'),
      business_only: form.business_only === '1',
    };
    const problems = invoicingProblems(settings, 'invoicing');
    if (problems.length) {
      const settingsNow = await readInvoicing(ctx.db, viewer.account!.id);
      return send(reply, invoicingPage({ viewer, settings: settingsNow, form, errors: fieldsOf(problems), flash: null }), 422);
    }
    await saveInvoicing(ctx.db, viewer.account!.id, settings);
    return see(reply, `${invoicingBase(viewer)}?done=saved`);
  });

  const deskOrder = async (request: FastifyRequest<{ Params: PO }>, viewer: Viewer) =>
    orderOnDesk(ctx, principalOfViewer(viewer), request.params.event, request.params.ref);
  const listBase = (viewer: Viewer, p: PO) =>
    `${ctx.config.baseUrl}${eventBase(viewer, p.event)}/orders/${encodeURIComponent(p.ref)}/invoices`;

  const page = async (
    request: FastifyRequest<{ Params: PO }>,
    reply: FastifyReply,
    viewer: Viewer,
    opts: { errors?: FieldErrors; form?: Record<string, string>; status?: number } = {},
  ) => {
    const d = await deskOrder(request, viewer);
    const invoices = await listInvoices(ctx, d.order, listBase(viewer, request.params));
    return send(
      reply,
      orderInvoicesPage({
        viewer,
        event: request.params.event,
        ref: d.order.ref,
        invoices,
        address: d.order.invoice_address,
        write: can(viewer, 'orders.write'),
        paid: d.order.status === 'paid',
        flash: invoiceDone((request.query as Record<string, string>).done),
        ...opts,
      }),
      opts.status ?? 200,
    );
  };

  app.get<{ Params: PO }>('/console/a/:account/events/:event/orders/:ref/invoices', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.read');
    return page(request, reply, viewer);
  });

  for (const format of ['pdf', 'xml'] as const) {
    app.get<{ Params: PO & { number: string } }>(
      `/console/a/:account/events/:event/orders/:ref/invoices/:number.${format}`,
      CONSOLE_PAGE,
      async (request, reply) => {
        const viewer = await viewerOf(ctx, request, request.params.account);
        requireRole(viewer, 'orders.read');
        const d = await deskOrder(request, viewer);
        const row = await orderDocument(ctx.db, viewer.account!.id, d.order.id, request.params.number);
        return reply
          .header('cache-control', 'private, no-store')
          .header('content-disposition', `${format === 'pdf' ? 'inline' : 'attachment'}; filename="${row.number}.${format}"`)
          .type(format === 'pdf' ? 'application/pdf' : 'application/xml; charset=utf-8')
          .send(format === 'pdf' ? await documentPdf(row) : documentXml(row));
      },
    );
  }

  app.post<{ Params: PO }>(
    '/console/a/:account/events/:event/orders/:ref/invoices/reissue',
    CONSOLE_FORM,
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.write');
      const form = await checkForm(ctx, request, viewer);
      const d = await deskOrder(request, viewer);
      const read = readInvoiceAddress(form);
      if (!read.address) return page(request, reply, viewer, { errors: read.fields, form, status: 422 });
      let done: 'reissued' | 'issued';
      try {
        done = (await reissueWithAddress(ctx, d.order, read.address, viewer.session.email)).credit ? 'reissued' : 'issued';
      } catch (err) {
        if (err instanceof AppError && err.kind === 'conflict')
          return page(request, reply, viewer, { errors: { name: [err.message] }, form, status: 409 });
        throw err;
      }
      return see(
        reply,
        `${eventBase(viewer, request.params.event)}/orders/${encodeURIComponent(d.order.ref)}/invoices?done=${done}`,
      );
    },
  );
}
