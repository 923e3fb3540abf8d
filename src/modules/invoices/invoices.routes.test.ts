import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { pdfAttachments, pdfText } from '../../../test/pdf-reader.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { refundOrder } from '../refunds/refund-order.service.ts';
import { validateCii } from './cii-xsd.fixture.ts';
import { renderTicketMailWithInvoice } from './invoices.mail.ts';
import { documentXml } from './invoices.service.ts';

/** The documents: API listing and downloads, the buyer's downloads, the PDF and its XML, the mail. */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let b: Awaited<ReturnType<typeof seedAccount>>;
let ids: Record<string, number>;

const issuer = { name: 'Konferenz GmbH', address: 'Hauptstr. 1\n10115 Berlin', country: 'DE', vat_id: 'DE123456789' };

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'rechnung',
      account: {
        slug: 'rechnung',
        name: 'Docs',
        payments: { mode: 'sandbox' },
        invoicing: { enabled: true, issuer, number_prefix: 'RE' },
      },
      events: [
        makeEvent({
          slug: 'conf',
          ticket_types: [{ key: 'day', name: 'Day ticket', price: 1850, capacity: 50, tax_rate_bp: 1000 }],
          discount_codes: [{ code: 'TWENTY', percent_off: 20 }],
        }),
        makeEvent({ slug: 'other-event', ticket_types: [{ key: 'x', name: 'X', price: 1000, capacity: 5, tax_rate_bp: 700 }] }),
      ],
      limitedTo: ['other-event'],
    }),
  );
  b = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'stranger',
      account: {
        slug: 'stranger',
        name: 'S',
        payments: { mode: 'sandbox' },
        invoicing: { enabled: true, issuer, number_prefix: 'S' },
      },
    }),
  );
  const tt = await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).execute();
  ids = Object.fromEntries(tt.map((r) => [r.key, r.id]));
});
afterAll(() => t.close());

const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

/** A browser checkout with the code and an invoice address, paid on the pay page; its order page secret and ref. */
async function buy(lang: 'en' | 'de', form: Record<string, string> = {}) {
  const path = `/e/${a.slug}/conf`;
  const headers = { 'accept-language': lang };
  const page = await t.app.inject({ method: 'GET', url: path, headers });
  expect(page.body).toContain('name="inv_vat_id"');
  const res = await t.app.inject({
    method: 'POST',
    url: `${path}/checkout`,
    payload: new URLSearchParams({
      csrf: csrfOf(page.body),
      [`qty_${ids.day}`]: '1',
      code: 'TWENTY',
      name: 'Ada',
      email: 'ada@example.org',
      ...form,
    }).toString(),
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    remoteAddress: '10.7.7.7',
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
  const payPath = String(res.headers.location);
  const pay = await t.app.inject({ method: 'GET', url: payPath, headers });
  const paid = await t.app.inject({ method: 'POST', url: payPath, payload: { csrf: csrfOf(pay.body) }, headers });
  expect(paid.statusCode).toBe(303);
  const secret = String(paid.headers.location).split('/').pop()!;
  const row = await t.ctx.db
    .selectFrom('orders')
    .select(['id', 'ref', 'account_id'])
    .where('access_secret', '=', secret)
    .executeTakeFirstOrThrow();
  return { secret, ...row };
}

/** The PDF's embedded factur-x.xml, as a PDF reader finds it (the name is checked too). */
async function embedded(pdf: Buffer): Promise<string> {
  const files = await pdfAttachments(pdf);
  expect(Object.keys(files)).toEqual(['factur-x.xml']);
  return files['factur-x.xml']!.toString('utf8');
}

describe('invoice documents', () => {
  it('lists the invoice; its PDF is a PDF/A-3 with factur-x.xml inside, a PDF reader reads the figures, the XML validates', async () => {
    const o = await buy('en', {
      inv_company: 'Acme Ltd',
      inv_name: 'Ada Lovelace',
      inv_street: '1 Main St',
      inv_postcode: '1010',
      inv_city: 'Wien',
      inv_country: 'at',
    });
    const list = await t.call(a.tokens.orders, { method: 'GET', url: `/api/v1/orders/${o.ref}/invoices` });
    expect(list.statusCode).toBe(200);
    const [inv] = list.json().invoices;
    expect(inv).toMatchObject({ number: 'RE2026-1', kind: 'invoice', total_cents: 1480, vat_cents: 135 });
    expect(inv.pdf_url).toBe(`http://admit.test/api/v1/orders/${o.ref}/invoices/RE2026-1.pdf`);

    const pdf = await t.call(a.tokens.orders, { method: 'GET', url: new URL(inv.pdf_url).pathname });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const bytes = pdf.rawPayload;
    expect(bytes.subarray(0, 8).toString()).toBe('%PDF-1.7');
    const raw = bytes.toString('latin1');
    expect(raw).toContain('/AFRelationship /Alternative');
    expect(raw).toContain('(factur-x.xml)');
    expect(raw).toContain('<pdfaid:part>3</pdfaid:part>');
    expect(raw).toContain('<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>');
    const text = await pdfText(bytes);
    expect(text).toContain('Invoice');
    expect(text).toContain('RE2026-1');
    expect(text).toContain('Acme Ltd');
    expect(text).toMatch(/Total net\s+€13\.45/);
    expect(text).toMatch(/VAT 10% on €13\.45\s+€1\.35/);
    expect(text).toMatch(/Total\s+€14\.80/);
    expect(text).toContain('DE123456789');

    const xml = await t.call(a.tokens.orders, { method: 'GET', url: new URL(inv.xml_url).pathname });
    expect(xml.statusCode).toBe(200);
    await validateCii(xml.body);
    expect(xml.body).toContain('<ram:GrandTotalAmount>14.80</ram:GrandTotalAmount>');
    // the embedded file, as a PDF reader finds it is the same XML
    expect(await embedded(bytes)).toBe(xml.body);

    // the order page links it; the buyer's copy, by the order page's capability
    const orderPage = await t.app.inject({ method: 'GET', url: `/o/${o.secret}` });
    expect(orderPage.body).toContain(`<a href="/o/${o.secret}/invoices/RE2026-1.pdf">Invoice RE2026-1</a>`);
    const mine = await t.app.inject({ method: 'GET', url: `/o/${o.secret}/invoices/RE2026-1.pdf` });
    expect(mine.statusCode).toBe(200);
    expect(await pdfText(mine.rawPayload)).toMatch(/Total\s+€14\.80/);
    const mineXml = await t.app.inject({ method: 'GET', url: `/o/${o.secret}/invoices/RE2026-1.xml` });
    await validateCii(mineXml.body);
  });

  it('a German order gets a German invoice; a refund a credit note whose XML validates', async () => {
    const o = await buy('de', {
      inv_name: 'Max Muster',
      inv_street: 'Weg 2',
      inv_postcode: '80331',
      inv_city: 'München',
      inv_country: 'DE',
    });
    const [inv] = (await t.call(a.tokens.orders, { method: 'GET', url: `/api/v1/orders/${o.ref}/invoices` })).json().invoices;
    const pdf = await t.call(a.tokens.orders, { method: 'GET', url: new URL(inv.pdf_url).pathname });
    const text = await pdfText(pdf.rawPayload);
    expect(text).toContain('Rechnung');
    expect(text).toContain('München');
    expect(text).toMatch(/Gesamtbetrag\s+14,80\s€/);
    await refundOrder(t.ctx, { id: o.id, account_id: o.account_id, ref: o.ref }, { amount_cents: 500 });
    const docs = (await t.call(a.tokens.orders, { method: 'GET', url: `/api/v1/orders/${o.ref}/invoices` })).json().invoices;
    expect(
      docs.map((d: { kind: string; total_cents: number; corrects: string | null }) => [d.kind, d.total_cents, d.corrects]),
    ).toEqual([
      ['invoice', 1480, null],
      ['credit_note', 500, inv.number],
    ]);
    const xml = await t.call(a.tokens.orders, { method: 'GET', url: new URL(docs[1].xml_url).pathname });
    await validateCii(xml.body);
    expect(xml.body).toContain('<ram:TypeCode>381</ram:TypeCode>');
    const cpdf = await pdfText(
      (await t.call(a.tokens.orders, { method: 'GET', url: new URL(docs[1].pdf_url).pathname })).rawPayload,
    );
    expect(cpdf).toContain(`Korrigiert die Rechnung ${inv.number}`);
  });

  it('the ticket mail carries the invoice PDF', async () => {
    const o = await buy('en');
    const mail = await renderTicketMailWithInvoice(t.ctx, { order_id: o.id });
    const pdf = mail?.attachments?.find((x) => x.contentType === 'application/pdf' && x.filename.startsWith('RE2026-'));
    expect(pdf).toBeDefined();
    expect(await pdfText(pdf!.content as Buffer)).toMatch(/Total\s+€14\.80/);
  });

  it("refuses foreign tokens, tokens without orders.view, other events, wrong secrets and other orders' numbers", async () => {
    const o = await buy('en');
    const other = await buy('en');
    const [inv] = (await t.call(a.tokens.orders, { method: 'GET', url: `/api/v1/orders/${o.ref}/invoices` })).json().invoices;
    const path = `/api/v1/orders/${o.ref}/invoices`;
    expect((await t.call(b.tokens.all, { method: 'GET', url: path })).statusCode).toBe(404);
    expect((await t.call(b.tokens.all, { method: 'GET', url: `${path}/${inv.number}.pdf` })).statusCode).toBe(404);
    expect((await t.call(a.tokens.none, { method: 'GET', url: path })).statusCode).toBe(403);
    expect((await t.call(a.tokens.limited, { method: 'GET', url: path })).statusCode).toBe(404);
    expect((await t.call(null, { method: 'GET', url: path })).statusCode).toBe(401);
    // a number of another order, asked under this order's ref or secret
    const [theirs] = (await t.call(a.tokens.orders, { method: 'GET', url: `/api/v1/orders/${other.ref}/invoices` })).json()
      .invoices;
    expect((await t.call(a.tokens.orders, { method: 'GET', url: `${path}/${theirs.number}.xml` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/o/${o.secret}/invoices/${theirs.number}.pdf` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/o/${o.secret}x/invoices/${inv.number}.pdf` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/o/${o.secret}/invoices/RE2026-99999.pdf` })).statusCode).toBe(404);
  });

  it('the checkout refuses a VAT ID not of the country given, naming the field, and keeps the form', async () => {
    const path = `/e/${a.slug}/conf`;
    const page = await t.app.inject({ method: 'GET', url: path });
    const res = await t.app.inject({
      method: 'POST',
      url: `${path}/checkout`,
      payload: new URLSearchParams({
        csrf: csrfOf(page.body),
        [`qty_${ids.day}`]: '1',
        name: 'Ada',
        email: 'ada@example.org',
        inv_name: 'Ada',
        inv_street: 'S 1',
        inv_postcode: '1',
        inv_city: 'C',
        inv_country: 'FR',
        inv_vat_id: 'DE123456789',
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      remoteAddress: '10.7.7.8',
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('id="err-inv_vat_id"');
    expect(res.body).toContain('value="DE123456789"');
  });

  it('every document this file issued validates against the EN 16931 CII schema', async () => {
    const rows = await t.ctx.db.selectFrom('invoices').selectAll().execute();
    expect(rows.length).toBe(6);
    await validateCii(rows.map((r) => documentXml(r)));
  });
});
