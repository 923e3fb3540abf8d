import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import type { Locale } from '../i18n/i18n.ts';
import type { OrderDocument } from './order-document.repo.ts';
import { seatText } from './seat-text.ts';

/**
 * Tickets to keep: one A4 page per valid ticket with its QR code, the event, when and where, the
 * ticket type, the attendee's name and the ticket and order references (pdfkit). Text is set in
 * Noto Sans (the @fontsource subsets: Latin, Latin Extended, Cyrillic, Greek, Vietnamese), each
 * run of characters in the first subset that has its glyphs, so names outside Latin-1 print too.
 */

const require = createRequire(import.meta.url);
const FONT_DIR = path.join(path.dirname(require.resolve('@fontsource/noto-sans/package.json')), 'files');
const SUBSETS = ['latin', 'latin-ext', 'cyrillic', 'cyrillic-ext', 'greek', 'greek-ext', 'vietnamese'];

export interface Face {
  name: string;
  data: Buffer;
  covers: (codePoint: number) => boolean;
}

let faces: { regular: Face[]; bold: Face[] } | null = null;

export function loadFaces(): { regular: Face[]; bold: Face[] } {
  if (faces) return faces;
  const probe = new PDFDocument({ autoFirstPage: false });
  const load = (weight: number): Face[] =>
    SUBSETS.map((subset) => {
      const name = `noto-${subset}-${weight}`;
      const data = fs.readFileSync(path.join(FONT_DIR, `noto-sans-${subset}-${weight}-normal.woff`));
      probe.registerFont(name, data);
      probe.font(name);
      // fontkit's font object: whether this subset has a glyph for a code point
      const font = (probe as unknown as { _font: { font: { hasGlyphForCodePoint(c: number): boolean } } })._font.font;
      return { name, data, covers: (c: number) => font.hasGlyphForCodePoint(c) };
    });
  faces = { regular: load(400), bold: load(700) };
  return faces;
}

/** Splits text into runs, each in the first face that has all of its characters. */
export function runs(text: string, set: Face[]): Array<{ face: Face; text: string }> {
  const out: Array<{ face: Face; text: string }> = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const face = cp < 0x80 ? set[0]! : (set.find((f) => f.covers(cp)) ?? set[0]!);
    const last = out.at(-1);
    if (last && (last.face === face || /\s/.test(ch))) last.text += ch;
    else out.push({ face, text: ch });
  }
  return out;
}

type Doc = InstanceType<typeof PDFDocument>;

function write(doc: Doc, text: string, opts: { size: number; bold?: boolean; color?: string; gap?: number }): void {
  const set = opts.bold ? loadFaces().bold : loadFaces().regular;
  const parts = runs(text, set);
  doc.fontSize(opts.size).fillColor(opts.color ?? '#111111');
  parts.forEach((p, i) => {
    doc.font(p.face.name).text(p.text, { continued: i < parts.length - 1, width: 300 });
  });
  if (opts.gap) doc.moveDown(opts.gap);
}

export interface TicketPdfInput {
  doc: OrderDocument;
  /** the language of the labels and the date */
  loc: Locale;
  /** the tickets to print (valid ones); one page each */
  refs?: string[];
}

/** The PDF of an order's valid tickets (all, or the ones named); null when there are none. */
export async function ticketsPdf({ doc: d, loc, refs }: TicketPdfInput): Promise<Buffer | null> {
  const tickets = d.tickets.filter((t) => t.status !== 'voided' && !t.transferred && (!refs || refs.includes(t.ref)));
  if (!tickets.length) return null;
  const { regular, bold } = loadFaces();
  const pdf = new PDFDocument({
    size: 'A4',
    margin: 56,
    autoFirstPage: false,
    lang: loc.tag,
    info: { Title: loc.m.pdfTitle(d.order.event_name, d.order.ref), Author: d.order.account_name, Creator: 'admit' },
  });
  for (const f of [...regular, ...bold]) pdf.registerFont(f.name, f.data);
  const chunks: Buffer[] = [];
  pdf.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    pdf.on('end', () => resolve());
    pdf.on('error', reject);
  });

  for (const t of tickets) {
    pdf.addPage();
    const top = 56;
    // the ticket: a bordered card on the upper half of the page, to print and cut or show on a phone
    pdf
      .roundedRect(40, top - 16, 515, 270, 10)
      .lineWidth(1)
      .strokeColor('#999999')
      .stroke();
    const qr = await QRCode.toBuffer(t.qr_token, { type: 'png', errorCorrectionLevel: 'M', margin: 1, width: 600 });
    pdf.image(qr, 365, top, { width: 170, height: 170 });
    pdf.x = 60;
    pdf.y = top;
    write(pdf, d.order.event_name, { size: 20, bold: true, gap: 0.3 });
    write(pdf, loc.dateTime(d.order.event_starts_at, d.order.timezone), { size: 11, gap: 0.2 });
    if (d.order.venue) {
      write(pdf, d.order.venue.name, { size: 11 });
      if (d.order.venue.address) write(pdf, d.order.venue.address, { size: 10, color: '#444444' });
      pdf.moveDown(0.3);
    }
    pdf.moveDown(0.6);
    write(pdf, t.type_name, { size: 14, bold: true, gap: 0.1 });
    if (t.seat) write(pdf, seatText(t.seat), { size: 14, bold: true, gap: 0.1 });
    write(pdf, t.attendee_name ?? d.order.name ?? '', { size: 13, gap: 0.8 });
    write(pdf, loc.m.pdfTicket, { size: 9, color: '#555555' });
    write(pdf, t.ref, { size: 13, bold: true, gap: 0.3 });
    write(pdf, loc.m.pdfOrder, { size: 9, color: '#555555' });
    write(pdf, d.order.ref, { size: 11, gap: 0.3 });
    pdf.x = 365;
    pdf.y = top + 182;
    write(pdf, loc.m.pdfShowCode, { size: 9, color: '#444444' });
    write(pdf, loc.m.pdfOnePerson, { size: 9, color: '#444444' });
    pdf.x = 60;
    pdf.y = top + 270;
    write(pdf, `${d.order.account_name} · ${d.order.event_name}`, { size: 8, color: '#777777' });
  }
  pdf.end();
  await done;
  return Buffer.concat(chunks);
}
