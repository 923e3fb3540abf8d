import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { importAccount } from './import.service.ts';
import { AppError } from '../../platform/errors.ts';
import type { Db } from '../../platform/db/database.ts';

const example = JSON.parse(fs.readFileSync(new URL('../../../test/fixtures/example-account.json', import.meta.url), 'utf8'));
const demo = JSON.parse(fs.readFileSync(new URL('../../../demo/demo-account.json', import.meta.url), 'utf8'));
const clone = <T>(v: T): T => structuredClone(v);

const TABLES = [
  'accounts',
  'api_tokens',
  'events',
  'ticket_types',
  'orders',
  'order_lines',
  'tickets',
  'payments',
  'refunds',
  'checkins',
  'inventory',
  'themes',
] as const;

async function counts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of TABLES) {
    const r = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(t)}`.execute(db);
    out[t] = r.rows[0]!.n;
  }
  return out;
}

async function expectImportError(t: TestApp, file: unknown, path: string): Promise<void> {
  const before = await counts(t.ctx.db);
  const err = await importAccount(t.ctx, file).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).message).toContain(path);
  expect(await counts(t.ctx.db)).toEqual(before);
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('importing the contract example', () => {
  it('reads back events, series and ticket types exactly', async () => {
    const r = await importAccount(t.ctx, clone(example));
    expect(r).toEqual({ account: 'harbour-hall', events: 1, orders: 3, replaced: false });
    const token = example.tokens[0].secret;
    const account = await t.call(token, { method: 'GET', url: '/api/v1/account' });
    expect(account.json()).toEqual({ slug: 'harbour-hall', name: 'Harbour Hall', region: 'eu' });
    expect((await t.call(token, { method: 'GET', url: '/api/v1/series' })).json()).toEqual({
      series: [{ slug: 'jazz-nights', name: 'Jazz Nights' }],
    });
    expect((await t.call(token, { method: 'GET', url: '/api/v1/events/autumn-jazz' })).json()).toEqual({
      slug: 'autumn-jazz',
      name: 'Autumn Jazz Night',
      series: 'jazz-nights',
      currency: 'eur',
      currencies: ['eur', 'gbp'],
      timezone: 'Europe/Berlin',
      starts_at: '2027-03-15T18:00:00Z',
      ends_at: '2027-03-15T22:00:00Z',
      sales_end_at: null,
      tax_mode: 'inclusive',
      url: 'http://admit.test/e/harbour-hall/autumn-jazz',
      description: null,
      venue: null,
      locale: 'en',
    });
    const types = (await t.call(token, { method: 'GET', url: '/api/v1/events/autumn-jazz/ticket-types' })).json().ticket_types;
    expect(
      types.map(
        (x: { slug: string; price_cents: number; capacity: number | null; max_per_order: number | null; position: number }) => [
          x.slug,
          x.price_cents,
          x.capacity,
          x.max_per_order,
          x.position,
        ],
      ),
    ).toEqual([
      ['ga', 2500, 200, 8, 0],
      ['vip', 6000, 20, 2, 1],
      ['crew', 0, null, null, 2],
    ]);
  });

  it('records history as given: tickets, stock, payments, refunds', async () => {
    const db = t.ctx.db;
    const orders = await db
      .selectFrom('orders')
      .select(['ref', 'status', 'total_cents', 'refunded_cents', 'currency', 'fx_rate', 'codes_key'])
      .orderBy('ref')
      .execute();
    expect(orders).toEqual([
      {
        ref: 'HH-0001',
        status: 'paid',
        total_cents: 4500,
        refunded_cents: 0,
        currency: 'eur',
        fx_rate: '1.0000000000',
        codes_key: 'FRIENDS10',
      },
      {
        ref: 'HH-0002',
        status: 'refunded',
        total_cents: 2200,
        refunded_cents: 2200,
        currency: 'gbp',
        fx_rate: '1.1700000000',
        codes_key: '',
      },
      {
        ref: 'HH-0003',
        status: 'pending',
        total_cents: 6000,
        refunded_cents: 0,
        currency: 'eur',
        fx_rate: '1.0000000000',
        codes_key: '',
      },
    ]);
    const tickets = await db
      .selectFrom('tickets as t')
      .innerJoin('orders as o', 'o.id', 't.order_id')
      .select(['o.ref', 't.ref as ticket', 't.status', 't.attendee_name', 't.qr_token'])
      .orderBy('t.ref')
      .execute();
    expect(tickets.map((x) => [x.ref, x.ticket, x.status, x.attendee_name])).toEqual([
      ['HH-0001', 'HH-0001-1', 'valid', 'Ada Lovelace'],
      ['HH-0001', 'HH-0001-2', 'valid', 'Charles Babbage'],
      ['HH-0002', 'HH-0002-1', 'voided', null],
    ]);
    expect(new Set(tickets.map((x) => x.qr_token)).size).toBe(3);
    for (const x of tickets) expect(x.qr_token.length).toBeGreaterThanOrEqual(22);
    // paid (2 ga + 2 programme) and pending (1 vip) take stock; the refunded order does not
    const stock = await db
      .selectFrom('inventory as i')
      .leftJoin('ticket_types as tt', 'tt.inventory_id', 'i.id')
      .leftJoin('goods as g', 'g.inventory_id', 'i.id')
      .select(['i.capacity', 'i.taken', 'tt.key as type', 'g.key as good'])
      .orderBy('i.id')
      .execute();
    expect(stock.map((s) => [s.type ?? s.good, s.capacity, s.taken])).toEqual([
      ['programme', 150, 2],
      ['tote', 50, 0],
      ['ga', 200, 2],
      ['vip', 20, 1],
    ]);
    const pay = await db
      .selectFrom('payments')
      .select(['rail', 'provider', 'amount_cents', 'fee_cents', 'fee_currency', 'provider_ref', 'simulated'])
      .orderBy('id')
      .execute();
    expect(pay).toEqual([
      {
        rail: 'sandbox',
        provider: 'sandbox',
        amount_cents: 4500,
        fee_cents: 0,
        fee_currency: 'eur',
        provider_ref: 'sbx_1',
        simulated: true,
      },
      {
        rail: 'card',
        provider: 'sandbox',
        amount_cents: 2200,
        fee_cents: null,
        fee_currency: 'gbp',
        provider_ref: 'pi_2',
        simulated: false,
      },
    ]);
    const tokenRows = await db.selectFrom('api_tokens').select('token_hash').execute();
    for (const row of tokenRows) expect(example.tokens.map((x: { secret: string }) => x.secret)).not.toContain(row.token_hash);
  });

  it('refuses an existing slug, and --replace swaps the account in one go', async () => {
    const before = await counts(t.ctx.db);
    await expect(importAccount(t.ctx, clone(example))).rejects.toThrow(/exists/);
    expect(await counts(t.ctx.db)).toEqual(before);
    const changed = clone(example);
    changed.account.name = 'Harbour Hall (renamed)';
    const r = await importAccount(t.ctx, changed, { replace: true });
    expect(r.replaced).toBe(true);
    expect(await counts(t.ctx.db)).toEqual(before);
    const res = await t.call(example.tokens[0].secret, { method: 'GET', url: '/api/v1/account' });
    expect(res.json().name).toBe('Harbour Hall (renamed)');
  });

  it('imports the demo account', async () => {
    const r = await importAccount(t.ctx, clone(demo));
    expect(r.events).toBe(2);
    const theme = await t.ctx.db
      .selectFrom('themes')
      .select(['settings'])
      .where('is_default', '=', true)
      .where('name', '=', 'Lantern')
      .executeTakeFirstOrThrow();
    expect(typeof theme.settings.default_web_html_template_id).toBe('number');
    expect(theme.settings.text_background_color_contrast).toBe('#000000');
  });
});

describe('broken account files are refused whole, naming the path', () => {
  const broken = (mutate: (f: typeof example) => void) => {
    const f = clone(example);
    f.account.slug = 'broken-copy';
    f.tokens = [];
    mutate(f);
    return f;
  };

  it('a wrong type deep inside', async () => {
    await expectImportError(
      t,
      broken((f) => (f.events[0].ticket_types[1].price = '60.00')),
      '$.events[0].ticket_types[1].price',
    );
  });

  it('an unknown key', async () => {
    await expectImportError(
      t,
      broken((f) => (f.events[0].goods[0].colour = 'red')),
      '$.events[0].goods[0].colour',
    );
  });

  it('a dangling key reference', async () => {
    await expectImportError(
      t,
      broken((f) => (f.events[0].ticket_types[0].includes[0].good = 'poster')),
      '$.events[0].ticket_types[0].includes[0].good',
    );
    await expectImportError(
      t,
      broken((f) => (f.events[0].orders[0].lines[0].ref = 'nope')),
      '$.events[0].orders[0].lines[0].ref',
    );
    await expectImportError(
      t,
      broken((f) => (f.events[0].series = 'nope')),
      '$.events[0].series',
    );
  });

  it('a missing required field, a bad timezone, a duplicate key', async () => {
    await expectImportError(
      t,
      broken((f) => delete f.events[0].timezone),
      '$.events[0].timezone',
    );
    await expectImportError(
      t,
      broken((f) => (f.events[0].timezone = 'Mars/Olympus')),
      '$.events[0].timezone',
    );
    await expectImportError(
      t,
      broken((f) => (f.events[0].goods[1].key = 'programme')),
      '$.events[0].goods[1].key',
    );
  });

  it('an order beyond capacity', async () => {
    await expectImportError(
      t,
      broken((f) => (f.events[0].ticket_types[1].capacity = 0)),
      '$.events[0].orders[2].lines[0]',
    );
  });
});
