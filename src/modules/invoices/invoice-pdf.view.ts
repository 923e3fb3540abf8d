import PDFDocument from 'pdfkit';
import type { Locale } from '../i18n/i18n.ts';
import { loadFaces, runs } from '../orders/ticket-pdf.view.ts';
import type { InvoiceContent } from '../orders/invoice-register.repo.ts';

/**
 * An invoice or credit note as an A4 PDF that is also a Factur-X / ZUGFeRD invoice (profile EN
 * 16931): PDF/A-3b, with the CII XML embedded as `factur-x.xml` (AFRelationship Alternative: the
 * XML is the same invoice in another form) and named in the XMP metadata as Factur-X asks.
 * Text in Noto Sans (embedded, as PDF/A requires), as on the ticket PDF.
 */

export interface InvoicePdfInput {
  number: string;
  kind: 'invoice' | 'credit_note';
  issued_at: Date | string;
  currency: string;
  content: InvoiceContent;
  xml: string;
  loc: Locale;
}

/** pdfkit writes Title and Author into the XMP unescaped: keep them free of markup characters. */
const plain = (s: string) => s.replace(/[<>&"]/g, ' ');

const FACTURX_XMP = `
<rdf:Description rdf:about="" xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#">
  <fx:DocumentType>INVOICE</fx:DocumentType>
  <fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>
  <fx:Version>1.0</fx:Version>
  <fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
  <pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">
    <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
    <pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>
    <pdfaSchema:prefix>fx</pdfaSchema:prefix>
    <pdfaSchema:property><rdf:Seq>
      <rdf:li rdf:parseType="Resource"><pdfaProperty:name>DocumentFileName</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>name of the embedded XML invoice file</pdfaProperty:description></rdf:li>
      <rdf:li rdf:parseType="Resource"><pdfaProperty:name>DocumentType</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>INVOICE</pdfaProperty:description></rdf:li>
      <rdf:li rdf:parseType="Resource"><pdfaProperty:name>Version</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>The actual version of the Factur-X XML schema</pdfaProperty:description></rdf:li>
      <rdf:li rdf:parseType="Resource"><pdfaProperty:name>ConformanceLevel</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>The conformance level of the embedded Factur-X data</pdfaProperty:description></rdf:li>
    </rdf:Seq></pdfaSchema:property>
  </rdf:li></rdf:Bag></pdfaExtension:schemas>
</rdf:Description>`;

export async function invoicePdf(input: InvoicePdfInput): Promise<Buffer> {
  const { content: c, loc } = input;
  const { m } = loc;
  const money = (n: number) => loc.money(n, input.currency);
  const date = (d: Date | string) =>
    new Intl.DateTimeFormat(loc.tag, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(d));
  const rate = (bp: number) => new Intl.NumberFormat(loc.tag, { maximumFractionDigits: 2 }).format(bp / 100);
  const title = input.kind === 'invoice' ? m.invoice : m.creditNote;
  const { regular, bold } = loadFaces();
  const pdf = new PDFDocument({
    size: 'A4',
    margin: 56,
    subset: 'PDF/A-3b',
    pdfVersion: '1.7',
    lang: loc.tag,
    info: {
      Title: plain(`${title} ${input.number}`),
      Author: plain(c.issuer.name),
      Creator: 'admit',
      CreationDate: new Date(input.issued_at),
    },
  });
  for (const f of [...regular, ...bold]) pdf.registerFont(f.name, f.data);
  pdf.appendXML(FACTURX_XMP);
  // `relationship` (the file spec's AFRelationship) is pdfkit's, missing from its type definitions
  const attachment = {
    name: 'factur-x.xml',
    type: 'text/xml',
    relationship: 'Alternative',
    description: 'Factur-X / ZUGFeRD invoice (EN 16931)',
    creationDate: new Date(input.issued_at),
    modifiedDate: new Date(input.issued_at),
  };
  pdf.file(Buffer.from(input.xml, 'utf8'), attachment as PDFKit.Mixins.PDFAttachmentOptions);
  const chunks: Buffer[] = [];
  pdf.on('data', (b: Buffer) => chunks.push(b));
  const done = new Promise<void>((resolve, reject) => {
    pdf.on('end', () => resolve());
    pdf.on('error', reject);
  });

  const text = (
    s: string,
    x: number,
    y: number,
    o: { size?: number; bold?: boolean; width?: number; align?: 'left' | 'right'; color?: string } = {},
  ) => {
    const parts = runs(s, o.bold ? bold : regular);
    pdf.fontSize(o.size ?? 10).fillColor(o.color ?? '#111111');
    pdf.x = x;
    pdf.y = y;
    parts.forEach((p, i) =>
      pdf
        .font(p.face.name)
        .text(p.text, { continued: i < parts.length - 1, width: o.width ?? 240, align: o.align ?? 'left', lineBreak: true }),
    );
    return pdf.y;
  };

  // issuer, top right; buyer, left
  let y = 56;
  y = text(c.issuer.name, 330, y, { bold: true, size: 11, width: 210 });
  for (const line of c.issuer.address.split(/\r?\n/)) y = text(line, 330, y, { width: 210, size: 9 });
  if (c.issuer.vat_id) y = text(m.vatIdOf(c.issuer.vat_id), 330, y, { width: 210, size: 9 });
  if (c.issuer.tax_number) y = text(m.taxNumberOf(c.issuer.tax_number), 330, y, { width: 210, size: 9 });

  let by = 150;
  by = text(m.billedTo, 56, by, { size: 8, color: '#555555' });
  const a = c.buyer.address;
  const buyerLines = a
    ? [a.company, a.name, a.street, `${a.postcode} ${a.city}`, a.country, a.vat_id ? m.vatIdOf(a.vat_id) : undefined]
    : [c.buyer.name ?? undefined, c.buyer.email ?? undefined];
  for (const l of buyerLines) if (l) by = text(l, 56, by, { size: 10 });

  y = Math.max(y, by) + 28;
  text(title, 56, y, { size: 18, bold: true, width: 480 });
  y += 30;
  const facts: Array<[string, string]> = [
    [input.kind === 'invoice' ? m.invoiceNo : m.creditNoteNo, input.number],
    [m.issueDate, date(input.issued_at)],
    [m.orderRef, c.order.ref],
  ];
  for (const [k, v] of facts) {
    text(k, 56, y, { size: 9, color: '#555555', width: 120 });
    text(v, 180, y, { size: 10, width: 300 });
    y += 15;
  }
  if (c.corrects) {
    y = text(m.corrects(c.corrects.number, date(c.corrects.issued_at)), 56, y + 4, { size: 10, width: 480 });
  }
  y = text(m.invoiceFor(c.order.event_name), 56, y + 10, { size: 10, width: 480, bold: true }) + 10;

  // the lines: what was charged for each, net, and its VAT rate
  const cols = { name: 56, qty: 300, rate: 350, discount: 400, net: 470 };
  const head = (yy: number) => {
    text(m.description, cols.name, yy, { size: 8, bold: true, width: 230 });
    text('#', cols.qty, yy, { size: 8, bold: true, width: 40, align: 'right' });
    text(m.vatRate, cols.rate, yy, { size: 8, bold: true, width: 45, align: 'right' });
    text(m.discount, cols.discount, yy, { size: 8, bold: true, width: 60, align: 'right' });
    text(m.netAmount, cols.net, yy, { size: 8, bold: true, width: 70, align: 'right' });
    pdf
      .moveTo(56, yy + 13)
      .lineTo(540, yy + 13)
      .lineWidth(0.5)
      .strokeColor('#999999')
      .stroke();
    return yy + 18;
  };
  y = head(y);
  for (const l of c.lines) {
    if (y > 740) {
      pdf.addPage();
      y = head(56);
    }
    const end = text(l.name, cols.name, y, { size: 9, width: 230 });
    text(String(l.quantity), cols.qty, y, { size: 9, width: 40, align: 'right' });
    text(`${rate(l.rate_bp)} %`, cols.rate, y, { size: 9, width: 45, align: 'right' });
    text(l.discount_cents ? `−${money(l.discount_cents)}` : '', cols.discount, y, { size: 9, width: 60, align: 'right' });
    text(money(l.net_cents), cols.net, y, { size: 9, width: 70, align: 'right' });
    y = Math.max(end, y + 12) + 4;
  }
  pdf.moveTo(56, y).lineTo(540, y).lineWidth(0.5).strokeColor('#999999').stroke();
  y += 8;

  // the totals: net, VAT per rate, total
  const row = (label: string, value: string, o: { bold?: boolean } = {}) => {
    text(label, 300, y, { size: 10, width: 160, align: 'right', ...o });
    text(value, 470, y, { size: 10, width: 70, align: 'right', ...o });
    y += 15;
  };
  row(m.totalNet, money(c.net_cents));
  for (const r of c.rates) row(m.vatOn(rate(r.rate_bp), money(r.net_cents)), money(r.vat_cents));
  row(m.totalVat, money(c.vat_cents));
  row(m.totalGross, money(c.total_cents), { bold: true });
  y += 10;
  if (c.reverse_charge) y = text(m.reverseCharge, 56, y, { size: 9, width: 484 }) + 6;
  if (input.kind === 'invoice') text(m.paidWithThanks, 56, y, { size: 9, width: 484, color: '#333333' });
  pdf.end();
  await done;
  return Buffer.concat(chunks);
}
