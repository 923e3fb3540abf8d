import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError } from './platform/config.ts';
import { AppError } from './platform/errors.ts';
import { createRuntime, serve, type Runtime } from './server.ts';
import { importAccount } from './modules/import/import.service.ts';
import { exportAccount } from './modules/export/account-export.service.ts';
import { moveDatabase, MoveError } from './platform/db/move.ts';
import { createToken } from './modules/accounts/accounts.service.ts';
import { hashToken } from './platform/http/auth.ts';
import { setPassword } from './modules/users/credentials.service.ts';
import { addUser, findUserByEmail, ROLES } from './modules/users/users.service.ts';
import { verifyPassword } from './modules/users/passwords.ts';
import type { Role } from './platform/db/schema.ts';

const DEMO_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../demo/demo-account.json');

const USAGE = `admit: event ticketing service

Usage:
  admit serve [--import FILE ...] [--replace]   migrate, import account files, then serve
  admit import FILE ... [--replace]             migrate, then import account files
  admit export --account SLUG [--out FILE]      write the account as an account file (history
                                                included; tokens and people as hashes)
  admit move --to postgres://...                copy the embedded database into an empty PostgreSQL
                                                database (stop admit first); prints the DATABASE_URL
  admit migrate                                 apply database migrations
  admit token create --account SLUG --name NAME --capability C ... [--scope S ...] [--event SLUG ...]
                                                print a new API token (shown once)
  admit user create --account SLUG --email E --role owner|manager|door|viewer [--name N] --password-stdin
                                                a person who signs in to the console
  admit user password --email E --password-stdin
                                                set a new console password (ends their sessions)

Environment: PORT, HOST, BASE_URL, DATABASE_URL, ADMIT_DATA_DIR, SMTP_URL, MAIL_FROM, NODE_ENV,
ADMIT_RATE_LIMIT_PER_MIN (see README).`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function readJson(file: string): unknown {
  const text = fs.readFileSync(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('bad_request', 'invalid_account_file', `${file}: not valid JSON (${(err as Error).message})`);
  }
}

async function importFiles(runtime: Runtime, files: string[], replace: boolean): Promise<void> {
  for (const file of files) {
    const r = await importAccount(runtime.ctx, readJson(file), { replace });
    console.log(
      `imported ${file}: account ${r.account}, ${r.events} events, ${r.orders} orders${r.replaced ? ' (replaced)' : ''}`,
    );
  }
}

/**
 * Writes the export to FILE (or standard output) through a temporary file renamed at the end, so a
 * failed export leaves no half file behind; a progress line goes to standard error.
 */
async function exportToFile(account: string, out: string | undefined): Promise<void> {
  const runtime = await createRuntime({ config: loadConfig() });
  const tmp = out ? `${out}.partial-${process.pid}` : null;
  const stream = tmp ? fs.createWriteStream(tmp) : process.stdout;
  const write = (chunk: string) =>
    new Promise<void>((resolve, reject) => stream.write(chunk, (err) => (err ? reject(err) : resolve())));
  const tty = process.stderr.isTTY;
  try {
    const done = await exportAccount(runtime.ctx, account, write, (p) => {
      if (tty) process.stderr.write(`\rexported ${p.orders} of ${p.of} orders`);
    });
    if (tmp) {
      await new Promise<void>((resolve, reject) =>
        (stream as fs.WriteStream).end((err?: Error | null) => (err ? reject(err) : resolve())),
      );
      fs.renameSync(tmp, out!);
    }
    process.stderr.write(`${tty ? '\r' : ''}exported account ${account}: ${done.orders} orders${out ? ` to ${out}` : ''}\n`);
  } catch (err) {
    if (tmp) {
      (stream as fs.WriteStream).destroy();
      fs.rmSync(tmp, { force: true });
    }
    throw err;
  } finally {
    await runtime.close();
  }
}

interface DemoFile {
  account: { slug: string };
  tokens?: Array<{ secret: string; name: string }>;
  users?: Array<{ email: string; password: string; role: string }>;
  events?: Array<{ slug: string }>;
}

/** First start on an empty database (outside production): load the demo account. */
async function loadDemoIfEmpty(runtime: Runtime): Promise<void> {
  if (runtime.ctx.config.production || !fs.existsSync(DEMO_FILE)) return;
  const any = await runtime.ctx.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  if (!any) {
    await importAccount(runtime.ctx, readJson(DEMO_FILE));
    console.log('loaded the demo account from demo/demo-account.json');
  }
}

async function printDemo(runtime: Runtime): Promise<void> {
  if (runtime.ctx.config.production || !fs.existsSync(DEMO_FILE)) return;
  const demo = readJson(DEMO_FILE) as DemoFile;
  const token = demo.tokens?.[0];
  if (!token) return;
  const row = await runtime.ctx.db
    .selectFrom('api_tokens')
    .select('id')
    .where('token_hash', '=', hashToken(token.secret))
    .executeTakeFirst();
  if (!row) return;
  const base = runtime.ctx.config.baseUrl;
  console.log(`\nDemo account "${demo.account.slug}"`);
  console.log(`  API base URL: ${base}/api/v1`);
  console.log(`  API docs:     ${base}/docs`);
  for (const e of demo.events ?? []) console.log(`  Event page:   ${base}/e/${demo.account.slug}/${e.slug}`);
  console.log(`  Demo token (${token.name}), try: curl -H "Authorization: Bearer <token>" ${base}/api/v1/account`);
  console.log(token.secret);
  const owner = demo.users?.find((u) => u.role === 'owner');
  if (owner && (await verifyDemoPassword(runtime, owner.email, owner.password))) {
    console.log(`  Console:      ${base}/console  (sign in as the demo owner)`);
    console.log(`email: ${owner.email}`);
    console.log(`password: ${owner.password}`);
  }
  console.log('');
}

/** Only print the demo sign-in while it still works (nobody changed that password). */
async function verifyDemoPassword(runtime: Runtime, email: string, password: string): Promise<boolean> {
  const user = await findUserByEmail(runtime.ctx.db, email);
  return Boolean(user && (await verifyPassword(password, user.password_hash)));
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve': {
        const { values } = parseArgs({
          args: rest,
          options: { import: { type: 'string', multiple: true }, replace: { type: 'boolean' } },
        });
        const runtime = await createRuntime({ config: loadConfig() });
        if (values.import?.length) await importFiles(runtime, values.import, values.replace ?? false);
        await loadDemoIfEmpty(runtime);
        const server = await serve(runtime);
        // this module is cli.js when bin/admit.mjs runs the compiled build in dist/
        const from = import.meta.url.endsWith('.js') ? 'compiled build' : 'TypeScript sources through tsx';
        console.log(
          `admit is serving ${runtime.ctx.config.baseUrl} (${runtime.ctx.engine}${runtime.ctx.engine === 'pglite' ? ` in ${runtime.ctx.config.dataDir}` : ''}; ${from})`,
        );
        await printDemo(runtime);
        const shutdown = (signal: string) => {
          runtime.ctx.log.info({ signal }, 'draining');
          void server.stop().then(() => process.exit(0));
        };
        process.once('SIGTERM', () => shutdown('SIGTERM'));
        process.once('SIGINT', () => shutdown('SIGINT'));
        return;
      }
      case 'import': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: { replace: { type: 'boolean' } },
        });
        if (positionals.length === 0) throw new AppError('bad_request', 'bad_request', 'admit import needs at least one FILE');
        const runtime = await createRuntime({ config: loadConfig() });
        try {
          await importFiles(runtime, positionals, values.replace ?? false);
        } finally {
          await runtime.close();
        }
        return;
      }
      case 'export': {
        const { values } = parseArgs({ args: rest, options: { account: { type: 'string' }, out: { type: 'string' } } });
        if (!values.account) throw new AppError('bad_request', 'bad_request', 'admit export needs --account SLUG');
        await exportToFile(values.account, values.out);
        return;
      }
      case 'move': {
        const { values } = parseArgs({ args: rest, options: { to: { type: 'string' } } });
        if (!values.to || !/^postgres(ql)?:\/\//.test(values.to)) {
          throw new AppError(
            'bad_request',
            'bad_request',
            'admit move needs --to postgres://user@host/database (an empty database)',
          );
        }
        const config = loadConfig();
        if (config.databaseUrl) {
          throw new AppError('bad_request', 'bad_request', 'admit move copies the embedded database: unset DATABASE_URL');
        }
        if (!config.dataDir) throw new AppError('bad_request', 'bad_request', 'no data directory is configured (ADMIT_DATA_DIR)');
        try {
          const r = await moveDatabase(config.dataDir, values.to, (line) => process.stderr.write(`${line}\n`));
          console.log(
            `moved ${r.rows} rows in ${r.tables} tables; counts and figures match (${Object.entries(r.figures)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')})`,
          );
          console.log(`now start admit with:\nDATABASE_URL=${values.to}`);
        } catch (err) {
          if (err instanceof MoveError) throw new AppError('bad_request', 'move_failed', `${err.message} (nothing was changed)`);
          throw err;
        }
        return;
      }
      case 'migrate': {
        const runtime = await createRuntime({ config: loadConfig() });
        await runtime.close();
        console.log('migrations are up to date');
        return;
      }
      case 'user': {
        const [sub, ...args] = rest;
        const { values } = parseArgs({
          args,
          options: {
            account: { type: 'string' },
            email: { type: 'string' },
            name: { type: 'string' },
            role: { type: 'string' },
            'password-stdin': { type: 'boolean' },
          },
        });
        if ((sub !== 'create' && sub !== 'password') || !values.email || !values['password-stdin'])
          throw new AppError(
            'bad_request',
            'bad_request',
            'usage: admit user create --account SLUG --email E --role ROLE --password-stdin | admit user password --email E --password-stdin',
          );
        if (sub === 'create' && (!values.account || !ROLES.includes(values.role as Role)))
          throw new AppError('bad_request', 'bad_request', `--account and --role (${ROLES.join(', ')}) are required`);
        const password = (await readStdin()).replace(/\r?\n$/, '');
        const runtime = await createRuntime({ config: loadConfig() });
        try {
          if (sub === 'create') {
            const account = await runtime.ctx.db
              .selectFrom('accounts')
              .select('id')
              .where('slug', '=', values.account!)
              .executeTakeFirst();
            if (!account) throw new AppError('not_found', 'not_found', `No account with slug "${values.account}"`);
            const existing = await findUserByEmail(runtime.ctx.db, values.email);
            await addUser(runtime.ctx.db, {
              accountId: account.id,
              email: values.email,
              name: values.name,
              role: values.role as Role,
              password,
            });
            if (existing?.password_hash) await setPassword(runtime.ctx.db, values.email, password);
            console.log(
              `${values.email} is ${values.role} of ${values.account}; sign in at ${runtime.ctx.config.baseUrl}/console`,
            );
          } else {
            await setPassword(runtime.ctx.db, values.email, password);
            console.log(`new password set for ${values.email}; their sessions were ended`);
          }
        } finally {
          await runtime.close();
        }
        return;
      }
      case 'token': {
        const [sub, ...args] = rest;
        if (sub !== 'create')
          throw new AppError(
            'bad_request',
            'bad_request',
            'usage: admit token create --account SLUG --name N --capability C ...',
          );
        const { values } = parseArgs({
          args,
          options: {
            account: { type: 'string' },
            name: { type: 'string' },
            capability: { type: 'string', multiple: true },
            scope: { type: 'string', multiple: true },
            event: { type: 'string', multiple: true },
          },
        });
        if (!values.account || !values.name)
          throw new AppError('bad_request', 'bad_request', '--account and --name are required');
        const runtime = await createRuntime({ config: loadConfig() });
        try {
          const secret = await createToken(runtime.ctx, {
            account: values.account,
            name: values.name,
            capabilities: values.capability ?? [],
            scopes: values.scope ?? [],
            events: values.event ?? [],
          });
          console.log(secret);
        } finally {
          await runtime.close();
        }
        return;
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        console.log(USAGE);
        return;
      default:
        throw new AppError('bad_request', 'bad_request', `unknown command "${command}"\n\n${USAGE}`);
    }
  } catch (err) {
    if (
      err instanceof AppError ||
      err instanceof ConfigError ||
      (err as NodeJS.ErrnoException).code === 'ENOENT' ||
      (err as Error).name === 'TypeError'
    ) {
      console.error(`admit: ${(err as Error).message}`);
      process.exitCode = 1;
      return;
    }
    throw err;
  }
}
