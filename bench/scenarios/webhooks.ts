import os from 'node:os';
import path from 'node:path';
import { settle } from '../baselines.ts';
import { cpuMs, fmt, freePort, medianRound, requestLine, ROOT, startProcess, stopProcess, waitFor, wrkList } from '../lib.ts';
import type { ScenarioContext } from './context.ts';

type Round = Awaited<ReturnType<typeof wrkList>>;

/** One order of one ticket, as a line of wrk's request file. */
const orderLine = (slug: string, h: { authorization: string }, typeId: number) =>
  requestLine(
    'POST',
    `/api/v1/events/${slug}/orders`,
    h.authorization,
    JSON.stringify({ items: [{ ticket_type_id: typeId, quantity: 1 }] }),
  );

export async function webhooks(c: ScenarioContext): Promise<void> {
  const { url, base, quick, duration, headers, tokens, ids, q, add, serverPid } = c;
  // The same flash sale on two accounts of one server, one with a webhook endpoint (every
  // order.created delivered to a receiver in its own process). Rounds alternate, each side's
  // median kept; after a round with the endpoint its deliveries drain before the next round,
  // so the round without pays nothing for them.
  const rport = await freePort();
  const receiver = startProcess(['--import', 'tsx', path.join(ROOT, 'bench/receiver.ts'), String(rport)], {});
  if (process.env.BENCH_RECEIVER_NICE) os.setPriority(receiver.pid!, Number(process.env.BENCH_RECEIVER_NICE));
  try {
    await waitFor(`http://127.0.0.1:${rport}/count`);
    const hookHeaders = { authorization: `Bearer ${tokens.hook}`, 'content-type': 'application/json' };
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
    const round = async (slug: string, eventId: number, h: { authorization: string }, typeId: number) => {
      await settle(url);
      const before = await count(eventId);
      const load = await wrkList(base, [orderLine(slug, h, typeId)], { rate: 0, connections: n, seconds: duration, threads: 1 });
      return { ...load, perSecond: ((await count(eventId)) - before) / duration };
    };
    // both sales warmed up first (JIT, caches, the receiver's connections), not measured
    for (const [slug, h, typeId] of [
      ['flash', headers, plain.typeId],
      ['hookflash', hookHeaders, hooked.typeId],
    ] as const) {
      await wrkList(base, [orderLine(slug, h, typeId)], { rate: 0, connections: n, seconds: 2, threads: 1 });
    }
    const without: Round[] = [];
    const withHook: Round[] = [];
    const drains: number[] = [];
    // server CPU (all its threads) per delivery sent while draining, when nothing else runs
    const drainCpu: number[] = [];
    let lost = 0;
    const rounds = quick ? 3 : 5;
    for (let i = 0; i < rounds; i++) {
      without.push(await round('flash', plain.eventId, headers, plain.typeId));
      withHook.push(await round('hookflash', hooked.eventId, hookHeaders, hooked.typeId));
      const t0 = performance.now();
      const cpu0 = cpuMs(serverPid());
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
      if (sent > 1000) drainCpu.push(((cpuMs(serverPid()) - cpu0) * 1000) / sent);
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
