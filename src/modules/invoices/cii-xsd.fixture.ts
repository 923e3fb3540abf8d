import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Validates CII XML against the official EN 16931 CII schema (vendor/en16931) with xmllint
 * (libxml2-utils; .ci/run installs it). Throws with xmllint's complaint when the XML is not valid,
 * and when xmllint is missing: a test that cannot validate must not pass.
 */
const XSD = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../vendor/en16931/cii/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd',
);

export function validateCii(xml: string): void {
  try {
    execFileSync('xmllint', ['--noout', '--nonet', '--schema', XSD, '-'], { input: xml, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`CII XML does not validate against the EN 16931 schema: ${e.stderr?.toString() ?? e.message}`, {
      cause: err,
    });
  }
}
