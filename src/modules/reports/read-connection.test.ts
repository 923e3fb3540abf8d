import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { loadConfig } from '../../platform/config.ts';
import { inReportSnapshot } from '../../platform/context.ts';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

/**
 * DATABASE_READ_URL: reports and dashboards read on the read connection, in one snapshot;
 * orders and everything else that decides never do. The read connection here is the test
 * database seen through a plugin that records what runs on it (the scale test uses a replica).
 */

class Recorder implements KyselyPlugin {
  kinds: string[] = [];
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.kinds.push(args.node.kind);
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
const reads = new Recorder();

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'replica',
      events: [makeEvent({ slug: 'show', orders: [makeOrder({ ref: 'SHOW-1' })] })],
    }),
  );
  t.ctx.readDb = t.ctx.db.withPlugin(reads);
});
afterAll(() => t.close());

describe('the read connection', () => {
  it('serves the income, orders and availability reports', async () => {
    for (const path of ['income?range=all', 'report?group=status&range=all', 'availability']) {
      reads.kinds = [];
      const res = await t.call(acct.tokens.all, { method: 'GET', url: `/api/v1/events/show/${path}` });
      expect(res.statusCode, path).toBe(200);
      expect(reads.kinds.length, path).toBeGreaterThan(0);
      expect(
        reads.kinds.filter((k) => /Insert|Update|Delete/.test(k)),
        path,
      ).toEqual([]);
    }
  });

  it('is never used to place an order or read one', async () => {
    reads.kinds = [];
    const type = await t.ctx.db.selectFrom('ticket_types').select('id').executeTakeFirstOrThrow();
    const placed = await t.call(acct.tokens.all, {
      method: 'POST',
      url: '/api/v1/events/show/orders',
      payload: { items: [{ ticket_type_id: type.id, quantity: 1 }], email: 'a@example.org' },
    });
    expect(placed.statusCode, placed.body).toBe(201);
    expect((await t.call(acct.tokens.all, { method: 'GET', url: `/api/v1/orders/${placed.json().ref}` })).statusCode).toBe(200);
    expect(reads.kinds).toEqual([]);
  });

  it('reads in one read-only snapshot: a write there fails', async () => {
    await expect(
      inReportSnapshot(t.ctx, (db) => sql`insert into app_secrets (name, value) values ('x', 'y')`.execute(db)),
    ).rejects.toThrow(/read-only transaction/);
  });

  it('is configured only beside DATABASE_URL', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://replica/db' })).toThrow(/needs DATABASE_URL/);
    expect(loadConfig({ DATABASE_URL: 'postgres://p/db', DATABASE_READ_URL: 'postgres://r/db' }).databaseReadUrl).toBe(
      'postgres://r/db',
    );
    expect(loadConfig({}).databaseReadUrl).toBeNull();
  });
});
