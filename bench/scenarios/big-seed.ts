import { seedOrders } from '../seed.ts';
import type { BigSeed, ScenarioContext } from './context.ts';

/**
 * Seeds the big event with `bigOrders` orders (goods, donations, audiences, portals included)
 * for the scenarios that read them. Called through `ScenarioContext.seedBig`, which runs it once.
 */
export async function seedBigEvent(c: ScenarioContext): Promise<BigSeed> {
  const { url, bigOrders, ids, q } = c;
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
    bigOrders,
  );
  return { big, seconds };
}
