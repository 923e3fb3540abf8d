#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so `npx admit` works on a fresh clone
// without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
await main(process.argv.slice(2));
