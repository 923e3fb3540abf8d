import pg from 'pg';
import { settle, setupBaselineTables } from '../baselines.ts';
import { fmt, requestLine, wrkAmount } from '../lib.ts';
import type { ScenarioContext } from './context.ts';

/** "0.12-0.80 s": when a status was first and last answered */
const spanOf = (s: [number, number] | undefined) => (s ? `${fmt(s[0] / 1000, 2)}-${fmt(s[1] / 1000, 2)} s` : 'none');

/** 1,000 seats, 2,000 buyers on 64 connections: how long until the last seat is sold and every buyer answered. */
export async function sellout(c: ScenarioContext): Promise<void> {
  const { url, base, headers, ids, q, add } = c;
  const so = await ids('sellout');
  const body = JSON.stringify({ items: [{ ticket_type_id: so.typeId, quantity: 1 }] });
  await settle(url);
  // timed by the load process (wrk, a C client in its own process) from its first request to its
  // last answer: the parent's clock would add the load process's start-up
  const line = requestLine('POST', '/api/v1/events/sellout/orders', headers.authorization, body);
  const load = await wrkAmount(
    base,
    Array.from({ length: 2000 }, () => line),
    64,
  );
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
