/**
 * Runs the whole test suite (`npm test`) with every connection going through PgBouncer in
 * transaction pooling mode, in front of a PostgreSQL of its own: what works through
 * a pooler that hands a connection to another client after every transaction. Part of
 * `npm run test:scale`; needs postgresql and pgbouncer from Debian.
 */
import { spawn } from 'node:child_process';
import { missingTools, startCluster } from './cluster.ts';

const missing = missingTools();
if (missing.length) {
  console.warn(`npm test through PgBouncer skipped: missing ${missing.join(', ')}`);
  process.exit(0);
}
const cluster = await startCluster({ instances: 0 });
let code: number;
try {
  console.log(`npm test through PgBouncer (transaction pooling): DATABASE_URL=${cluster.bouncerUrl}`);
  code = await new Promise<number>((resolve) => {
    const child = spawn('npm', ['test', '--', ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, DATABASE_URL: cluster.bouncerUrl },
    });
    child.once('exit', (c) => resolve(c ?? 1));
  });
} finally {
  await cluster.stop();
}
process.exit(code);
