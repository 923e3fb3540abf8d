import path from 'node:path';
import { fmt, freePort, medianRound, requestLine, ROOT, startProcess, stopProcess, waitFor, wrkList } from '../lib.ts';
import type { ScenarioContext } from './context.ts';

/** Reads that hit no database write: the event, its ticket types and its page, against a bare Fastify server answering them from memory. */
export async function reads(c: ScenarioContext): Promise<void> {
  const { base, quick, headers, add } = c;
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
    // the event page's baseline is a bare route sending the page as a string, as the goal was
    // set against; a bare route sending bytes encoded once (less work than any real page) is
    // measured beside it and reported in the note
    for (const [name, p, b, strict] of [
      ['GET /events/{slug}', '/api/v1/events/flash', '/event', null],
      ['GET /events/{slug}/ticket-types', '/api/v1/events/flash/ticket-types', '/types', null],
      ['event page /e/{account}/{event}', '/e/bench/flash', '/page', '/page-bytes'],
    ] as const) {
      // Both servers warmed up first (JIT), then measured in alternating rounds, each side's
      // median round kept: on two cores the load generator competes with the server, and one
      // round alone swings by a factor of two.
      // from wrk (a C client in its own process), one thread: the server gets the other core
      const admitTarget = (seconds: number) =>
        wrkList(base, [requestLine('GET', p, p.startsWith('/api/') ? headers.authorization : null)], {
          rate: 0,
          connections: 64,
          seconds,
          threads: 1,
        });
      const bareTarget = (path: string, seconds: number) =>
        wrkList(`http://127.0.0.1:${bport}`, [requestLine('GET', path, null)], { rate: 0, connections: 64, seconds, threads: 1 });
      await admitTarget(2);
      await bareTarget(b, 2);
      if (strict) await bareTarget(strict, 2);
      const admitRounds: Rounds = [];
      const bareRounds: Rounds = [];
      const strictRounds: Rounds = [];
      for (let round = 0; round < 3; round++) {
        admitRounds.push(await admitTarget(quick ? 2 : 4));
        bareRounds.push(await bareTarget(b, quick ? 2 : 4));
        if (strict) strictRounds.push(await bareTarget(strict, quick ? 2 : 4));
      }
      const admit = medianRound(admitRounds);
      const bareLoad = medianRound(bareRounds);
      const strictNote = strict
        ? `; against the page as prepared bytes ${fmt(medianRound(strictRounds).perSecond)} req/s (${fmt(admit.perSecond / medianRound(strictRounds).perSecond, 2)}x; rounds ${strictRounds.map((r) => fmt(r.perSecond)).join(' / ')})`
        : '';
      add({
        scenario: name,
        figure: 'req/s',
        admit: admit.perSecond,
        baseline: bareLoad.perSecond,
        baselineName: 'bare Fastify',
        note: `${p.startsWith('/e/') ? `${fmt(pageBytes / 1024, 1)} KB of HTML (CSS and script inline, no request before images); ` : ''}median of 3 rounds; p99 ${fmt(admit.p99)} ms vs ${fmt(bareLoad.p99)} ms; rounds ${admitRounds.map((r) => fmt(r.perSecond)).join(' / ')} vs ${bareRounds.map((r) => fmt(r.perSecond)).join(' / ')}${strictNote}`,
      });
    }
  } finally {
    await stopProcess(bare);
  }
}

type Rounds = Array<Awaited<ReturnType<typeof wrkList>>>;
