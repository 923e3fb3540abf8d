import path from 'node:path';
import { orderStatementScript, pgbenchAvailable, runBaseline, runPgbench, settle, setupBaselineTables } from '../baselines.ts';
import { fmt, requestLine, wrkList, freePort, ROOT, startProcess, stopProcess, waitFor } from '../lib.ts';
import type { ScenarioContext } from './context.ts';

/**
 * The flash sale: one ticket type, every client buying one ticket as fast as it can, against
 * (a) a locked transaction and (b) a guarded statement straight in PostgreSQL, (d) the
 * statements of one of admit's orders in pgbench, and (c) at 16 clients and fewer a bare
 * Fastify route with no database.
 */
export async function flash(c: ScenarioContext): Promise<void> {
  const { url, base, quick, duration, headers, ids, q, add } = c;
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
  const line = requestLine('POST', '/api/v1/events/flash/orders', headers.authorization, body);
  // warmed first, not measured: the server has just started and its first seconds run code V8 has
  // not optimised yet, which the first client count (one client in a full run) would carry alone
  await wrkList(base, [line], { rate: 0, connections: 16, seconds: 3, threads: 1 });
  try {
    for (const n of clients) {
      await settle(url);
      const before = Number((await q<{ n: string }>('select count(*) n from orders where event_id = $1', [flash.eventId]))[0]!.n);
      const load = await wrkList(base, [line], {
        rate: 0,
        connections: n,
        seconds: duration,
        threads: 1,
      });
      const after = Number((await q<{ n: string }>('select count(*) n from orders where event_id = $1', [flash.eventId]))[0]!.n);
      const [inv] = await q<{ taken: number; capacity: number; lines: string }>(
        `select i.taken, i.capacity, (select coalesce(sum(quantity),0) from order_lines l join orders o on o.id = l.order_id where l.inventory_id = i.id and o.status in ('pending','paid')) lines
           from inventory i join ticket_types t on t.inventory_id = i.id where t.id = $1`,
        [flash.typeId],
      );
      const oversell = Math.max(0, inv!.taken - inv!.capacity) + Math.abs(inv!.taken - Number(inv!.lines));
      const created = after - before;
      // answers of 400 and above and socket errors (wrk counts them); orders still in flight when wrk stops are created, not answered
      const errors = load.bad;
      // the baselines: pgbench (PostgreSQL's C client) when installed, else the same through pg
      const baseline = async (kind: 'a' | 'b') => {
        await settle(url);
        if (!usePgbench) return { ...(await runBaseline(url, kind, n, duration)), by: 'pg', connections: Math.min(n, 70) };
        return { ...(await runPgbench(url, kind, n, duration)), by: 'pgbench' };
      };
      const a = await baseline('a');
      const b = await baseline('b');
      const by = `${a.by}${a.connections !== n ? `, ${a.connections} connections` : ''}`;
      const note = `p50 ${fmt(load.p50)} ms, p99 ${fmt(load.p99)} ms; created ${created}, answered ${load.requests}, failed ${errors}, oversell ${oversell}`;
      // one row per baseline: this client count's orders/s against it
      const against = (baselineName: string, base: { perSecond: number; p50: number; p99: number }, prefix: string) =>
        add({
          scenario: `flash sale, ${n} clients`,
          figure: 'orders/s',
          admit: created / duration,
          baseline: base.perSecond,
          baselineName,
          note: `${prefix}baseline p50 ${fmt(base.p50, 1)} ms, p99 ${fmt(base.p99, 1)} ms`,
        });
      against(`(a) locked txn (${by})`, a, `${note}; `);
      against(`(b) guarded stmt (${by})`, b, '');
      let d: { perSecond: number } | null = null;
      if (orderScript) {
        await settle(url);
        const statement = await runPgbench(url, { script: orderScript }, n, duration);
        against(
          `(d) one order's statement (pgbench${statement.connections !== n ? `, ${statement.connections} connections` : ''})`,
          statement,
          '',
        );
        d = statement;
      }
      if (bare && n <= 16) {
        const floor = await wrkList(`http://127.0.0.1:${bport}`, [requestLine('POST', '/order', headers.authorization, body)], {
          rate: 0,
          connections: n,
          seconds: duration,
          threads: 1,
        });
        against('(c) bare Fastify, no database', floor, 'the same load process; ');
        // One client waits for each answer, so an order takes at least (d)'s statement plus (c)'s
        // round trip; what is left is admit's own work, the part the code controls
        if (n === 1 && d && created > 0) {
          const ceilingUs = 1e6 / d.perSecond + 1e6 / floor.perSecond;
          add({
            scenario: 'flash sale, 1 client',
            figure: "µs an order of admit's own",
            admit: (1e6 * duration) / created - ceilingUs,
            baseline: ceilingUs,
            baselineName: "µs an order of (d) + (c), the ceiling's",
            note: `admit's time an order less (d)'s and (c)'s: 1/admit - 1/d - 1/c; the ceiling 1/(1/d + 1/c) = ${fmt(1e6 / ceilingUs)} orders/s`,
          });
        }
      }
    }
  } finally {
    if (bare) await stopProcess(bare);
  }
}
