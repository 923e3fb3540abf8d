import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test/db.ts';
import { openDatabase } from './platform/db/database.ts';
import { verifyPassword } from './modules/users/passwords.ts';

const run = promisify(execFile);

/** Runs the CLI with `input` on standard input. */
function runWithInput(
  args: string[],
  input: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('node', args, { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}
const BIN = path.resolve(import.meta.dirname, '../bin/admit.mjs');
const EXAMPLE = path.resolve(import.meta.dirname, '../test/fixtures/example-account.json');

describe('admit CLI', () => {
  // several CLI processes, each booting the embedded database: over a minute on a loaded machine
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

      // console people: create with a password from standard input, then set a new one
      const created = await runWithInput(
        [
          BIN,
          'user',
          'create',
          '--account',
          'harbour-hall',
          '--email',
          'Boss@Example.org',
          '--role',
          'owner',
          '--password-stdin',
        ],
        'first password here\n',
        env,
      );
      expect(created.stderr).toBe('');
      expect(created.stdout).toContain('Boss@Example.org is owner of harbour-hall');
      const weak = await runWithInput(
        [BIN, 'user', 'password', '--email', 'boss@example.org', '--password-stdin'],
        'short\n',
        env,
      );
      expect(weak.code).toBe(1);
      expect(weak.stderr).toContain('at least 10 characters');
      const changed = await runWithInput(
        [BIN, 'user', 'password', '--email', 'boss@example.org', '--password-stdin'],
        'second password here\n',
        env,
      );
      expect(changed.stdout).toContain('new password set for boss@example.org');
      const ghost = await runWithInput(
        [BIN, 'user', 'password', '--email', 'ghost@example.org', '--password-stdin'],
        'whatever it is 1\n',
        env,
      );
      expect(ghost.code).toBe(1);
      const badRole = await runWithInput(
        [BIN, 'user', 'create', '--account', 'harbour-hall', '--email', 'x@example.org', '--role', 'king', '--password-stdin'],
        'first password here\n',
        env,
      );
      expect(badRole.stderr).toContain('--role');
      const d = await openDatabase({ databaseUrl: testDb.url, dataDir: testDb.url ? null : dir });
      try {
        const user = await d.db
          .selectFrom('users')
          .select('password_hash')
          .where('email', '=', 'Boss@Example.org')
          .executeTakeFirstOrThrow();
        expect(await verifyPassword('second password here', user.password_hash)).toBe(true);
        expect(await verifyPassword('first password here', user.password_hash)).toBe(false);
      } finally {
        await d.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await testDb.drop();
    }
  }, 180_000);
});
