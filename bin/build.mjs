#!/usr/bin/env node
// Compiles the server's TypeScript to plain JavaScript under dist/ (one file per source file, the
// same layout, relative imports pointing at .js), so `admit serve` runs without tsx. tsx keeps a
// loader thread with a compiler in every isolate (the main one and each job thread): about 50 MB
// of resident memory a server does not need once the sources are compiled. `bin/admit.mjs` runs
// dist/ only while it is newer than every source file, so a stale build is never run.
//
// Per file, not bundled: import.meta.url stays meaningful (assets, migrations and fonts are found
// beside the sources as before) and a stack trace names the module it came from.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
const OUT = path.join(ROOT, 'dist');

/** Every file under `dir`, relative to it, tests left out. */
function walk(dir, rel = '') {
  const out = [];
  for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.join(rel, entry.name);
    if (entry.isDirectory()) out.push(...walk(dir, r));
    else if (!/\.test\.ts$/.test(entry.name)) out.push(r);
  }
  return out;
}

// `from './x.ts'`, `import './x.ts'`, `import('./x.ts')`, `export ... from './x.ts'`
const RELATIVE_TS = /((?:\bfrom|\bimport)\s*\(?\s*)(['"])(\.{1,2}\/[^'"\n]*?)\.ts\2/g;

/** Compiles `src` (src/) into `out` (dist/), replacing what was there. */
export async function build({ src = SRC, out = OUT } = {}) {
  const started = Date.now();
  const tmp = `${out}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const files = walk(src);
  await Promise.all(
    files.map(async (rel) => {
      const from = path.join(src, rel);
      const to = path.join(tmp, 'src', rel.replace(/\.ts$/, '.js'));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      if (!rel.endsWith('.ts')) return fs.copyFileSync(from, to);
      const { code } = await transform(fs.readFileSync(from, 'utf8'), {
        loader: 'ts',
        format: 'esm',
        target: 'node20',
        sourcefile: from,
      });
      const out = code.replace(RELATIVE_TS, (_m, lead, q, spec) => `${lead}${q}${spec}.js${q}`);
      fs.writeFileSync(to, out);
    }),
  );
  // a job thread boots straight into the compiled module, without tsx
  const boot = path.join(tmp, 'src/platform/jobs/job-thread-boot.mjs');
  if (fs.existsSync(boot))
    fs.writeFileSync(boot, "// A job thread's entry in the compiled build.\nawait import('./job-thread-main.js');\n");
  // what the sources reach beside src/ (`../../../migrations`, `../demo`)
  for (const dir of ['migrations', 'demo']) fs.symlinkSync(path.relative(out, path.join(ROOT, dir)), path.join(tmp, dir));
  // stamped with the time the build began: a source saved while it ran counts as newer
  fs.writeFileSync(path.join(tmp, 'BUILD'), `${new Date(started).toISOString()} ${files.length} files\n`);
  fs.utimesSync(path.join(tmp, 'BUILD'), started / 1000, started / 1000);
  fs.rmSync(out, { recursive: true, force: true });
  fs.renameSync(tmp, out);
  return { files: files.length, ms: Date.now() - started };
}

/** True when the build exists and no source file changed, appeared or went since it was made. */
export function buildIsFresh({ src = SRC, out = OUT } = {}) {
  const stampFile = path.join(out, 'BUILD');
  let stamp;
  try {
    stamp = fs.statSync(stampFile).mtimeMs;
  } catch {
    return false;
  }
  const files = walk(src);
  const recorded = Number(/ (\d+) files/.exec(fs.readFileSync(stampFile, 'utf8'))?.[1]);
  if (recorded !== files.length) return false;
  return files.every((rel) => fs.statSync(path.join(src, rel)).mtimeMs <= stamp);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { files, ms } = await build();
  console.log(`built dist/ from ${files} files in ${ms} ms`);
}
