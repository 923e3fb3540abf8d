import type { FastifyInstance, FastifyReply } from 'fastify';
import { principalOf } from '../../platform/http/auth.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { loadVisibleOrder } from '../orders/orders.service.ts';
import { buyerDocument, documentPdf, documentXml, listInvoices, orderDocument } from './invoices.service.ts';

const listingSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['number', 'kind', 'issued_at', 'total_cents', 'pdf_url', 'xml_url'],
  properties: {
    number: { type: 'string', description: '{prefix}{year}-{sequence}, without gaps per account and year' },
    kind: { type: 'string', enum: ['invoice', 'credit_note'] },
    issued_at: { type: 'string', format: 'date-time' },
    total_cents: { type: 'integer', description: 'gross; a credit note: the amount it credits (positive)' },
    currency: { type: 'string' },
    vat_cents: { type: 'integer' },
    canceled: { type: 'boolean', description: 'an invoice replaced after a correction (its credit note cancels it)' },
    corrects: { type: ['string', 'null'], description: 'a credit note: the number of the invoice it corrects' },
    pdf_url: { type: 'string', description: 'A4 PDF/A-3 with the CII XML embedded as factur-x.xml (this API, same token)' },
    xml_url: { type: 'string', description: 'the EN 16931 CII XML (this API, same token)' },
  },
} as const;

const docParams = {
  type: 'object',
  required: ['ref', 'number'],
  properties: { ref: { type: 'string', maxLength: 64 }, number: { type: 'string', maxLength: 64 } },
} as const;

const FORMATS = { pdf: 'application/pdf', xml: 'application/xml; charset=utf-8' } as const;

async function send(reply: FastifyReply, row: Parameters<typeof documentPdf>[0], format: 'pdf' | 'xml') {
  const body = format === 'pdf' ? await documentPdf(row) : documentXml(row);
  return reply
    .header('cache-control', 'private, no-store')
    .header('content-disposition', `${format === 'pdf' ? 'inline' : 'attachment'}; filename="${row.number}.${format}"`)
    .type(FORMATS[format])
    .send(body);
}

/** The machine API's invoices of an order (contract section 14), behind `orders.view`. */
export async function invoicesApiRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { ref: string } }>(
    '/orders/:ref/invoices',
    {
      config: { capability: 'orders.view' },
      schema: {
        tags: ['orders'],
        summary: "The order's invoices and credit notes, oldest first",
        params: { type: 'object', required: ['ref'], properties: { ref: { type: 'string', maxLength: 64 } } },
        response: {
          200: {
            type: 'object',
            required: ['invoices'],
            additionalProperties: false,
            properties: { invoices: { type: 'array', items: listingSchema } },
          },
          ...errorResponses(401, 403, 404, 429, 500),
        },
      },
    },
    async (request) => {
      const order = await loadVisibleOrder(app.ctx, principalOf(request), request.params.ref);
      return { invoices: await listInvoices(app.ctx, order) };
    },
  );

  for (const format of ['pdf', 'xml'] as const) {
    app.get<{ Params: { ref: string; number: string } }>(
      `/orders/:ref/invoices/:number.${format}`,
      {
        config: { capability: 'orders.view' },
        schema: {
          tags: ['orders'],
          summary:
            format === 'pdf' ? 'An invoice or credit note as PDF (Factur-X)' : 'An invoice or credit note as EN 16931 CII XML',
          params: docParams,
          produces: [FORMATS[format]],
          response: { 200: { type: 'string', format: 'binary' }, ...errorResponses(401, 403, 404, 429, 500) },
        },
      },
      async (request, reply) => {
        const p = principalOf(request);
        const order = await loadVisibleOrder(app.ctx, p, request.params.ref);
        return send(reply, await orderDocument(app.ctx.db, p.accountId, order.id, request.params.number), format);
      },
    );
  }
}

/** The buyer's downloads, under the order page's capability URL. */
export async function invoiceDownloadRoutes(app: FastifyInstance): Promise<void> {
  for (const format of ['pdf', 'xml'] as const) {
    app.get<{ Params: { secret: string; number: string } }>(
      `/o/:secret/invoices/:number.${format}`,
      {
        config: { html: true },
        schema: {
          tags: ['pages'],
          summary: `An invoice or credit note of the order as ${format.toUpperCase()} (capability URL)`,
          params: {
            type: 'object',
            required: ['secret', 'number'],
            properties: { secret: { type: 'string', maxLength: 128 }, number: { type: 'string', maxLength: 64 } },
          },
          produces: [FORMATS[format]],
          response: { 200: { type: 'string', format: 'binary' }, 404: { type: 'string' } },
        },
      },
      async (request, reply) =>
        send(reply, await buyerDocument(app.ctx.db, request.params.secret, request.params.number), format),
    );
  }
}
