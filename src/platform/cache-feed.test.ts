import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../test/factories.ts';
import type { FastifyRequest } from 'fastify';
import { changeFeedOf, FEED_GRACE_MS, followedCacheOf, forgetAccounts } from './cache.ts';
import type { AppError } from './errors.ts';
import { authenticate } from './http/auth.ts';
import { pollCatalogueChanges } from './cache-feed.ts';

const SHORT_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

/** Two accounts with an event each; their ids. */
async function twoAccounts(): Promise<[number, number]> {
  const ids: number[] = [];
  for (const slug of ['feed-a', 'feed-b']) {
    await seedAccount(t.ctx, makeAccountFile({ slug, events: [makeEvent({ slug: `${slug}-show` })] }));
    ids.push((await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', slug).executeTakeFirstOrThrow()).id);
  }
  return ids as [number, number];
}

/** A followed cache whose loads are counted per key. */
function probe() {
  const loads = new Map<string, number>();
  const cache = followedCacheOf<string>(t.ctx.db, `probe-${Math.random()}`, SHORT_MS);
  const get = (key: string) =>
    cache.get(key, () => {
      loads.set(key, (loads.get(key) ?? 0) + 1);
      return Promise.resolve(key);
    });
  return { get, loads: (key: string) => loads.get(key) ?? 0 };
}

const rename = (db: TestApp['ctx']['db'] | pg.Client, accountId: number) =>
  db instanceof pg.Client
    ? db.query(`update events set name = name || '.' where account_id = $1`, [accountId])
    : sql`update events set name = name || '.' where account_id = ${accountId}`.execute(db);

describe('the catalogue change feed', () => {
  it('keeps entries past their short time while live, forgets the changed account only, and falls back when no poll vouches', async () => {
    const [a, b] = await twoAccounts();
    const c = probe();
    await pollCatalogueChanges(t.ctx.db);
    await c.get(`${a}/show`);
    await c.get(`${b}/show`);
    await sleep(SHORT_MS * 2);
    await pollCatalogueChanges(t.ctx.db);
    await c.get(`${a}/show`);
    await c.get(`${b}/show`);
    expect([c.loads(`${a}/show`), c.loads(`${b}/show`)]).toEqual([1, 1]);

    await rename(t.ctx.db, a);
    expect((await pollCatalogueChanges(t.ctx.db)).accounts).toBe(1);
    await c.get(`${a}/show`);
    await c.get(`${b}/show`);
    expect([c.loads(`${a}/show`), c.loads(`${b}/show`)]).toEqual([2, 1]);

    // nothing changed: the next poll forgets nothing
    expect((await pollCatalogueChanges(t.ctx.db)).accounts).toBe(0);

    // no poll for longer than the grace: entries older than the short time are read again
    await sleep(FEED_GRACE_MS + 100);
    await c.get(`${b}/show`);
    expect(c.loads(`${b}/show`)).toBe(2);
  });

  it('marks every account a statement touched, for inserts, updates and deletes alike', async () => {
    const [a, b] = await twoAccounts();
    const c = probe();
    await pollCatalogueChanges(t.ctx.db);
    const both = async () => {
      await c.get(`${a}/show`);
      await c.get(`${b}/show`);
      return [c.loads(`${a}/show`), c.loads(`${b}/show`)];
    };
    await both();
    // one statement over both accounts' events: both are forgotten
    await sql`update events set name = name || '.' where account_id in (${a}, ${b})`.execute(t.ctx.db);
    expect((await pollCatalogueChanges(t.ctx.db)).accounts).toBe(2);
    expect(await both()).toEqual([2, 2]);
    // a delete marks the account of the rows it removed (here b's ticket types)
    await sql`delete from ticket_types where account_id = ${b}`.execute(t.ctx.db);
    expect((await pollCatalogueChanges(t.ctx.db)).accounts).toBe(1);
    expect(await both()).toEqual([2, 3]);
    // a statement that touches no row marks no account
    await sql`delete from ticket_types where account_id = ${b}`.execute(t.ctx.db);
    expect((await pollCatalogueChanges(t.ctx.db)).accounts).toBe(0);
  });

  it('forgets everything on its first poll: what was cached before it is not vouched for', async () => {
    const [a] = await twoAccounts();
    const c = probe();
    expect(changeFeedOf(t.ctx.db).liveUntil).toBe(0);
    await c.get(`${a}/show`);
    await pollCatalogueChanges(t.ctx.db);
    await c.get(`${a}/show`);
    expect(c.loads(`${a}/show`)).toBe(2);
  });

  it.runIf(process.env.DATABASE_URL)(
    'forgets an account once per change while an old transaction holds the range back',
    async () => {
      const [a] = await twoAccounts();
      const c = probe();
      const old = new pg.Client({ connectionString: t.ctx.config.databaseUrl! });
      await old.connect();
      try {
        await old.query('begin');
        await old.query('select pg_current_xact_id()'); // an open transaction with an id, older than what follows
        await rename(t.ctx.db, a);
        await pollCatalogueChanges(t.ctx.db);
        await c.get(`${a}/show`);
        await rename(t.ctx.db, a);
        expect((await pollCatalogueChanges(t.ctx.db)).accounts).toBe(1);
        await c.get(`${a}/show`);
        // the same marks come back while the old transaction runs: nothing is forgotten again
        expect((await pollCatalogueChanges(t.ctx.db)).accounts).toBe(0);
        await c.get(`${a}/show`);
        expect(c.loads(`${a}/show`)).toBe(2);
      } finally {
        await old.query('rollback');
        await old.end();
      }
    },
  );

  it.runIf(process.env.DATABASE_URL)('sees a change that commits after a younger one was seen', async () => {
    const [a, b] = await twoAccounts();
    const c = probe();
    await pollCatalogueChanges(t.ctx.db);
    const late = new pg.Client({ connectionString: t.ctx.config.databaseUrl! });
    await late.connect();
    try {
      await late.query('begin');
      await rename(late, a); // the older transaction, still open
      await rename(t.ctx.db, b); // a younger one, committed
      await c.get(`${a}/show`);
      await c.get(`${b}/show`);
      await pollCatalogueChanges(t.ctx.db);
      await late.query('commit');
      await pollCatalogueChanges(t.ctx.db);
      await c.get(`${a}/show`);
      expect(c.loads(`${a}/show`)).toBe(2);
    } finally {
      await late.end();
    }
  });
});

describe('API tokens followed by the feed', () => {
  it('keeps a lookup past the short time while live, is not marked by the use stamp, and forgets a token revoked elsewhere', async () => {
    const app = await createTestApp({ config: { tokenCacheMs: SHORT_MS } });
    try {
      const acct = await seedAccount(app.ctx, makeAccountFile({ slug: 'feed-tok' }));
      const tokenRow = () => viewToken(app, acct.slug);
      const get = async () => (await app.call(acct.tokens.view, { method: 'GET', url: '/api/v1/account' })).statusCode;
      await pollCatalogueChanges(app.ctx.db);
      expect([await get(), await get()]).toEqual([200, 200]);
      // the lookup stamped last_used_at (not awaited): that is no change to follow
      await expect.poll(async () => (await tokenRow())?.last_used_at ?? null).not.toBeNull();
      expect((await pollCatalogueChanges(app.ctx.db)).accounts).toBe(0);

      await sleep(SHORT_MS * 2);
      await sql`delete from api_tokens where id = ${(await tokenRow())!.id}`.execute(app.ctx.db);
      expect(await get()).toBe(200); // kept: no poll has seen the delete yet
      expect((await pollCatalogueChanges(app.ctx.db)).accounts).toBe(1);
      expect(await get()).toBe(401);
    } finally {
      await app.close();
    }
  });
  it('answers no more from the first lookup once a revoke was seen', async () => {
    // a short time of a minute: the first lookup would still answer, were it asked
    const app = await createTestApp({ config: { tokenCacheMs: 60_000 } });
    try {
      const acct = await seedAccount(app.ctx, makeAccountFile({ slug: 'feed-tok-once' }));
      const get = async () => (await app.call(acct.tokens.view, { method: 'GET', url: '/api/v1/account' })).statusCode;
      await pollCatalogueChanges(app.ctx.db);
      expect([await get(), await get()]).toEqual([200, 200]);
      await sql`delete from api_tokens where id = ${(await viewToken(app, acct.slug))!.id}`.execute(app.ctx.db);
      await pollCatalogueChanges(app.ctx.db);
      expect([await get(), await get()]).toEqual([401, 401]);
    } finally {
      await app.close();
    }
  });

  it('keeps the first lookup followed, unless the feed forgot something while it ran', async () => {
    const app = await createTestApp({ config: { tokenCacheMs: SHORT_MS } });
    try {
      const kept = await seedAccount(app.ctx, makeAccountFile({ slug: 'feed-tok-first' }));
      const raced = await seedAccount(app.ctx, makeAccountFile({ slug: 'feed-tok-raced' }));
      const auth = (token: string) =>
        authenticate(app.ctx.db, { headers: { authorization: `Bearer ${token}` } } as FastifyRequest, SHORT_MS).then(
          () => 'ok',
          (err: AppError) => err.kind,
        );
      const remove = async (slug: string) =>
        sql`delete from api_tokens where id = ${(await viewToken(app, slug))!.id}`.execute(app.ctx.db);
      await pollCatalogueChanges(app.ctx.db);
      // each token's first lookup; the second one's ran while the feed forgot another account
      expect(await auth(kept.tokens.view)).toBe('ok');
      const first = auth(raced.tokens.view);
      forgetAccounts(app.ctx.db, [0]);
      expect(await first).toBe('ok');
      // both deleted behind the feed's back (no poll): only the first lookup kept answers
      await sleep(SHORT_MS * 2);
      await remove(kept.slug);
      await remove(raced.slug);
      expect(changeFeedOf(app.ctx.db).liveUntil).toBeGreaterThan(performance.now());
      expect([await auth(kept.tokens.view), await auth(raced.tokens.view)]).toEqual(['ok', 'unauthorized']);
      expect((await pollCatalogueChanges(app.ctx.db)).accounts).toBe(2);
      expect(await auth(kept.tokens.view)).toBe('unauthorized');
    } finally {
      await app.close();
    }
  });

  it('follows a token that moved to another account, so a revoke there still reaches it', async () => {
    const app = await createTestApp({ config: { tokenCacheMs: SHORT_MS } });
    try {
      const from = await seedAccount(app.ctx, makeAccountFile({ slug: 'feed-tok-from' }));
      await seedAccount(app.ctx, makeAccountFile({ slug: 'feed-tok-to' }));
      const to = await app.ctx.db.selectFrom('accounts').select('id').where('slug', '=', 'feed-tok-to').executeTakeFirstOrThrow();
      const account = async () => {
        const res = await app.call(from.tokens.view, { method: 'GET', url: '/api/v1/account' });
        return res.statusCode === 200 ? res.json<{ slug: string }>().slug : res.statusCode;
      };
      await pollCatalogueChanges(app.ctx.db);
      expect([await account(), await account()]).toEqual(['feed-tok-from', 'feed-tok-from']);
      const id = (await viewToken(app, from.slug))!.id;
      await sql`update api_tokens set account_id = ${to.id} where id = ${id}`.execute(app.ctx.db);
      expect((await pollCatalogueChanges(app.ctx.db)).accounts).toBe(2);
      expect([await account(), await account()]).toEqual(['feed-tok-to', 'feed-tok-to']);
      await sql`delete from api_tokens where id = ${id}`.execute(app.ctx.db);
      await pollCatalogueChanges(app.ctx.db);
      expect(await account()).toBe(401);
    } finally {
      await app.close();
    }
  });
});

/** The account's read-only token ('view'). */
async function viewToken(app: TestApp, slug: string) {
  return app.ctx.db
    .selectFrom('api_tokens as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select(['k.id', 'k.last_used_at'])
    .where('a.slug', '=', slug)
    .where('k.name', '=', 'view')
    .executeTakeFirst();
}

describe.runIf(process.env.DATABASE_URL)('two instances with long-kept catalogues', () => {
  it('an order on one instance is priced at what the other instance just set, once it has polled', async () => {
    const acct = await seedAccount(t.ctx, makeAccountFile({ slug: 'feed-duo', events: [makeEvent({ slug: 'duo' })] }));
    const typeId = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'ga').executeTakeFirstOrThrow()).id;
    // a short time of a minute: only the feed can make this instance read the new price
    const reader = await createTestApp({ sameDatabaseAs: t, config: { catalogueCacheMs: 60_000 } });
    const order = async () =>
      (
        await reader.call(acct.tokens.all, {
          method: 'POST',
          url: '/api/v1/events/duo/orders',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ items: [{ ticket_type_id: typeId, quantity: 1 }] }),
        })
      ).json<{ total_cents: number }>().total_cents;
    try {
      await pollCatalogueChanges(reader.ctx.db);
      expect(await order()).toBe(2500);
      const patched = await t.call(acct.tokens.all, {
        method: 'PATCH',
        url: `/api/v1/events/duo/ticket-types/${typeId}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ price_cents: 3100 }),
      });
      expect(patched.statusCode).toBe(200);
      expect(await order()).toBe(2500); // not polled yet: the instance's cached catalogue
      await pollCatalogueChanges(reader.ctx.db);
      expect(await order()).toBe(3100);
    } finally {
      await reader.close();
    }
  });
});
