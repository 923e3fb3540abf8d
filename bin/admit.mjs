#!/usr/bin/env node
// Runs the compiled build in dist/ when it is up to date with the sources (`npm run build`, which
// `npm start` runs first), else the TypeScript sources through tsx, so `npx admit` works on a
// fresh clone without a build step and never runs a stale build.
import { buildIsFresh } from './build.mjs';

let main;
if (process.env.ADMIT_TSX !== '1' && buildIsFresh()) {
  ({ main } = await import('../dist/src/cli.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli.ts'));
}
await main(process.argv.slice(2));
