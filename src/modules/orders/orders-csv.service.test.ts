import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { eachOrderBatch, parseOrderFilter } from './order-search.repo.ts';
import { amountCell, textCell } from './orders-csv.service.ts';

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;

const paid = (ref: string, over: Parameters<typeof makeOrder>[0] = {}) =>
  makeOrder({ ref, created_at: '2026-11-10T10:00:00Z', paid_at: '2026-11-10T10:01:00Z', ...over });

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'csv',
      events: [
        makeEvent({
          slug: 'show',
          timezone: 'Europe/Berlin',
          ticket_types: [
            { key: 'ga', name: 'General', price: 2500, capacity: 100 },
            { key: 'vip', name: 'VIP, front row', price: 9950, capacity: 10 },
          ],
          discount_codes: [{ code: 'EARLY', percent_off: 10 }],
          checkin_lists: [{ key: 'door', name: 'Door' }],
          orders: [
            paid('SHOW-A', {
              name: '=HYPERLINK("http://evil.example","click")',
              email: 'ada@example.org',
              created_at: '2026-11-01T23:30:00Z', // 2 November in Berlin
              paid_at: '2026-11-01T23:31:00Z',
              lines: [
                { kind: 'tickets', ref: 'ga', quantity: 2, unit_price: 2500, attendees: ['+Plus Person', 'Zoë "Quotes", Jr.'] },
              ],
              payments: [{ rail: 'sandbox', amount: 5000, at: '2026-11-01T23:31:00Z', fee: 0, provider_ref: 'sbx_a' }],
            }),
            paid('SHOW-B', {
              name: 'Bob Builder',
              email: 'bob@example.org',
              lines: [{ kind: 'tickets', ref: 'vip', quantity: 1, unit_price: 9950 }],
              payments: [{ rail: 'sandbox', amount: 9950, at: '2026-11-10T10:01:00Z', fee: 0, provider_ref: 'sbx_b' }],
            }),
            paid('SHOW-C', { name: '@mention', email: 'carol@example.org', status: 'pending', paid_at: undefined, payments: [] }),
            paid('SHOW-D', { name: '-minus\nnewline', email: 'dan@example.org' }),
            paid('SHOW-E', {
              name: 'Eve',
              email: 'eve@example.org',
              discounts: [{ code: 'EARLY', amount: 250 }],
              payments: [{ rail: 'sandbox', amount: 2250, at: '2026-11-10T10:01:00Z', fee: 0, provider_ref: 'sbx_e' }],
            }),
          ],
        }),
        makeEvent({ slug: 'other', orders: [paid('OTHER-1', { name: 'Bob Builder' })] }),
      ],
    }),
  );
});
afterAll(() => t.close());

const csv = async (query = '', token = acct.tokens.orders) => {
  const res = await t.call(token, { method: 'GET', url: `/api/v1/events/show/orders.csv${query}` });
  return res;
};
/** The CSV's rows as arrays of raw cells (a small reader: quoted cells, doubled quotes, CRLF). */
function parse(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') endCell();
    else if (ch === '\r' && text[i + 1] === '\n') {
      endCell();
      rows.push(row);
      row = [];
      i++;
    } else cell += ch;
  }
  return rows;
}

describe('orders as CSV', () => {
  it('answers UTF-8 with a BOM, a header, a row per order newest first, money as decimals beside the currency', async () => {
    const res = await csv();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="show-orders-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const rows = parse(res.body.replace(/^\uFEFF/, ''));
    expect(rows[0]).toEqual([
      'order',
      'status',
      'created (Europe/Berlin)',
      'paid (Europe/Berlin)',
      'buyer name',
      'buyer email',
      'currency',
      'total',
      'refunded',
      'tickets',
      'discount codes',
      'channel',
    ]);
    expect(rows.slice(1).map((r) => r[0])).toEqual(['SHOW-E', 'SHOW-D', 'SHOW-C', 'SHOW-B', 'SHOW-A']);
    const a = rows.find((r) => r[0] === 'SHOW-A')!;
    expect(a.slice(1, 4)).toEqual(['paid', '2026-11-02 00:30:00', '2026-11-02 00:31:00']);
    expect(a.slice(6, 10)).toEqual(['EUR', '50.00', '0.00', '2']);
    expect(rows.find((r) => r[0] === 'SHOW-B')!.slice(7, 8)).toEqual(['99.50']);
  });

  it('defuses cells a spreadsheet would run as formulas, and keeps quotes, commas and newlines in one cell', async () => {
    const rows = parse((await csv()).body.replace(/^\uFEFF/, ''));
    const name = (ref: string) => rows.find((r) => r[0] === ref)![4];
    expect(name('SHOW-A')).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(name('SHOW-C')).toBe(`'@mention`);
    expect(name('SHOW-D')).toBe(`'-minus\nnewline`);
    expect(name('SHOW-E')).toBe('Eve');
    expect(textCell('+1')).toBe(`"'+1"`);
    expect(textCell('\tx')).toBe(`"'\tx"`);
    expect(textCell('a "b", c')).toBe('"a ""b"", c"');
    expect(amountCell(1200, 'jpy')).toBe('1200');
    expect(amountCell(1250, 'kwd')).toBe('1.250');
    expect(amountCell(5, 'eur')).toBe('0.05');
  });

  it('exports attendees, a row per ticket with its type, price and first check-in', async () => {
    const ticket = await t.ctx.db.selectFrom('tickets').select(['id']).where('ref', '=', 'SHOW-B-1').executeTakeFirstOrThrow();
    const list = await t.ctx.db.selectFrom('checkin_lists').select('id').where('key', '=', 'door').executeTakeFirstOrThrow();
    await t.ctx.db
      .insertInto('checkins')
      .values({
        account_id: (await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', 'csv').executeTakeFirstOrThrow()).id,
        checkin_list_id: list.id,
        ticket_id: ticket.id,
        created_at: new Date('2026-11-22T18:15:00Z'),
      })
      .execute();
    const res = await csv('?kind=attendees');
    expect(res.headers['content-disposition']).toContain('show-attendees-');
    const rows = parse(res.body.replace(/^\uFEFF/, ''));
    expect(rows[0]![0]).toBe('ticket');
    const b = rows.find((r) => r[0] === 'SHOW-B-1')!;
    expect(b).toEqual([
      'SHOW-B-1',
      'SHOW-B',
      'paid',
      'valid',
      'VIP, front row',
      '',
      // no name per ticket: the ticket carries the buyer's, as its PDF prints it
      'Bob Builder',
      'Bob Builder',
      'bob@example.org',
      'EUR',
      '99.50',
      '2026-11-22 19:15:00',
    ]);
    const a = rows.filter((r) => r[1] === 'SHOW-A').map((r) => r[6]);
    expect(a).toEqual([`'+Plus Person`, 'Zoë "Quotes", Jr.']);
    // a pending order has no tickets yet
    expect(rows.some((r) => r[1] === 'SHOW-C')).toBe(false);
  });

  it('exports the filtered set: search by email, name, order or ticket reference; status, type, code, dates', async () => {
    const refs = async (query: string) =>
      parse((await csv(query)).body.replace(/^\uFEFF/, ''))
        .slice(1)
        .map((r) => r[0]);
    expect(await refs('?q=BOB@example')).toEqual(['SHOW-B']);
    expect(await refs('?q=builder')).toEqual(['SHOW-B']);
    expect(await refs('?q=show-d')).toEqual(['SHOW-D']);
    expect(await refs('?q=SHOW-A-2')).toEqual(['SHOW-A']);
    expect(await refs('?q=%25')).toEqual([]);
    expect(await refs('?status=pending')).toEqual(['SHOW-C']);
    expect(await refs('?ticket_type=vip')).toEqual(['SHOW-B']);
    expect(await refs('?code=-')).toEqual(['SHOW-D', 'SHOW-C', 'SHOW-B', 'SHOW-A']);
    expect(await refs('?code=EARLY')).toEqual(['SHOW-E']);
    expect(await refs('?from=2026-11-02&to=2026-11-02')).toEqual(['SHOW-A']);
    expect(await refs('?from=2026-11-03')).toEqual(['SHOW-E', 'SHOW-D', 'SHOW-C', 'SHOW-B']);
  });

  it('refuses what it cannot mean with 422 validation_failed, and needs orders.view', async () => {
    for (const q of ['?status=lost', '?from=2026-13-01', '?from=2026-11-05&to=2026-11-01', '?kind=tickets']) {
      const res = await csv(q);
      expect(res.statusCode, q).toBe(422);
      expect(res.json().error.code).toBe('validation_failed');
    }
    expect((await csv('', acct.tokens.view)).statusCode).toBe(403);
    expect((await csv('', acct.tokens.none)).statusCode).toBe(403);
    expect((await t.call(acct.tokens.orders, { method: 'GET', url: '/api/v1/events/nope/orders.csv' })).statusCode).toBe(404);
  });

  it('walks every order exactly once across batches, also when orders share a creation time', async () => {
    const event = await t.ctx.db
      .selectFrom('events')
      .select(['id', 'timezone'])
      .where('slug', '=', 'show')
      .executeTakeFirstOrThrow();
    const account = await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', 'csv').executeTakeFirstOrThrow();
    const seen: string[] = [];
    for await (const batch of eachOrderBatch(
      t.ctx.db,
      account.id,
      { id: event.id, timezone: event.timezone },
      parseOrderFilter({}),
      2,
    )) {
      expect(batch.length).toBeLessThanOrEqual(2);
      seen.push(...batch.map((o) => o.ref));
    }
    expect(seen).toEqual(['SHOW-E', 'SHOW-D', 'SHOW-C', 'SHOW-B', 'SHOW-A']);
  });
});
