import fs from 'node:fs';
import { fmt } from '../lib.ts';
import type { ScenarioContext } from './context.ts';

/** The console's pages over the big event's orders, and its CSV export of all of them. */
export async function desk(c: ScenarioContext): Promise<void> {
  const { base, pool, consoleUser, bigOrders, seedBig, time, add, serverPid } = c;
  const { big, seconds: seedSeconds } = await seedBig();
  // a console session, signed in the way a browser does
  const signInPage = await (await fetch(`${base}/console/sign-in`)).text();
  const signIn = await fetch(`${base}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      csrf: /name="csrf" value="([^"]+)"/.exec(signInPage)![1]!,
      email: consoleUser.email,
      password: consoleUser.password,
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
        pool.query(`select ref from orders where event_id = $1 and lower(email) like 'buyer777777@%' limit 51`, [big.eventId]),
      'plain SQL (same search)',
    ],
  ];
  for (const [name, admitFn, plainFn, baselineName] of cases) {
    await admitFn();
    const admit = await time(admitFn);
    const plain = await time(plainFn);
    add({
      scenario: `${name} over ${fmt(bigOrders)} orders`,
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
      return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${serverPid()}/status`, 'utf8'))?.[1] ?? 0);
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
    scenario: `CSV export of ${fmt(bigOrders)} orders`,
    figure: 'seconds',
    admit: exportMs / 1000,
    baseline: plainMs / 1000,
    baselineName: 'plain SQL read into memory',
    note: `${fmt(lines - 1)} rows, ${fmt(bytes / 1e6)} MB; server RSS ${fmt(rssBefore / 1024)} MB before, peak ${fmt(rssPeak / 1024)} MB during (plain read held ${fmt(all.rowCount ?? 0)} rows at once)`,
  });
}
