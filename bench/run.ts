import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/platform/db/database.ts';
import { migrate } from '../src/platform/db/migrate.ts';
import { createLogger } from '../src/platform/logger.ts';
import { systemClock } from '../src/platform/clock.ts';
import { loadConfig } from '../src/platform/config.ts';
import { importAccount } from '../src/modules/import/import.service.ts';
import { orderStatementScript, pgbenchAvailable, runBaseline, runPgbench, settle, setupBaselineTables } from './baselines.ts';
import { seedOrders } from './seed.ts';
import {
  adminQuery,
  autocannon,
  dbUrl,
  fmt,
  freePort,
  medianRound,
  percentile,
  ROOT,
  startProcess,
  stopProcess,
  waitFor,
  type LoadResult,
} from './lib.ts';

/**
 * npm run bench [-- --only flash,webhooks,sellout,reports,desk,reads,checkin] [--quick] [--keep]
 * (env: BENCH_CLIENTS=16,64 flash sale client counts; BENCH_QUICK_SECONDS quick duration)
 * Every figure is printed next to a baseline measured in this same run, with the ratio.
 */
const args = process.argv.slice(2);
const only = (args.find((a) => a.startsWith('--only='))?.slice(7) ?? args[args.indexOf('--only') + 1] ?? '')
  .split(',')
  .filter(Boolean);
const quick = args.includes('--quick');
const keep = args.includes('--keep');
const want = (s: string) => only.length === 0 || only.includes(s);
const TOKEN = 'adm_bench_all_capabilities_0123456789abcdef';
const HOOK_TOKEN = 'adm_bench_hooked_account_0123456789abcdef';
const DOOR_TOKEN = 'adm_bench_door_account_0123456789abcdefgh';
const DURATION = quick ? Number(process.env.BENCH_QUICK_SECONDS ?? 4) : 10;
const ORDERS_1M = quick ? 100_000 : 1_000_000;
const CONSOLE_USER = { email: 'bench@example.org', password: 'bench console password' };

interface Row {
  scenario: string;
  figure: string;
  admit: number;
  baseline: number;
  baselineName: string;
  ratio: number;
  note?: string;
}
const rows: Row[] = [];
/** "0.12-0.80 s": when a status was first and last answered */
const spanOf = (s: [number, number] | undefined) => (s ? `${fmt(s[0] / 1000, 2)}-${fmt(s[1] / 1000, 2)} s` : 'none');
const add = (r: Omit<Row, 'ratio'>) => rows.push({ ...r, ratio: r.baseline ? r.admit / r.baseline : 0 });

const event = (slug: string, capacity: number, extra: object = {}) => ({
  slug,
  name: slug,
  currency: 'eur',
  currencies: ['eur', 'gbp'],
  fx_rates: { gbp: 1.17 },
  timezone: 'Europe/Berlin',
  starts_at: '2030-06-01T18:00:00Z',
  ticket_types: [{ key: 'hot', name: 'Hot', price: 2500, capacity, tax_rate_bp: 700 }],
  ...extra,
});

/** CPU time (user + system) of a process so far, in ms, from /proc (Linux). */
function cpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const dbName = `admit_bench_${Date.now()}`;
  await adminQuery(`create database ${dbName}`);
  const url = dbUrl(dbName);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let server: ReturnType<typeof startProcess> | null = null;
  let serverPeakRssMb: number | undefined;
  const peaksMb: Array<[string, number]> = [];
  try {
    const database = await openDatabase({ databaseUrl: url, dataDir: null });
    await migrate(database.db);
    const ctx = {
      config: { ...loadConfig({}), databaseUrl: url },
      db: database.db,
      engine: 'postgres' as const,
      clock: systemClock,
      log: createLogger('silent'),
    };
    await importAccount(ctx, {
      account: { slug: 'bench', name: 'Bench', payments: { mode: 'sandbox' } },
      users: [{ email: CONSOLE_USER.email, role: 'owner', password: CONSOLE_USER.password }],
      tokens: [
        {
          name: 'bench',
          secret: TOKEN,
          capabilities: ['events.view', 'orders.view', 'orders.manage', 'refund'],
          scopes: ['invitations.view'],
        },
      ],
      events: [
        event('flash', 50_000_000),
        event('sellout', 1000),
        event('big', 100_000_000, {
          goods: [{ key: 'tote', name: 'Tote', price: 1200, capacity: 100_000_000, tax_rate_bp: 1900 }],
          donations: [{ key: 'fund', name: 'Fund' }],
          audiences: [{ key: 'crew', name: 'Crew' }],
          portals: [{ key: 'uni', name: 'Uni' }],
          discount_codes: [{ code: 'SPRING', amount_off: 250 }],
        }),
      ],
    });
    // a second account, the same sale, with a webhook endpoint attached (the webhooks scenario)
    await importAccount(ctx, {
      account: { slug: 'hooked', name: 'Hooked', payments: { mode: 'sandbox' } },
      tokens: [
        {
          name: 'bench',
          secret: HOOK_TOKEN,
          capabilities: ['events.view', 'orders.view', 'orders.manage', 'webhooks.manage'],
        },
      ],
      events: [event('hookflash', 50_000_000)],
    });
    // the door of a big event: offline check-in (sync and upload)
    await importAccount(ctx, {
      account: { slug: 'doors', name: 'Doors', payments: { mode: 'sandbox' } },
      tokens: [{ name: 'bench', secret: DOOR_TOKEN, capabilities: ['events.view'] }],
      events: [
        event('door', 100_000_000, {
          goods: [{ key: 'tote', name: 'Tote', price: 1200, capacity: 100_000_000, tax_rate_bp: 1900 }],
          donations: [{ key: 'fund', name: 'Fund' }],
          audiences: [{ key: 'crew', name: 'Crew' }],
          portals: [{ key: 'uni', name: 'Uni' }],
          checkin_lists: [{ key: 'main', name: 'Main door' }],
        }),
      ],
    });
    const ids = async (slug: string) => {
      const r = await database.db
        .selectFrom('events as e')
        .innerJoin('ticket_types as t', 't.event_id', 'e.id')
        .select(['e.id as eventId', 'e.account_id as accountId', 't.id as typeId'])
        .where('e.slug', '=', slug)
        .executeTakeFirstOrThrow();
      return r;
    };

    // the server as `npm start` runs it: the compiled build
    execFileSync(process.execPath, ['bin/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    server = startProcess([...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'bin/admit.mjs', 'serve'], {
      DATABASE_URL: url,
      PORT: String(port),
      BASE_URL: base,
      NODE_ENV: 'production',
      ADMIT_RATE_LIMIT_PER_MIN: '0',
      ADMIT_WEBHOOK_ALLOW_PRIVATE: '1',
      LOG_LEVEL: 'warn',
    });
    await waitFor(`${base}/healthz`);
    // the server's peak resident memory per scenario: VmHWM read at each scenario's end, then reset
    // (writing 5 to clear_refs, Linux 4.0+) so the next scenario's peak is its own
    const status = () => fs.readFileSync(`/proc/${server!.pid}/status`, 'utf8');
    let scenario = 'start';
    const mark = (next: string) => {
      peaksMb.push([scenario, Number(/VmHWM:\s+(\d+)/.exec(status())?.[1] ?? 0) / 1024]);
      try {
        fs.writeFileSync(`/proc/${server!.pid}/clear_refs`, '5');
      } catch {
        // an older kernel: the peaks that follow include the ones before
      }
      scenario = next;
    };
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const q = async <T>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as T[];
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

    if (want('flash')) {
      mark('flash');
      const flash = await ids('flash');
      const body = JSON.stringify({ items: [{ ticket_type_id: flash.typeId, quantity: 1 }] });
      await setupBaselineTables(url, 50_000_000);
      const usePgbench = await pgbenchAvailable();
      const clients = process.env.BENCH_CLIENTS?.split(',').map(Number) ?? (quick ? [64] : [16, 64, 256]);
      // (c), at 16 clients and fewer: the floor HTTP and the load process set, a bare Fastify
      // route that parses the same request and answers a real order's JSON from memory
      const bport = clients.some((n) => n <= 16) ? await freePort() : 0;
      let bare: ReturnType<typeof startProcess> | null = null;
      // one order of this sale: (c) answers its JSON, (d) copies it in pgbench
      const orderJson = await (await fetch(`${base}/api/v1/events/flash/orders`, { method: 'POST', headers, body })).text();
      const [template] = await q<{ id: number }>('select id from orders where event_id = $1 order by id desc limit 1', [
        flash.eventId,
      ]);
      const orderScript = usePgbench ? await orderStatementScript(url, template!.id) : null;
      if (bport) {
        bare = startProcess(
          ['--import', 'tsx', path.join(ROOT, 'bench/bare-server.ts'), String(bport), '{}', '{}', '', orderJson],
          {},
        );
        await waitFor(`http://127.0.0.1:${bport}/healthz`);
      }
      try {
        for (const n of clients) {
          await settle(url);
          const before = Number(
            (await q<{ n: string }>('select count(*) n from orders where event_id = $1', [flash.eventId]))[0]!.n,
          );
          const load = await autocannon({
            url: `${base}/api/v1/events/flash/orders`,
            connections: n,
            duration: DURATION,
            method: 'POST',
            body,
            headers,
          });
          const after = Number(
            (await q<{ n: string }>('select count(*) n from orders where event_id = $1', [flash.eventId]))[0]!.n,
          );
          const [inv] = await q<{ taken: number; capacity: number; lines: string }>(
            `select i.taken, i.capacity, (select coalesce(sum(quantity),0) from order_lines l join orders o on o.id = l.order_id where l.inventory_id = i.id and o.status in ('pending','paid')) lines
           from inventory i join ticket_types t on t.inventory_id = i.id where t.id = $1`,
            [flash.typeId],
          );
          const oversell = Math.max(0, inv!.taken - inv!.capacity) + Math.abs(inv!.taken - Number(inv!.lines));
          const created = after - before;
          const errors = Object.entries(load.statuses)
            .filter(([s]) => s !== '201')
            .reduce((s, [, c]) => s + c, 0);
          // the baselines: pgbench (PostgreSQL's C client) when installed, else the same through pg
          const baseline = async (kind: 'a' | 'b') => {
            await settle(url);
            if (!usePgbench) return { ...(await runBaseline(url, kind, n, DURATION)), by: 'pg', connections: Math.min(n, 70) };
            return { ...(await runPgbench(url, kind, n, DURATION)), by: 'pgbench' };
          };
          const a = await baseline('a');
          const b = await baseline('b');
          const by = `${a.by}${a.connections !== n ? `, ${a.connections} connections` : ''}`;
          const note = `p50 ${fmt(load.p50)} ms, p99 ${fmt(load.p99)} ms; created ${created}, non-201 ${errors}, oversell ${oversell}`;
          // one row per baseline: this client count's orders/s against it
          const against = (baselineName: string, base: { perSecond: number; p50: number; p99: number }, prefix: string) =>
            add({
              scenario: `flash sale, ${n} clients`,
              figure: 'orders/s',
              admit: created / DURATION,
              baseline: base.perSecond,
              baselineName,
              note: `${prefix}baseline p50 ${fmt(base.p50, 1)} ms, p99 ${fmt(base.p99, 1)} ms`,
            });
          against(`(a) locked txn (${by})`, a, `${note}; `);
          against(`(b) guarded stmt (${by})`, b, '');
          if (orderScript) {
            await settle(url);
            const d = await runPgbench(url, { script: orderScript }, n, DURATION);
            against(`(d) one order's statement (pgbench${d.connections !== n ? `, ${d.connections} connections` : ''})`, d, '');
          }
          if (bare && n <= 16) {
            const floor = await autocannon({
              url: `http://127.0.0.1:${bport}/order`,
              connections: n,
              duration: DURATION,
              method: 'POST',
              body,
              headers,
            });
            against('(c) bare Fastify, no database', floor, 'the same load process; ');
          }
        }
      } finally {
        if (bare) await stopProcess(bare);
      }
    }

    if (want('webhooks')) {
      mark('webhooks');
      // The same flash sale on two accounts of one server, one with a webhook endpoint (every
      // order.created delivered to a receiver in its own process). Rounds alternate, each side's
      // median kept; after a round with the endpoint its deliveries drain before the next round,
      // so the round without pays nothing for them.
      const rport = await freePort();
      const receiver = startProcess(['--import', 'tsx', path.join(ROOT, 'bench/receiver.ts'), String(rport)], {});
      if (process.env.BENCH_RECEIVER_NICE) os.setPriority(receiver.pid!, Number(process.env.BENCH_RECEIVER_NICE));
      try {
        await waitFor(`http://127.0.0.1:${rport}/count`);
        const hookHeaders = { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' };
        const created = await fetch(`${base}/api/v1/webhook-endpoints`, {
          method: 'POST',
          headers: hookHeaders,
          body: JSON.stringify({
            url: `http://127.0.0.1:${rport}/hook`,
            events: (process.env.BENCH_WEBHOOK_EVENTS ?? 'order.created').split(','),
          }),
        });
        if (created.status !== 201) throw new Error(`webhook endpoint: ${created.status} ${await created.text()}`);
        const n = Number(process.env.BENCH_WEBHOOK_CLIENTS ?? 64);
        const plain = await ids('flash');
        const hooked = await ids('hookflash');
        const count = async (eventId: number) =>
          Number((await q<{ n: string }>('select count(*) n from orders where event_id = $1', [eventId]))[0]!.n);
        const round = async (slug: string, eventId: number, h: Record<string, string>, typeId: number) => {
          await settle(url);
          const before = await count(eventId);
          const load = await autocannon({
            url: `${base}/api/v1/events/${slug}/orders`,
            connections: n,
            duration: DURATION,
            method: 'POST',
            body: JSON.stringify({ items: [{ ticket_type_id: typeId, quantity: 1 }] }),
            headers: h,
          });
          return { ...load, perSecond: ((await count(eventId)) - before) / DURATION };
        };
        // both sales warmed up first (JIT, caches, the receiver's connections), not measured
        for (const [slug, h, typeId] of [
          ['flash', headers, plain.typeId],
          ['hookflash', hookHeaders, hooked.typeId],
        ] as const) {
          await autocannon({
            url: `${base}/api/v1/events/${slug}/orders`,
            connections: n,
            duration: 2,
            method: 'POST',
            body: JSON.stringify({ items: [{ ticket_type_id: typeId, quantity: 1 }] }),
            headers: h,
          });
        }
        const without: LoadResult[] = [];
        const withHook: LoadResult[] = [];
        const drains: number[] = [];
        // server CPU (all its threads) per delivery sent while draining, when nothing else runs
        const drainCpu: number[] = [];
        let lost = 0;
        const rounds = quick ? 3 : 5;
        for (let i = 0; i < rounds; i++) {
          without.push(await round('flash', plain.eventId, headers, plain.typeId));
          withHook.push(await round('hookflash', hooked.eventId, hookHeaders, hooked.typeId));
          const t0 = performance.now();
          const cpu0 = cpuMs(server!.pid!);
          const sent0 = (await q<{ n: string }>(`select count(*) n from webhook_deliveries where status = 'succeeded'`))[0]!.n;
          const orders = await count(hooked.eventId);
          for (;;) {
            const { received } = (await (await fetch(`http://127.0.0.1:${rport}/count`)).json()) as { received: number };
            const [pending] = await q<{ n: string }>(`select count(*) n from webhook_deliveries where status <> 'succeeded'`);
            if (Number(pending!.n) === 0 && received >= orders) break;
            if (performance.now() - t0 > 120_000) {
              lost = orders - received;
              break;
            }
            await new Promise((r) => setTimeout(r, 100));
          }
          drains.push((performance.now() - t0) / 1000);
          const sent =
            Number((await q<{ n: string }>(`select count(*) n from webhook_deliveries where status = 'succeeded'`))[0]!.n) -
            Number(sent0);
          if (sent > 1000) drainCpu.push(((cpuMs(server!.pid!) - cpu0) * 1000) / sent);
        }
        const [deliveries] = await q<{ n: string }>(`select count(*) n from webhook_deliveries where type = 'order.created'`);
        const { received } = (await (await fetch(`http://127.0.0.1:${rport}/count`)).json()) as { received: number };
        const a = medianRound(without);
        const b = medianRound(withHook);
        add({
          scenario: `flash sale with a webhook endpoint, ${n} clients`,
          figure: 'orders/s',
          admit: b.perSecond,
          baseline: a.perSecond,
          baselineName: 'same sale, no endpoint',
          note:
            `median of ${rounds} alternating rounds: ${withHook.map((r) => fmt(r.perSecond)).join(' / ')} vs ${without.map((r) => fmt(r.perSecond)).join(' / ')}; ` +
            `p99 ${fmt(b.p99)} vs ${fmt(a.p99)} ms; deliveries ${deliveries!.n}, received ${received}${lost ? `, NOT DELIVERED ${lost}` : ''}; ` +
            `backlog drained in ${drains.map((d) => fmt(d, 1)).join(' / ')} s` +
            (drainCpu.length ? `, server CPU ${drainCpu.map((c) => fmt(c)).join(' / ')} µs per delivery` : ''),
        });
      } finally {
        await stopProcess(receiver);
      }
    }

    if (want('checkin')) {
      mark('checkin');
      // A scanner's first download of 100,000 tickets in pages of 5,000, against the plain SQL
      // read of the same rows; then uploads of 1,000 offline scans against one plain insert.
      const door = await ids('door');
      const extra = (
        await q<{ good: number; donation: number; audience: number; portal: number; list: number }>(
          `select (select id from goods where event_id = $1) good, (select id from donations where event_id = $1) donation,
                (select id from audiences where event_id = $1) audience, (select id from portals where event_id = $1) portal,
                (select id from checkin_lists where event_id = $1) list`,
          [door.eventId],
        )
      )[0]!;
      const n = quick ? 20_000 : 100_000;
      // one ticket per paid order, n of them
      await seedOrders(
        url,
        {
          accountId: door.accountId,
          eventId: door.eventId,
          gaId: door.typeId,
          goodId: extra.good,
          donationId: extra.donation,
          audienceId: extra.audience,
          portalId: extra.portal,
        },
        Math.ceil(n / 0.87),
        'door',
      );
      await q(
        `insert into tickets (account_id, event_id, order_id, order_line_id, ticket_type_id, ref, attendee_name, qr_token, created_at)
         select o.account_id, o.event_id, o.id, l.id, l.ticket_type_id, o.ref || '-1', 'Guest ' || o.id, md5('t' || o.id), o.created_at
         from orders o join order_lines l on l.order_id = o.id and l.kind = 'tickets'
         where o.event_id = $1 and o.status = 'paid' order by o.id limit $2`,
        [door.eventId, n],
      );
      await settle(url);
      const doorHeaders = { authorization: `Bearer ${DOOR_TOKEN}` };
      const syncBase = `${base}/doors/door/checkin_lists/${extra.list}`;
      const download = async () => {
        const t0 = performance.now();
        let cursor = '';
        let bytes = 0;
        let tickets = 0;
        for (;;) {
          const r = await fetch(`${syncBase}/sync?limit=5000${cursor ? `&cursor=${cursor}` : ''}`, { headers: doorHeaders });
          const text = await r.text();
          if (!r.ok) throw new Error(`sync: ${r.status} ${text.slice(0, 200)}`);
          bytes += Buffer.byteLength(text);
          const page = JSON.parse(text) as { tickets: unknown[]; next_cursor: string; has_more: boolean };
          tickets += page.tickets.length;
          cursor = page.next_cursor;
          if (!page.has_more) break;
        }
        return { ms: performance.now() - t0, bytes, tickets };
      };
      const plainRead = async () => {
        const t0 = performance.now();
        const rows = await q(
          `select t.id, t.ref, tt.name, tt.key, t.attendee_name, encode(sha256(t.qr_token::bytea), 'hex'), t.status, o.status
           from tickets t join orders o on o.id = t.order_id join ticket_types tt on tt.id = t.ticket_type_id
           where t.event_id = $1 order by t.id`,
          [door.eventId],
        );
        return { ms: performance.now() - t0, rows: rows.length };
      };
      await download();
      const downloads = [await download(), await download(), await download()].sort((a, b) => a.ms - b.ms);
      const plains = [await plainRead(), await plainRead(), await plainRead()].sort((a, b) => a.ms - b.ms);
      const d = downloads[1]!;
      add({
        scenario: `offline sync, ${fmt(d.tickets)} tickets`,
        figure: 'ms (all pages)',
        admit: d.ms,
        baseline: plains[1]!.ms,
        baselineName: 'plain SQL read',
        note: `median of 3; ${fmt(d.bytes / 1e6, 1)} MB JSON (${fmt(d.bytes / d.tickets)} bytes a ticket) in ${Math.ceil(d.tickets / 5000)} pages; runs ${downloads.map((x) => fmt(x.ms)).join(' / ')} ms`,
      });
      const tokens = (
        await q<{ qr_token: string }>(`select qr_token from tickets where event_id = $1 order by id limit 6000`, [door.eventId])
      ).map((r) => r.qr_token);
      const uploads: number[] = [];
      for (let b = 0; b < 5; b++) {
        const scans = tokens.slice(b * 1000, b * 1000 + 1000).map((token, i) => ({
          client_id: `bench-${b}-${i}`,
          qr_code_identifier: token,
          scanned_at: new Date(Date.now() - (1000 - i) * 1000).toISOString(),
        }));
        const t0 = performance.now();
        const r = await fetch(`${syncBase}/checkins/batch`, {
          method: 'POST',
          headers: { ...doorHeaders, 'content-type': 'application/json' },
          body: JSON.stringify({ device: 'bench', checkins: scans }),
        });
        if (!r.ok) throw new Error(`upload: ${r.status} ${(await r.text()).slice(0, 200)}`);
        await r.text();
        uploads.push(performance.now() - t0);
      }
      const plainInserts: number[] = [];
      for (let b = 0; b < 5; b++) {
        const t0 = performance.now();
        await q(
          `insert into checkins (account_id, checkin_list_id, ticket_id, online, created_at, device, client_id, conflict, reason)
           select t.account_id, $2, t.id, false, now(), 'plain', 'plain-' || $3 || '-' || t.id, true, 'already_checked_in'
           from tickets t where t.qr_token = any($1::text[])`,
          [tokens.slice(b * 1000, b * 1000 + 1000), extra.list, b],
        );
        plainInserts.push(performance.now() - t0);
      }
      uploads.sort((a, b) => a - b);
      plainInserts.sort((a, b) => a - b);
      add({
        scenario: 'offline upload, 1,000 scans',
        figure: 'ms per batch',
        admit: uploads[2]!,
        baseline: plainInserts[2]!,
        baselineName: 'one plain insert',
        note: `median of 5 batches; ${uploads.map((x) => fmt(x)).join(' / ')} ms`,
      });
    }

    if (want('sellout')) {
      mark('sellout');
      const so = await ids('sellout');
      const body = JSON.stringify({ items: [{ ticket_type_id: so.typeId, quantity: 1 }] });
      await settle(url);
      // timed by the load process from its first request to its last answer: the parent's clock
      // would add the load process's start-up (1.5 s of the 3.5 s it reported before), and
      // autocannon's own clock rounds a fixed amount up to its next one-second tick
      const load = await autocannon({
        url: `${base}/api/v1/events/sellout/orders`,
        connections: 64,
        amount: 2000,
        method: 'POST',
        body,
        headers,
      });
      const seconds = load.elapsedSeconds;
      const sold = Number((await q<{ n: string }>('select count(*) n from orders where event_id = $1', [so.eventId]))[0]!.n);
      await setupBaselineTables(url, 1000);
      await settle(url);
      // the baseline's 64 connections are opened before its clock starts, as the server's are
      const bl = new pg.Pool({ connectionString: url, max: 64 });
      const opened = await Promise.all(Array.from({ length: 64 }, () => bl.connect()));
      for (const c of opened) c.release();
      const b0 = performance.now();
      let attempts = 0;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (attempts < 2000) {
            attempts++;
            await bl.query(
              `with s as (update bl_stock set n = n - 1 where id = 1 and n >= 1 returning id) insert into bl_orders (stock_id, email, total_cents) select id, 'b', 2500 from s`,
            );
          }
        }),
      );
      await bl.end();
      const bSeconds = (performance.now() - b0) / 1000;
      add({
        scenario: 'sell-out 1,000 seats, 2,000 buyers',
        figure: 'seconds to sell out',
        admit: seconds,
        baseline: bSeconds,
        baselineName: '(b) guarded stmt',
        note: `sold ${sold} (must be 1000); 201: ${load.statuses['201'] ?? 0}, 409: ${load.statuses['409'] ?? 0}; sales answered ${spanOf(load.span['201'])}, refusals ${spanOf(load.span['409'])}, slowest answer ${fmt(load.max)} ms`,
      });
    }

    // the big event's million orders, seeded once for the scenarios that read them
    let bigSeed: Promise<{ big: Awaited<ReturnType<typeof ids>>; seconds: number }> | null = null;
    const seedBig = () =>
      (bigSeed ??= (async () => {
        const big = await ids('big');
        const extra = (
          await q<{ good: number; donation: number; audience: number; portal: number }>(
            `select (select id from goods where event_id = $1) good, (select id from donations where event_id = $1) donation,
                (select id from audiences where event_id = $1) audience, (select id from portals where event_id = $1) portal`,
            [big.eventId],
          )
        )[0]!;
        const seconds = await seedOrders(
          url,
          {
            accountId: big.accountId,
            eventId: big.eventId,
            gaId: big.typeId,
            goodId: extra.good,
            donationId: extra.donation,
            audienceId: extra.audience,
            portalId: extra.portal,
          },
          ORDERS_1M,
        );
        return { big, seconds };
      })());
    const time = async (fn: () => Promise<unknown>, n = quick ? 10 : 50) => {
      const ts: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        await fn();
        ts.push(performance.now() - t0);
      }
      ts.sort((x, y) => x - y);
      return { p50: percentile(ts, 50), p99: percentile(ts, 99) };
    };

    if (want('reports')) {
      mark('reports');
      const { big, seconds: seedSeconds } = await seedBig();
      const http = (p: string) => async () => {
        const r = await fetch(`${base}/api/v1/events/big/${p}`, { headers });
        if (!r.ok) throw new Error(`${p}: ${r.status} ${await r.text()}`);
        await r.json();
      };
      const plain: Record<string, string> = {
        // the same figures by month from the same columns, written the plain way (to_char months)
        income: `select to_char(o.paid_at at time zone 'Europe/Berlin', 'YYYY-MM') m, count(*), sum(round(o.subtotal_cents * o.fx_rate)),
                   sum(round(o.discount_cents * o.fx_rate)), sum(round(o.refunded_cents * o.fx_rate)), count(*) filter (where o.refunded_cents > 0),
                   sum(round(o.tax_cents * o.fx_rate)), sum(o.fees_cents), sum(round(o.platform_fees_cents * o.fx_rate)), sum(o.unpriced_payments)
                 from orders o where o.event_id = $1 and o.took_money and o.paid_at is not null group by 1`,
        availability: `select l.kind, coalesce(l.ticket_type_id, l.good_id), sum(l.quantity) filter (where o.status = 'paid'), sum(l.quantity) filter (where o.status = 'pending')
                       from order_lines l join orders o on o.id = l.order_id where l.event_id = $1 group by 1, 2`,
        'report day': `select to_char(o.paid_at at time zone 'Europe/Berlin', 'YYYY-MM-DD'), count(*), sum(o.subtotal_cents) from orders o where o.event_id = $1 and o.currency = 'eur' and o.paid_at is not null group by 1`,
        'report code': `select coalesce(nullif(o.codes_key, ''), '-'), count(*), sum(o.subtotal_cents) from orders o where o.event_id = $1 and o.currency = 'eur' and o.paid_at is not null group by 1`,
      };
      const cases: Array<[string, string]> = [
        ['income', 'income?range=all'],
        ['availability', 'availability'],
        ['report day', 'report?group=day&range=all'],
        ['report code', 'report?group=code&range=all'],
      ];
      for (const [name, p] of cases) {
        await http(p)();
        const admit = await time(http(p));
        const sqlTime = await time(() => pool.query(plain[name]!, [big.eventId]));
        add({
          scenario: `${name} over ${fmt(ORDERS_1M)} orders`,
          figure: 'p50 ms',
          admit: admit.p50,
          baseline: sqlTime.p50,
          baselineName: 'plain SQL',
          note: `p99 ${fmt(admit.p99)} ms vs ${fmt(sqlTime.p99)} ms; seeded in ${fmt(seedSeconds)} s`,
        });
      }
    }

    if (want('desk')) {
      mark('desk');
      const { big, seconds: seedSeconds } = await seedBig();
      // a console session, signed in the way a browser does
      const signInPage = await (await fetch(`${base}/console/sign-in`)).text();
      const signIn = await fetch(`${base}/console/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          csrf: /name="csrf" value="([^"]+)"/.exec(signInPage)![1]!,
          email: CONSOLE_USER.email,
          password: CONSOLE_USER.password,
          next: '/console',
        }),
      });
      const cookie = /admit_session=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')![0];
      const page = (p: string) => async () => {
        const r = await fetch(`${base}/console/a/bench/events/big/${p}`, { headers: { cookie } });
        if (!r.ok) throw new Error(`${p}: ${r.status}`);
        await r.text();
      };
      const plainDay = `select to_char(o.paid_at at time zone 'Europe/Berlin', 'YYYY-MM-DD'), count(*),
          sum(round(o.subtotal_cents * o.fx_rate) - round(o.discount_cents * o.fx_rate) - round(o.refunded_cents * o.fx_rate))
        from orders o where o.event_id = $1 and o.took_money and o.paid_at is not null group by 1`;
      const plainAvailability = `select l.kind, coalesce(l.ticket_type_id, l.good_id), sum(l.quantity) filter (where o.status = 'paid'),
          sum(l.quantity) filter (where o.status = 'pending') from order_lines l join orders o on o.id = l.order_id where l.event_id = $1 group by 1, 2`;
      const plainPage = `select ref, status, email, total_cents, created_at from orders where event_id = $1 order by created_at desc, id desc limit 51`;
      const cases: Array<[string, () => Promise<unknown>, () => Promise<unknown>, string]> = [
        [
          'dashboard',
          page('dashboard'),
          () => Promise.all([pool.query(plainDay, [big.eventId]), pool.query(plainAvailability, [big.eventId])]),
          'plain SQL (sales by day + availability)',
        ],
        ['orders desk, first page', page('orders'), () => pool.query(plainPage, [big.eventId]), 'plain SQL (51 newest)'],
        [
          'orders desk, email search',
          page('orders?q=buyer777777%40'),
          () =>
            pool.query(`select ref from orders where event_id = $1 and lower(email) like 'buyer777777@%' limit 51`, [
              big.eventId,
            ]),
          'plain SQL (same search)',
        ],
      ];
      for (const [name, admitFn, plainFn, baselineName] of cases) {
        await admitFn();
        const admit = await time(admitFn);
        const plain = await time(plainFn);
        add({
          scenario: `${name} over ${fmt(ORDERS_1M)} orders`,
          figure: 'p50 ms',
          admit: admit.p50,
          baseline: plain.p50,
          baselineName,
          note: `p99 ${fmt(admit.p99)} ms vs ${fmt(plain.p99)} ms; seeded in ${fmt(seedSeconds)} s`,
        });
      }

      // the CSV export of every order, streamed: its time and the server's resident memory while it runs
      const rssKb = () => {
        try {
          return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server!.pid}/status`, 'utf8'))?.[1] ?? 0);
        } catch {
          return 0;
        }
      };
      const rssBefore = rssKb();
      let rssPeak = rssBefore;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssKb())), 25);
      const t0 = performance.now();
      const res = await fetch(`${base}/console/a/bench/events/big/orders.csv`, { headers: { cookie } });
      let bytes = 0;
      let lines = 0;
      for await (const chunk of res.body!) {
        bytes += chunk.length;
        for (const b of chunk) if (b === 10) lines++;
      }
      const exportMs = performance.now() - t0;
      clearInterval(sampler);
      const p0 = performance.now();
      const all = await pool.query(
        `select ref, status, created_at, paid_at, name, email, currency, total_cents, refunded_cents, ticket_units, codes_key, channel
         from orders where event_id = $1 order by created_at desc, id desc`,
        [big.eventId],
      );
      const plainMs = performance.now() - p0;
      add({
        scenario: `CSV export of ${fmt(ORDERS_1M)} orders`,
        figure: 'seconds',
        admit: exportMs / 1000,
        baseline: plainMs / 1000,
        baselineName: 'plain SQL read into memory',
        note: `${fmt(lines - 1)} rows, ${fmt(bytes / 1e6)} MB; server RSS ${fmt(rssBefore / 1024)} MB before, peak ${fmt(rssPeak / 1024)} MB during (plain read held ${fmt(all.rowCount ?? 0)} rows at once)`,
      });
    }

    if (want('reads')) {
      mark('reads');
      const bport = await freePort();
      const eventJson = await (await fetch(`${base}/api/v1/events/flash`, { headers })).text();
      const typesJson = await (await fetch(`${base}/api/v1/events/flash/ticket-types`, { headers })).text();
      // the buyer's event page: its weight before images, and the same HTML from memory as the baseline
      const pageHtml = await (await fetch(`${base}/e/bench/flash`)).text();
      const pageBytes = Buffer.byteLength(pageHtml);
      const bare = startProcess(
        ['--import', 'tsx', path.join(ROOT, 'bench/bare-server.ts'), String(bport), eventJson, typesJson, pageHtml],
        {},
      );
      try {
        await waitFor(`http://127.0.0.1:${bport}/healthz`);
        for (const [name, p, b] of [
          ['GET /events/{slug}', '/api/v1/events/flash', '/event'],
          ['GET /events/{slug}/ticket-types', '/api/v1/events/flash/ticket-types', '/types'],
          ['event page /e/{account}/{event}', '/e/bench/flash', '/page'],
        ] as const) {
          // Both servers warmed up first (JIT), then measured in alternating rounds, each side's
          // median round kept: on two cores the load generator competes with the server, and one
          // round alone swings by a factor of two.
          const admitTarget = { url: `${base}${p}`, connections: 64, headers };
          const bareTarget = { url: `http://127.0.0.1:${bport}${b}`, connections: 64 };
          await autocannon({ ...admitTarget, duration: 2 });
          await autocannon({ ...bareTarget, duration: 2 });
          const admitRounds: LoadResult[] = [];
          const bareRounds: LoadResult[] = [];
          for (let round = 0; round < 3; round++) {
            admitRounds.push(await autocannon({ ...admitTarget, duration: quick ? 2 : 4 }));
            bareRounds.push(await autocannon({ ...bareTarget, duration: quick ? 2 : 4 }));
          }
          const admit = medianRound(admitRounds);
          const bareLoad = medianRound(bareRounds);
          add({
            scenario: name,
            figure: 'req/s',
            admit: admit.perSecond,
            baseline: bareLoad.perSecond,
            baselineName: 'bare Fastify',
            note: `${p.startsWith('/e/') ? `${fmt(pageBytes / 1024, 1)} KB of HTML (CSS and script inline, no request before images); ` : ''}median of 3 rounds; p99 ${fmt(admit.p99)} ms vs ${fmt(bareLoad.p99)} ms; rounds ${admitRounds.map((r) => fmt(r.perSecond)).join(' / ')} vs ${bareRounds.map((r) => fmt(r.perSecond)).join(' / ')}`,
          });
        }
      } finally {
        await stopProcess(bare);
      }
    }
    await pool.end();
    await database.close();
    // the server's resident memory at its highest, over everything it served in this run
    mark('end');
    serverPeakRssMb = Math.max(...peaksMb.map(([, mb]) => mb));
  } catch (err) {
    if (server) console.error(server.output.join('').slice(-4000));
    throw err;
  } finally {
    if (server) await stopProcess(server);
    if (!keep) await adminQuery(`drop database if exists ${dbName} with (force)`);
  }

  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const header = `| scenario | figure | admit | baseline | value | ratio | notes |\n|---|---|---|---|---|---|---|`;
  const table = rows.map(
    (r) =>
      `| ${r.scenario} | ${r.figure} | ${fmt(r.admit, 1)} | ${r.baselineName} | ${fmt(r.baseline, 1)} | ${fmt(r.ratio, 2)}x | ${r.note ?? ''} |`,
  );
  console.log(`\nadmit benchmark (${quick ? 'quick' : 'full'}) on ${machine}\n`);
  console.log([header, ...table].join('\n'));
  if (serverPeakRssMb) {
    console.log(`\nserver peak RSS (VmHWM) over the whole run: ${fmt(serverPeakRssMb, 1)} MB`);
    console.log(`by scenario: ${peaksMb.map(([name, mb]) => `${name} ${fmt(mb, 1)} MB`).join(', ')}`);
  }
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  fs.writeFileSync(
    path.join(ROOT, 'bench/results/latest.json'),
    JSON.stringify({ at: new Date().toISOString(), machine, quick, rows, serverPeakRssMb, peaksMb }, null, 2),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
