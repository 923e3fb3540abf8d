import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const SHOTS = path.resolve(import.meta.dirname, '../../test-results/screenshots');

/**
 * Debian's Chromium, headless, with everything that would reach the network turned off (this
 * machine's network is closed and Chromium otherwise retries its own services).
 */
export async function launchChromium(): Promise<Browser> {
  fs.mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
