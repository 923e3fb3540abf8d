import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build, buildIsFresh } from '../bin/build.mjs';
import { createTestDatabase } from './db.ts';
import { freePort } from './net.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

describe('the compiled build (bin/build.mjs)', () => {
  it('rewrites relative imports to the compiled files and knows when a source changed, appeared or went', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admit-build-'));
    const src = path.join(dir, 'src');
    const out = path.join(dir, 'dist');
    fs.mkdirSync(path.join(src, 'sub'), { recursive: true });
    fs.writeFileSync(
      path.join(src, 'a.ts'),
      [
        "import { b } from './sub/b.ts';",
        "export { b as again } from './sub/b.ts';",
        'export const a: number = b + 1;',
        "export const later = () => import('./sub/b.ts');",
        "export const label = 'a .ts file';",
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(src, 'sub/b.ts'), 'export const b: number = 41;\n');
    fs.writeFileSync(path.join(src, 'sub/data.json'), '{"x":1}\n');
    fs.writeFileSync(path.join(src, 'sub/b.test.ts'), 'throw new Error("tests are not built");\n');
    // The stamp is the build's start in whole milliseconds, and a source saved in that millisecond
    // counts as newer (on purpose); sources written just before the build would make it look stale.
    const past = new Date(Date.now() - 60_000);
    for (const rel of ['a.ts', 'sub/b.ts', 'sub/data.json', 'sub/b.test.ts']) fs.utimesSync(path.join(src, rel), past, past);
    try {
      expect(buildIsFresh({ src, out })).toBe(false);
      expect((await build({ src, out })).files).toBe(3);
      const a = fs.readFileSync(path.join(out, 'src/a.js'), 'utf8');
      expect(a).toContain('"./sub/b.js"');
      expect(a).not.toMatch(/\.ts['"]/);
      expect(a).toContain('a .ts file');
      expect(fs.existsSync(path.join(out, 'src/sub/data.json'))).toBe(true);
      expect(fs.existsSync(path.join(out, 'src/sub/b.test.js'))).toBe(false);
      const mod = (await import(pathToFileURL(path.join(out, 'src/a.js')).href)) as { a: number; again: number };
      expect([mod.a, mod.again]).toEqual([42, 41]);
      expect(buildIsFresh({ src, out })).toBe(true);

      // a source saved after the build
      const later = new Date(Date.now() + 5_000);
      fs.utimesSync(path.join(src, 'sub/b.ts'), later, later);
      expect(buildIsFresh({ src, out })).toBe(false);
      await build({ src, out });
      fs.utimesSync(path.join(src, 'sub/b.ts'), new Date(Date.now() - 5_000), new Date(Date.now() - 5_000));
      expect(buildIsFresh({ src, out })).toBe(true);
      // a source that appears, then one that goes
      fs.writeFileSync(path.join(src, 'c.ts'), 'export {};\n');
      fs.utimesSync(path.join(src, 'c.ts'), past, past);
      expect(buildIsFresh({ src, out })).toBe(false);
      await build({ src, out });
      expect(buildIsFresh({ src, out })).toBe(true);
      fs.rmSync(path.join(src, 'c.ts'));
      expect(buildIsFresh({ src, out })).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // the whole server compiled beside the sources (node_modules is found from there), then served
  it('serves the compiled server', async () => {
    const out = path.join(ROOT, `.build-test-${process.pid}`);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'admit-build-data-'));
    const testDb = await createTestDatabase();
    const port = await freePort();
    let child: ReturnType<typeof spawn> | null = null;
    try {
      const { files } = await build({ out });
      expect(files).toBeGreaterThan(100);
      const cli = pathToFileURL(path.join(out, 'src/cli.js')).href;
      child = spawn(
        process.execPath,
        ['--input-type=module', '-e', `const { main } = await import(${JSON.stringify(cli)}); await main(['serve']);`],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            PORT: String(port),
            BASE_URL: `http://127.0.0.1:${port}`,
            ADMIT_DATA_DIR: dataDir,
            NODE_ENV: 'test',
            LOG_LEVEL: 'warn',
            ...(testDb.url ? { DATABASE_URL: testDb.url } : {}),
          },
        },
      );
      let output = '';
      child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
      const deadline = Date.now() + 90_000;
      while (!output.includes('admit is serving') && Date.now() < deadline) {
        if (child.exitCode !== null) throw new Error(`the compiled server exited: ${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(output).toContain('compiled build');
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      // a page: templates, the console's assets and the demo account all found from the compiled tree
      const signIn = await fetch(`${base}/console/sign-in`);
      expect(signIn.status).toBe(200);
      expect(await signIn.text()).toContain('<form');
      const scanner = await fetch(`${base}/console/assets/scanner.js`);
      expect(scanner.status).toBe(200);
      expect(await scanner.text()).toContain('function');
    } finally {
      child?.kill('SIGTERM');
      if (child && child.exitCode === null) await new Promise((r) => child!.once('exit', r));
      fs.rmSync(out, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
      await testDb.drop();
    }
  }, 120_000);
});
