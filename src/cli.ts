import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError } from './platform/config.ts';
import { AppError } from './platform/errors.ts';
import { createRuntime, serve, type Runtime } from './server.ts';
import { importAccount } from './modules/import/import.service.ts';
import { createToken } from './modules/accounts/accounts.service.ts';
import { hashToken } from './platform/http/auth.ts';

const DEMO_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../demo/demo-account.json');

const USAGE = `admit: event ticketing service

Usage:
  admit serve [--import FILE ...] [--replace]   migrate, import account files, then serve
  admit import FILE ... [--replace]             migrate, then import account files
  admit migrate                                 apply database migrations
  admit token create --account SLUG --name NAME --capability C ... [--scope S ...] [--event SLUG ...]
                                                print a new API token (shown once)

Environment: PORT, HOST, BASE_URL, DATABASE_URL, ADMIT_DATA_DIR, SMTP_URL, MAIL_FROM, NODE_ENV,
ADMIT_RATE_LIMIT_PER_MIN (see README).`;

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

interface DemoFile {
  account: { slug: string };
  tokens?: Array<{ secret: string; name: string }>;
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
  console.log('');
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
        console.log(
          `admit is serving ${runtime.ctx.config.baseUrl} (${runtime.ctx.engine}${runtime.ctx.engine === 'pglite' ? ` in ${runtime.ctx.config.dataDir}` : ''})`,
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
      case 'migrate': {
        const runtime = await createRuntime({ config: loadConfig() });
        await runtime.close();
        console.log('migrations are up to date');
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
