import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { findEventsBySlugs } from '../events/events.repo.ts';
import { loadCatalogue } from './catalogue.repo.ts';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

/** Two accounts, each with an event of the same slug: their account, event and ticket type ids. */
async function twins() {
  const out: Array<{ accountId: number; eventId: number; typeId: number }> = [];
  for (const slug of ['twin-a', 'twin-b']) {
    await seedAccount(t.ctx, makeAccountFile({ slug, events: [makeEvent({ slug: 'same' })] }));
    out.push(
      await t.ctx.db
        .selectFrom('accounts as a')
        .innerJoin('events as e', 'e.account_id', 'a.id')
        .innerJoin('ticket_types as tt', 'tt.event_id', 'e.id')
        .select(['a.id as accountId', 'e.id as eventId', 'tt.id as typeId'])
        .where('a.slug', '=', slug)
        .executeTakeFirstOrThrow(),
    );
  }
  return out as [(typeof out)[0], (typeof out)[0]];
}

describe('reads gathered from several requests (platform/batch.ts)', () => {
  it('finds each account its own event of a slug both use, and nothing for an unknown one', async () => {
    const [a, b] = await twins();
    const rows = await findEventsBySlugs(t.ctx.db, [
      { accountId: a.accountId, slug: 'same' },
      { accountId: b.accountId, slug: 'same' },
      { accountId: a.accountId, slug: 'missing' },
      { accountId: a.accountId, slug: 'same' },
    ]);
    expect(rows.map((r) => r?.id)).toEqual([a.eventId, b.eventId, undefined, a.eventId]);
  });

  it("gives each of many concurrent baskets only its own account's ticket types", async () => {
    const [a, b] = await twins();
    // both ids in every basket: the account's own type is found, the other account's is not
    const baskets = Array.from({ length: 12 }, (_, i) => (i % 2 ? b : a));
    const catalogues = await Promise.all(
      baskets.map((x) => loadCatalogue(t.ctx.db, x.accountId, x.eventId, [a.typeId, b.typeId, x.typeId])),
    );
    expect(catalogues.map((c) => [...c.types.keys()])).toEqual(baskets.map((x) => [x.typeId]));
  });
});
