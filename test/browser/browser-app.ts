import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { Config } from '../../src/platform/config.ts';
import type { AccountFile } from '../../src/modules/events/event-document.ts';
import { launchChromium } from './chromium.ts';
import { qrVideo } from './qr-video.ts';
import { freePort } from '../net.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { seedAccount } from '../factories.ts';

export type Seeded = Awaited<ReturnType<typeof seedAccount>>;

export interface BrowserApp {
  /** The app's address for the browser: `http://127.0.0.1:<port>` (also its configured base URL). */
  base: string;
  t: TestApp;
  /** What `seedAccount` returned for the account file (slug, tokens, events). */
  seeded: Seeded;
  /** The file's shared Chromium. */
  browser: Browser;
  /**
   * Another Chromium whose camera shows `text` as a QR code (Chromium's fake capture device fed a
   * .y4m): for the door scanner. Closed by `close()` if the test has not closed it.
   */
  launchCamera(text: string): Promise<Browser>;
  /** Closes the browsers, then the app and its database. */
  close(): Promise<void>;
}

export interface BrowserAppOptions {
  /** The account seeded before the app listens. */
  account: AccountFile;
  /** The test clock's start (createTestApp's default otherwise). */
  now?: string;
  config?: Partial<Config>;
}

/**
 * A browser test's start: an app on a free port of 127.0.0.1 (its base URL that address, so the
 * links it writes lead back to it), one account seeded, listening, and Chromium launched.
 */
export async function startBrowserApp(opts: BrowserAppOptions): Promise<BrowserApp> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ config: { baseUrl: base, ...opts.config }, ...(opts.now ? { now: opts.now } : {}) });
  const browsers: Browser[] = [];
  try {
    const seeded = await seedAccount(t.ctx, opts.account);
    await t.app.listen({ port, host: '127.0.0.1' });
    browsers.push(await launchChromium());
    return {
      base,
      t,
      seeded,
      browser: browsers[0]!,
      async launchCamera(text) {
        const y4m = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'admit-cam-')), 'qr.y4m');
        fs.writeFileSync(y4m, qrVideo(text));
        const camera = await launchChromium([
          '--use-fake-device-for-media-stream',
          '--use-fake-ui-for-media-stream',
          `--use-file-for-fake-video-capture=${y4m}`,
        ]);
        browsers.push(camera);
        return camera;
      },
      async close() {
        for (const b of browsers) await b.close();
        await t.close();
      },
    };
  } catch (err) {
    for (const b of browsers) await b.close();
    await t.close();
    throw err;
  }
}
