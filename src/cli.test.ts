import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test/db.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../bin/admit.mjs');
const EXAMPLE = path.resolve(import.meta.dirname, '../test/fixtures/example-account.json');

describe('admit CLI', () => {
  it('migrates, imports, refuses a second import, and creates a token', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admit-cli-'));
    const testDb = await createTestDatabase();
    const env = {
      ...process.env,
      BASE_URL: 'http://localhost:3000',
      ADMIT_DATA_DIR: dir,
      NODE_ENV: 'test',
      ...(testDb.url ? { DATABASE_URL: testDb.url } : {}),
    };
    try {
      const migrated = await run('node', [BIN, 'migrate'], { env }).catch((e: Error & { stderr: string }) => {
        throw new Error(e.stderr);
      });
      expect(migrated.stdout).toContain('migrations are up to date');
      const imported = await run('node', [BIN, 'import', EXAMPLE], { env });
      expect(imported.stdout).toContain('account harbour-hall, 1 events, 3 orders');
      const again = await run('node', [BIN, 'import', EXAMPLE], { env }).catch((e: { stderr: string; code: number }) => e);
      expect((again as { code: number }).code).toBe(1);
      expect((again as { stderr: string }).stderr).toMatch(/exists.*--replace/);
      const token = await run(
        'node',
        [
          BIN,
          'token',
          'create',
          '--account',
          'harbour-hall',
          '--name',
          'ci',
          '--capability',
          'events.view',
          '--capability',
          'refund',
          '--event',
          'autumn-jazz',
        ],
        { env },
      );
      expect(token.stdout.trim()).toMatch(/^adm_[A-Za-z0-9_-]{32,}$/);
      const bad = await run(
        'node',
        [BIN, 'token', 'create', '--account', 'harbour-hall', '--name', 'x', '--capability', 'root'],
        { env },
      ).catch((e: { stderr: string }) => e);
      expect((bad as { stderr: string }).stderr).toContain('unknown capability "root"');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await testDb.drop();
    }
  });
});
