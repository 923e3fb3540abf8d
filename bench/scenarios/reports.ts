import { fmt } from '../lib.ts';
import type { ScenarioContext } from './context.ts';

/** The API's reports over the big event's orders, against the same figures in plain SQL. */
export async function reports(c: ScenarioContext): Promise<void> {
  const { base, headers, pool, bigOrders, seedBig, time, add } = c;
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
      scenario: `${name} over ${fmt(bigOrders)} orders`,
      figure: 'p50 ms',
      admit: admit.p50,
      baseline: sqlTime.p50,
      baselineName: 'plain SQL',
      note: `p99 ${fmt(admit.p99)} ms vs ${fmt(sqlTime.p99)} ms; seeded in ${fmt(seedSeconds)} s`,
    });
  }
}
