#!/usr/bin/env node
// Runs the compiled build in dist/ when it is up to date with the sources (`npm run build`, which
// `npm start` runs first), else the TypeScript sources through tsx, so `npx admit` works on a
// fresh clone without a build step and never runs a stale build.
import v8 from 'node:v8';
import { buildIsFresh } from './build.mjs';

// V8 grows the old generation by up to 4x what survived the last full collection when it
// allocates fast: under a flash sale, requests that wait in a batch are promoted and die old, and
// the heap reached 210 MB for some 50 MB live. A fixed factor of 1.25 holds it near what is live
// (docs/decisions.md, "Memory under 300 MB"); ADMIT_HEAP_GROWING_PERCENT=0 restores V8's own.
const growing = process.env.ADMIT_HEAP_GROWING_PERCENT || '25';
if (!/^\d{1,4}$/.test(growing)) {
  console.error(`ADMIT_HEAP_GROWING_PERCENT must be a whole number of percent (0: V8's own), not ${JSON.stringify(growing)}`);
  process.exit(1);
}
v8.setFlagsFromString(`--heap-growing-percent=${growing}`);

let main;
if (process.env.ADMIT_TSX !== '1' && buildIsFresh()) {
  ({ main } = await import('../dist/src/cli.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli.ts'));
}
await main(process.argv.slice(2));
