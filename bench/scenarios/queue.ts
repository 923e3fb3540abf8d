import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { fmt, wrkOutput, type WrkSummary } from '../lib.ts';
import type { ScenarioContext } from './context.ts';

export const QUEUE_RATE = 1200;

/**
 * The on-sale queue (contract section 13): 20,000 browsers (5,000 with --quick) in the waiting
 * room of event `onsale`; at the start the lottery gives them their places; then each polls its
 * place every 10 s (2,000 requests a second over 64 connections, each request a different
 * browser's cookie) from wrk, a C client in its own process, each connection pacing its requests. Figures: the poll's p50/p99, the server's
 * resident memory, a sweep over every browser's state (no place skipped, none admitted early or
 * held twice) and the admission rate, the admitted boundary bisected at two moments 15 s apart. The baseline is the same poll rate against
 * the event's public JSON (`GET /api/v1/events/onsale`), a read without a visitor.
 */
export async function queueScenario(c: ScenarioContext): Promise<void> {
  const { base, q, add, quick, serverPid, headers } = c;
  const n = quick ? 5_000 : 20_000;
  const pollRate = Math.round(n / 10);
  const { eventId } = await c.ids('onsale');
  // the browsers: their cookies, and the hashes the database keeps
  const keys = Array.from({ length: n }, () => randomBytes(24).toString('base64url'));
  const hashes = keys.map((k) => createHash('sha256').update(k).digest('hex'));
  await q('delete from queue_visitors where event_id = $1', [eventId]);
  await q('delete from event_queues where event_id = $1', [eventId]);
  const startAt = new Date(Date.now() + 4_000);
  await q(
    `insert into queue_visitors (event_id, visitor_hash, arrived_at)
     select $1, h, $2::timestamptz - interval '5 minutes' from unnest($3::text[]) h`,
    [eventId, startAt, hashes],
  );
  await q(`update events set sales_start_at = $2, queue = $3 where id = $1`, [
    eventId,
    startAt,
    JSON.stringify({ enabled: true, admit_per_minute: QUEUE_RATE }),
  ]);
  const cookie = (i: number) => `admit_q${eventId}=${keys[i]}`;
  // what each browser's poll set: its signed place, which a browser sends back from then on
  const placeTokens: string[] = new Array(n).fill('');
  const poll = async (i: number) => {
    const res = await fetch(`${base}/e/bench/onsale/queue.json`, { headers: { cookie: cookie(i) } });
    const set = /admit_qs\d+=([^;]+)/.exec(res.headers.get('set-cookie') ?? '');
    if (set) placeTokens[i] = `admit_qs${eventId}=${set[1]}`;
    return (await res.json()) as { state: string; place?: number };
  };
  // the waiting room, then the start (the server's catalogue cache is a second old at most)
  await new Promise((r) => setTimeout(r, Math.max(0, startAt.getTime() - Date.now()) + 1_500));
  const d0 = performance.now();
  const first = await poll(0);
  const drawMs = performance.now() - d0;
  if (first.state !== 'waiting' && first.state !== 'admitted') throw new Error(`queue not running: ${JSON.stringify(first)}`);

  // a sweep over every browser: no place admitted before its time, none skipped, none twice
  const sweep = async () => {
    const t0 = Date.now();
    const states: Array<{ state: string; place?: number }> = new Array(n);
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        for (let i = next++; i < n; i = next++) states[i] = await poll(i);
      }),
    );
    const t1 = Date.now();
    return {
      admitted: states.filter((s) => s.state === 'admitted').map((s) => s.place!),
      low: allowed(t0),
      high: allowed(t1),
      states,
    };
  };
  const allowed = (t: number) => Math.floor(((t - startAt.getTime()) * QUEUE_RATE) / 60_000) + 1;
  const s1 = await sweep();
  const problems: string[] = [];
  const admittedSet = new Set(s1.admitted);
  for (let p = 1; p <= s1.low; p++) if (!admittedSet.has(p)) problems.push(`place ${p} skipped`);
  if (s1.admitted.some((p) => p > s1.high)) problems.push('a place admitted before its time');
  const places = s1.states.map((x) => x.place).filter((p): p is number => typeof p === 'number');
  if (new Set(places).size !== places.length || places.length !== n) problems.push('a place held twice or missing');
  let k = 0;
  const alone = await c.time(() => poll(k++ % n), 300);
  const signedPlaces = placeTokens.filter(Boolean).length;
  const file = `/tmp/admit-queue-cookies-${process.pid}.txt`;
  // each browser polls with its visitor cookie and the place its first poll (the sweep's) signed
  fs.writeFileSync(
    file,
    keys.map((_, i) => `Cookie: ${cookie(i)}${placeTokens[i] ? `; ${placeTokens[i]}` : ''}`).join('\n') + '\n',
  );
  const duration = quick ? 10 : 30;
  const load = await paced(`${base}/e/bench/onsale/queue.json`, file, pollRate, duration);
  const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${serverPid()}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  // the baseline: the same pacing on a read that needs no visitor (the event's public JSON, cached)
  fs.writeFileSync(file, `Authorization: ${headers.authorization}\n`);
  const baseline = await paced(`${base}/api/v1/events/onsale`, file, pollRate, duration);
  fs.rmSync(file, { force: true });

  // the rate: the admitted boundary found by bisection (a few ms) at two moments 15 s apart
  const byPlace = new Map(s1.states.map((x, i) => [x.place!, i]));
  const boundary = async () => {
    let lo = 0;
    let hi = n;
    const t0 = Date.now();
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if ((await poll(byPlace.get(mid)!)).state === 'admitted') lo = mid;
      else hi = mid - 1;
    }
    return { place: lo, at: (t0 + Date.now()) / 2 };
  };
  const b1 = await boundary();
  await new Promise((r) => setTimeout(r, quick ? 5_000 : 15_000));
  const b2 = await boundary();
  const measured = (b2.place - b1.place) / ((b2.at - b1.at) / 60_000);
  if (Math.abs(measured / QUEUE_RATE - 1) > 0.02) problems.push(`admitted ${fmt(measured)}/min, configured ${QUEUE_RATE}`);
  add({
    scenario: `on-sale queue, ${fmt(n)} browsers polling every 10 s`,
    figure: 'p99 ms',
    admit: load.p99,
    baseline: baseline.p99,
    baselineName: 'GET /api/v1/events/{slug} at the same rate',
    note:
      `${fmt(load.requests / load.seconds)} polls/s (asked ${fmt(pollRate)}), p50 ${fmt(load.p50)} ms (baseline p50 ${fmt(baseline.p50)} ms); one at a time (no place cookie) p50 ${fmt(alone.p50, 1)} ms, p99 ${fmt(alone.p99, 1)} ms; ${fmt(signedPlaces)} browsers carried a signed place; lottery of ${fmt(n)} in the first poll ${fmt(drawMs)} ms; ` +
      `server RSS ${fmt(rss, 1)} MB; admitted ${fmt(measured)}/min (configured ${fmt(QUEUE_RATE)}/min; places ${b1.place} -> ${b2.place}); ` +
      `${load.requests} polls, ${load.non2xx} not 2xx, ${load.errors} errors; ${problems.length ? `PROBLEMS: ${problems.join('; ')}` : 'contiguous, none twice'}`,
  });
}

/**
 * Polls `url` at `rate` requests a second for `seconds` from wrk (a C client, its own process),
 * 64 connections each pausing between requests (bench/paced-polls.lua), one cookie a request.
 */
async function paced(url: string, cookieFile: string, rate: number, seconds: number): Promise<WrkSummary> {
  const line = await wrkOutput([
    '-t2',
    '-c64',
    `-d${seconds}s`,
    '--latency',
    '-s',
    'paced-polls.lua',
    url,
    '--',
    cookieFile,
    String(rate),
    '64',
  ]);
  return JSON.parse(line) as WrkSummary;
}
