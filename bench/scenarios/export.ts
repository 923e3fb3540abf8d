import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmt, ROOT } from '../lib.ts';
import type { ScenarioContext } from './context.ts';

// the child's peak resident memory, printed as it exits (Linux reports maxRSS in kB)
const PEAK = `data:text/javascript,process.on("exit",()=>process.stderr.write("maxrss "+process.resourceUsage().maxRSS+"\\n"))`;

/**
 * `admit export` of the bench account with the big event's million orders (a tenth with
 * --quick), as an operator runs it: its own process, the production build, a file. Its time and
 * peak memory, against pg_dump of the whole bench database in the same run.
 */
export async function exportScenario(c: ScenarioContext): Promise<void> {
  const { url, bigOrders, seedBig, add } = c;
  await seedBig();
  const out = path.join(os.tmpdir(), `admit-bench-export-${process.pid}.json`);
  try {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', PEAK, 'bin/admit.mjs', 'export', '--account', 'bench', '--out', out], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url, NODE_ENV: 'production', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const code = await new Promise<number>((r) => child.once('exit', (c) => r(c ?? 1)));
    const seconds = (performance.now() - t0) / 1000;
    if (code !== 0) throw new Error(`admit export failed: ${stderr}`);
    const peakMb = Number(/maxrss (\d+)/.exec(stderr)?.[1] ?? 0) / 1024;
    const orders = Number(/: (\d+) orders/.exec(stderr)?.[1] ?? 0);
    const size = fs.statSync(out).size;
    const d0 = performance.now();
    const dump = spawnSync('pg_dump', ['-Fc', '-Z', '0', '-f', `${out}.dump`, url], { stdio: 'ignore' });
    const dumpSeconds = (performance.now() - d0) / 1000;
    add({
      scenario: `admit export, ${fmt(orders)} orders`,
      figure: 'seconds',
      admit: seconds,
      baseline: dump.status === 0 ? dumpSeconds : 0,
      baselineName: 'pg_dump of the whole bench database',
      note: `peak RSS ${fmt(peakMb)} MB; ${fmt(size / 1e6)} MB written; ${fmt(orders / seconds)} orders/s (seeded ${fmt(bigOrders)})`,
    });
  } finally {
    fs.rmSync(out, { force: true });
    fs.rmSync(`${out}.dump`, { force: true });
  }
}
