import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateXML } from 'xmllint-wasm';

/**
 * Validates CII XML against the official EN 16931 CII schema (vendor/en16931) with libxml2's
 * xmllint compiled to WebAssembly (xmllint-wasm, a dev dependency: nothing to install beside npm's
 * packages). Throws with xmllint's complaints when a document is not valid.
 */
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../vendor/en16931/cii/uncefact');
const MAIN = 'data/standard/CrossIndustryInvoice_100pD16B.xsd';

let schemaFiles: Array<{ fileName: string; contents: string }> | undefined;
function schemas() {
  // the main schema imports the others by relative paths (../../codelist/…): keep the tree
  schemaFiles ??= readdirSync(ROOT).flatMap((dir) =>
    readdirSync(path.join(ROOT, dir, 'standard'))
      .filter((f) => f.endsWith('.xsd'))
      .map((f) => ({ fileName: `${dir}/standard/${f}`, contents: readFileSync(path.join(ROOT, dir, 'standard', f), 'utf8') })),
  );
  return schemaFiles;
}

/** One call validates any number of documents (the schema is compiled once per call). */
export async function validateCii(xml: string | readonly string[]): Promise<void> {
  const docs = typeof xml === 'string' ? [xml] : xml;
  if (!docs.length) return;
  const all = schemas();
  const result = await validateXML({
    xml: docs.map((contents, i) => ({ fileName: `invoice-${i + 1}.xml`, contents })),
    schema: all.filter((f) => f.fileName === MAIN),
    preload: all.filter((f) => f.fileName !== MAIN),
  });
  if (!result.valid)
    throw new Error(
      `CII XML does not validate against the EN 16931 schema:\n${result.errors.map((e) => e.rawMessage).join('\n')}`,
    );
}
