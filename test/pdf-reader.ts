import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/**
 * Reads a PDF back as a reader would, with Mozilla's pdf.js (a dev dependency), so the tests that
 * check a PDF's figures and attachments need nothing installed beside npm's packages.
 */
async function open(bytes: Uint8Array) {
  return getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, isEvalSupported: false, verbosity: 0 }).promise;
}

/**
 * The text of every page, a line per baseline (items sorted left to right and joined by a space),
 * pages separated by a form feed: close enough to `pdftotext -layout` for `/Total\s+€14\.80/`.
 */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const doc = await open(bytes);
  try {
    const pages: string[] = [];
    for (let p = 1; p <= doc.numPages; p++) {
      const content = await (await doc.getPage(p)).getTextContent();
      const lines = new Map<number, Array<{ x: number; s: string }>>();
      for (const item of content.items) {
        if (!('str' in item) || item.str.trim() === '') continue;
        const y = Math.round(item.transform[5] as number);
        const line = lines.get(y) ?? [];
        line.push({ x: item.transform[4] as number, s: item.str });
        lines.set(y, line);
      }
      pages.push(
        [...lines.entries()]
          .sort(([a], [b]) => b - a)
          .map(([, items]) =>
            items
              .sort((a, b) => a.x - b.x)
              .map((i) => i.s)
              .join(' '),
          )
          .join('\n'),
      );
    }
    return pages.join('\f');
  } finally {
    await doc.destroy();
  }
}

/** The files embedded in the PDF (its EmbeddedFiles name tree), by file name. */
export async function pdfAttachments(bytes: Uint8Array): Promise<Record<string, Buffer>> {
  const doc = await open(bytes);
  try {
    const found = ((await doc.getAttachments()) ?? {}) as Record<string, { filename: string; content: Uint8Array }>;
    return Object.fromEntries(Object.values(found).map((a) => [a.filename, Buffer.from(a.content)]));
  } finally {
    await doc.destroy();
  }
}
