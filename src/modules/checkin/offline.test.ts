import { createHash } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let listId: number;
let vipListId: number;

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'door',
      events: [
        makeEvent({
          slug: 'fest',
          ticket_types: [
            { key: 'ga', name: 'General admission', price: 2500, capacity: 500 },
            { key: 'vip', name: 'VIP', price: 5000, capacity: 50 },
          ],
          checkin_lists: [
            { key: 'main', name: 'Main' },
            { key: 'vip', name: 'VIP door', ticket_types: ['vip'] },
          ],
          orders: [
            ...Array.from({ length: 12 }, (_, i) =>
              makeOrder({
                ref: `FEST-${i}`,
                lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 2500, attendees: [`Guest ${i}`] }],
              }),
            ),
            makeOrder({
              ref: 'FEST-VIP',
              name: 'Vera Buyer',
              lines: [{ kind: 'tickets', ref: 'vip', quantity: 1, unit_price: 5000 }],
            }),
            makeOrder({ ref: 'FEST-PEND', status: 'pending', paid_at: undefined, payments: [] }),
          ],
        }),
      ],
    }),
  );
  const lists = await t.ctx.db.selectFrom('checkin_lists').select(['id', 'key']).execute();
  listId = Number(lists.find((l) => l.key === 'main')!.id);
  vipListId = Number(lists.find((l) => l.key === 'vip')!.id);
});
afterAll(() => t.close());

interface SyncTicket {
  id: number;
  reference: string;
  attendee_name: string;
  qr_sha256: string;
  status: string;
  checked_in_at: string | null;
  ticket_type_slug: string;
}
const base = (id = listId) => `/door/fest/checkin_lists/${id}`;
const sync = async (cursor?: string, limit?: number, id = listId) => {
  const qs = new URLSearchParams();
  if (cursor) qs.set('cursor', cursor);
  if (limit) qs.set('limit', String(limit));
  const res = await t.call(acct.tokens.all, { method: 'GET', url: `${base(id)}/sync?${qs}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { tickets: SyncTicket[]; next_cursor: string; has_more: boolean };
};
/** Follows the cursor to the end, applying every page to `state`; answers the last cursor. */
const follow = async (state: Map<number, SyncTicket>, cursor?: string, limit = 5) => {
  for (;;) {
    const page = await sync(cursor, limit);
    for (const tk of page.tickets) state.set(tk.id, tk);
    cursor = page.next_cursor;
    if (!page.has_more) return cursor;
  }
};
const upload = (device: string, checkins: unknown[]) =>
  t.call(acct.tokens.all, {
    method: 'POST',
    url: `${base()}/checkins/batch`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ device, checkins }),
  });
const ticket = async (ref: string) =>
  t.ctx.db
    .selectFrom('tickets as t')
    .innerJoin('orders as o', 'o.id', 't.order_id')
    .select(['t.id', 't.qr_token', 't.ref'])
    .where('o.ref', '=', ref)
    .executeTakeFirstOrThrow();

describe('sync', () => {
  it('hands out the whole list in pages, with hashed QR codes and void tickets, then nothing new', async () => {
    const state = new Map<number, SyncTicket>();
    const cursor = await follow(state, undefined, 4);
    const all = await t.ctx.db.selectFrom('tickets').select('id').execute();
    expect(state.size).toBe(all.length);
    const first = await ticket('FEST-0');
    const synced = state.get(Number(first.id))!;
    expect(synced).toMatchObject({ reference: first.ref, attendee_name: 'Guest 0', status: 'valid', checked_in_at: null });
    expect(synced.qr_sha256).toBe(createHash('sha256').update(first.qr_token).digest('hex'));
    expect(JSON.stringify([...state.values()])).not.toContain(first.qr_token);
    // a ticket without an attendee's name shows its buyer's
    const vip = await ticket('FEST-VIP');
    expect(state.get(Number(vip.id))).toMatchObject({ attendee_name: 'Vera Buyer', status: 'valid' });
    expect((await sync(cursor)).tickets).toEqual([]);
    // a list of some types only
    expect((await sync(undefined, 100, vipListId)).tickets.map((x) => x.ticket_type_slug)).toEqual(['vip']);
  });

  it('after a cursor: only the tickets that changed (check-in, cancel, rename), each once', async () => {
    const state = new Map<number, SyncTicket>();
    const cursor = await follow(state);
    const a = await ticket('FEST-1');
    const b = await ticket('FEST-2');
    const c = await ticket('FEST-3');
    const online = await t.call(acct.tokens.all, { method: 'POST', url: `${base()}/tickets/${a.qr_token}/checkins` });
    expect(online.statusCode, online.body).toBe(200);
    const cancel = await t.call(acct.tokens.all, {
      method: 'POST',
      url: '/api/v1/orders/FEST-2/refund',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(cancel.statusCode, cancel.body).toBeLessThan(300);
    await t.ctx.db.updateTable('tickets').set({ attendee_name: 'Renamed' }).where('id', '=', c.id).execute();
    const delta = await sync(cursor, 100);
    expect(delta.tickets.map((x) => x.id).sort()).toEqual([a.id, b.id, c.id].map(Number).sort());
    const byId = new Map(delta.tickets.map((x) => [x.id, x]));
    expect(byId.get(Number(a.id))!.checked_in_at).not.toBeNull();
    expect(byId.get(Number(b.id))!.status).toBe('void');
    expect(byId.get(Number(c.id))!.attendee_name).toBe('Renamed');
  });

  it('refuses a cursor it did not give out', async () => {
    for (const bad of ['nope', 'MTIz', Buffer.from('1.x').toString('base64url')]) {
      const res = await t.call(acct.tokens.all, { method: 'GET', url: `${base()}/sync?cursor=${bad}` });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('validation_failed');
    }
  });

  it('loses nothing whatever changes land between pages (property)', async () => {
    const refs = Array.from({ length: 12 }, (_, i) => `FEST-${i}`);
    const all = await Promise.all(refs.map(ticket));
    const op = fc.oneof(
      fc.record({ kind: fc.constant('rename' as const), i: fc.nat(11), name: fc.string({ maxLength: 8 }) }),
      fc.record({ kind: fc.constant('void' as const), i: fc.nat(11) }),
      fc.record({ kind: fc.constant('revive' as const), i: fc.nat(11) }),
      fc.record({ kind: fc.constant('page' as const), limit: fc.integer({ min: 1, max: 6 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        const state = new Map<number, SyncTicket>();
        let cursor: string | undefined;
        for (const o of ops) {
          if (o.kind === 'page') {
            const page = await sync(cursor, o.limit);
            for (const tk of page.tickets) state.set(tk.id, tk);
            cursor = page.next_cursor;
          } else {
            const id = all[o.i]!.id;
            const set =
              o.kind === 'rename'
                ? { attendee_name: o.name }
                : { status: o.kind === 'void' ? ('voided' as const) : ('valid' as const) };
            await t.ctx.db.updateTable('tickets').set(set).where('id', '=', id).execute();
          }
        }
        // the last page has room for everything: nothing left in a tail beyond slower transactions
        await follow(state, cursor, 100);
        const fresh = new Map<number, SyncTicket>();
        await follow(fresh, undefined, 50);
        expect([...state.entries()].sort((x, y) => x[0] - y[0])).toEqual([...fresh.entries()].sort((x, y) => x[0] - y[0]));
      }),
      { numRuns: 25, seed: 19 },
    );
    await t.ctx.db
      .updateTable('tickets')
      .set({ status: 'valid' })
      .where(
        'id',
        'in',
        all.map((x) => x.id),
      )
      .where(
        'order_id',
        'in',
        (await t.ctx.db.selectFrom('orders').select('id').where('status', '=', 'paid').execute()).map((o) => o.id),
      )
      .execute();
  });
});

describe.runIf(process.env.DATABASE_URL)('sync with transactions committing out of order (PostgreSQL)', () => {
  it('a change committed after a later one is still handed out after the cursor', async () => {
    const state = new Map<number, SyncTicket>();
    let cursor = await follow(state, undefined, 50);
    const slow = await ticket('FEST-4');
    const quick = await ticket('FEST-5');
    const client = new pg.Client({ connectionString: t.ctx.config.databaseUrl! });
    await client.connect();
    try {
      // the slow transaction takes its transaction id first, then the quick one commits
      await client.query('begin');
      await client.query(`update tickets set attendee_name = 'Slow' where id = $1`, [slow.id]);
      await t.ctx.db.updateTable('tickets').set({ attendee_name: 'Quick' }).where('id', '=', quick.id).execute();
      const during = await sync(cursor, 50);
      // the quick change is handed out at once, but the cursor does not move past the slow one
      expect(during.tickets.map((x) => x.attendee_name)).toContain('Quick');
      expect(during.tickets.map((x) => x.attendee_name)).not.toContain('Slow');
      for (const tk of during.tickets) state.set(tk.id, tk);
      cursor = during.next_cursor;
      await client.query('commit');
      cursor = await follow(state, cursor, 50);
      expect(state.get(Number(slow.id))!.attendee_name).toBe('Slow');
      expect(state.get(Number(quick.id))!.attendee_name).toBe('Quick');
    } finally {
      await client.end();
    }
  });
});

describe.runIf(process.env.DATABASE_URL)('sync under concurrent writers (PostgreSQL)', () => {
  it('a scanner paging while transactions of every length commit in any order ends with every change (property)', async () => {
    const all = await Promise.all(Array.from({ length: 12 }, (_, i) => ticket(`FEST-${i}`)));
    const pool = new pg.Pool({ connectionString: t.ctx.config.databaseUrl!, max: 6 });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              ids: fc.uniqueArray(fc.nat(11), { minLength: 1, maxLength: 3 }),
              hold: fc.nat(15),
              name: fc.string({ maxLength: 6 }),
            }),
            { minLength: 5, maxLength: 30 },
          ),
          fc.integer({ min: 1, max: 4 }),
          async (writes, limit) => {
            const state = new Map<number, SyncTicket>();
            let cursor: string | undefined;
            let writing = true;
            const writer = async (slice: typeof writes) => {
              for (const w of slice) {
                const c = await pool.connect();
                try {
                  await c.query('begin');
                  // in id order, as the service locks tickets: writers never deadlock one another
                  for (const id of w.ids.map((i) => Number(all[i]!.id)).sort((x, y) => x - y))
                    await c.query('update tickets set attendee_name = $1 where id = $2', [w.name, id]);
                  await new Promise((r) => setTimeout(r, w.hold));
                  await c.query('commit');
                } catch (err) {
                  await c.query('rollback');
                  throw err;
                } finally {
                  c.release();
                }
              }
            };
            const reader = async () => {
              while (writing) {
                const page = await sync(cursor, limit);
                for (const tk of page.tickets) state.set(tk.id, tk);
                cursor = page.next_cursor;
              }
            };
            const readerDone = reader();
            try {
              await Promise.all([0, 1, 2, 3].map((k) => writer(writes.filter((_, j) => j % 4 === k))));
            } finally {
              writing = false;
              await readerDone;
            }
            await follow(state, cursor, 100);
            const fresh = new Map<number, SyncTicket>();
            await follow(fresh, undefined, 100);
            expect([...state.entries()].sort((x, y) => x[0] - y[0])).toEqual([...fresh.entries()].sort((x, y) => x[0] - y[0]));
          },
        ),
        { numRuns: 15, seed: 1919 },
      );
    } finally {
      await pool.end();
    }
  });
});

describe('batch upload', () => {
  it('is idempotent per device and client_id, keeps each scan time, and admits the earliest of two devices', async () => {
    const x = await ticket('FEST-6');
    const y = await ticket('FEST-7');
    const listBefore = await t.ctx.db
      .selectFrom('checkin_lists')
      .select('checked_in_count')
      .where('id', '=', listId)
      .executeTakeFirstOrThrow();
    const a1 = await upload('door-a', [
      { client_id: 'a-1', qr_code_identifier: x.qr_token, scanned_at: '2026-11-22T11:00:00Z' },
      { client_id: 'a-2', qr_code_identifier: 'not-a-ticket', scanned_at: '2026-11-22T11:00:05Z' },
    ]);
    expect(a1.statusCode, a1.body).toBe(200);
    expect(a1.json().results).toEqual([
      {
        client_id: 'a-1',
        result: 'recorded',
        checkin_id: expect.any(Number),
        conflict: false,
        reason: null,
        first_checked_in_at: '2026-11-22T11:00:00Z',
      },
      { client_id: 'a-2', result: 'unknown_ticket', checkin_id: null, conflict: false, reason: null, first_checked_in_at: null },
    ]);
    // the same upload again: nothing new
    const again = await upload('door-a', [
      { client_id: 'a-1', qr_code_identifier: x.qr_token, scanned_at: '2026-11-22T11:00:00Z' },
    ]);
    expect(again.json().results[0]).toMatchObject({
      result: 'duplicate_upload',
      checkin_id: a1.json().results[0].checkin_id,
      conflict: false,
    });
    // another device scanned the same ticket a minute later, offline too: recorded, flagged
    const b1 = await upload('door-b', [
      { client_id: 'b-1', ticket_id: Number(x.id), scanned_at: '2026-11-22T11:01:00Z' },
      { client_id: 'b-2', qr_code_identifier: y.qr_token, scanned_at: '2026-11-22T11:02:00Z' },
    ]);
    expect(b1.json().results).toEqual([
      expect.objectContaining({
        client_id: 'b-1',
        result: 'recorded',
        conflict: true,
        reason: 'already_checked_in',
        first_checked_in_at: '2026-11-22T11:00:00Z',
      }),
      expect.objectContaining({ client_id: 'b-2', result: 'recorded', conflict: false }),
    ]);
    // a late upload of an even earlier scan of y: it keeps its time and becomes the admission
    const late = await upload('door-c', [
      { client_id: 'c-1', qr_code_identifier: y.qr_token, scanned_at: '2026-11-22T10:30:00Z' },
    ]);
    expect(late.json().results[0]).toMatchObject({ conflict: false, first_checked_in_at: '2026-11-22T10:30:00Z' });
    const rows = await t.ctx.db
      .selectFrom('checkins')
      .select(['ticket_id', 'device', 'client_id', 'created_at', 'conflict', 'reason', 'online'])
      .where('ticket_id', 'in', [x.id, y.id])
      .orderBy('created_at')
      .execute();
    expect(rows.map((r) => [r.client_id, r.created_at.toISOString(), r.conflict, r.reason, r.online])).toEqual([
      ['c-1', '2026-11-22T10:30:00.000Z', false, null, false],
      ['a-1', '2026-11-22T11:00:00.000Z', false, null, false],
      ['b-1', '2026-11-22T11:01:00.000Z', true, 'already_checked_in', false],
      ['b-2', '2026-11-22T11:02:00.000Z', true, 'already_checked_in', false],
    ]);
    // tickets counted, not scans
    const listAfter = await t.ctx.db
      .selectFrom('checkin_lists')
      .select('checked_in_count')
      .where('id', '=', listId)
      .executeTakeFirstOrThrow();
    expect(listAfter.checked_in_count - listBefore.checked_in_count).toBe(2);
    // the online endpoint keeps its 409 for an admitted ticket
    const online = await t.call(acct.tokens.all, { method: 'POST', url: `${base()}/tickets/${y.qr_token}/checkins` });
    expect(online.statusCode).toBe(409);
    expect(online.json().error.created_at).toBe('2026-11-22T10:30:00Z');
    // the list's check-ins show the offline scans
    const listed = await t.call(acct.tokens.all, { method: 'GET', url: `${base()}/checkins?per_page=100` });
    expect(listed.json().checkins.filter((c: { online: boolean }) => !c.online).length).toBeGreaterThanOrEqual(4);
  });

  it('two devices uploading and a door scanning online at once: every scan kept, exactly one admission', async () => {
    const tk = await ticket('FEST-11');
    const scan = (device: string, at: string) =>
      upload(device, [{ client_id: `${device}-race`, qr_code_identifier: tk.qr_token, scanned_at: at }]);
    const [a, b, online] = await Promise.all([
      scan('race-a', '2026-11-22T11:59:01Z'),
      scan('race-b', '2026-11-22T11:59:02Z'),
      t.call(acct.tokens.all, { method: 'POST', url: `${base()}/tickets/${tk.qr_token}/checkins` }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect([200, 409]).toContain(online.statusCode);
    const rows = await t.ctx.db
      .selectFrom('checkins')
      .select(['conflict', 'created_at'])
      .where('ticket_id', '=', tk.id)
      .execute();
    expect(rows.length).toBe(online.statusCode === 200 ? 3 : 2);
    const admissions = rows.filter((r) => !r.conflict);
    expect(admissions.length).toBe(1);
    // the earliest scan is the admission (the offline scans are from before the online one)
    expect(admissions[0]!.created_at.toISOString()).toBe('2026-11-22T11:59:01.000Z');
  });

  it('records a scan of a ticket that cannot be admitted as a conflict', async () => {
    const voided = await ticket('FEST-10');
    await t.ctx.db.updateTable('tickets').set({ status: 'voided' }).where('id', '=', voided.id).execute();
    const vipOnMain = await ticket('FEST-VIP');
    const res = await t.call(acct.tokens.all, {
      method: 'POST',
      url: `${base(vipListId)}/checkins/batch`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        device: 'door-v',
        checkins: [
          { client_id: 'v-1', qr_code_identifier: voided.qr_token, scanned_at: '2026-11-22T11:00:00Z' },
          { client_id: 'v-2', qr_code_identifier: vipOnMain.qr_token, scanned_at: '2026-11-22T11:00:00Z' },
          { client_id: 'v-3', qr_code_identifier: (await ticket('FEST-8')).qr_token, scanned_at: '2026-11-22T11:00:00Z' },
        ],
      }),
    });
    expect(res.json().results.map((r: { conflict: boolean; reason: string | null }) => [r.conflict, r.reason])).toEqual([
      [true, 'not_checkable'],
      [false, null],
      [true, 'not_checkable'],
    ]);
  });

  it('refuses bad input whole, writing nothing', async () => {
    const before = await sql<{ n: number }>`select count(*)::int n from checkins`.execute(t.ctx.db);
    const tk = await ticket('FEST-9');
    for (const checkins of [
      [{ client_id: 'z-1', qr_code_identifier: tk.qr_token, scanned_at: 'yesterday' }],
      [{ client_id: 'z-1', qr_code_identifier: tk.qr_token, scanned_at: '2099-01-01T00:00:00Z' }],
      [{ client_id: 'z-1', scanned_at: '2026-11-22T11:00:00Z' }],
      [{ client_id: 'z-1', qr_code_identifier: tk.qr_token, ticket_id: 1, scanned_at: '2026-11-22T11:00:00Z' }],
      [],
      [{ client_id: '', qr_code_identifier: tk.qr_token, scanned_at: '2026-11-22T11:00:00Z' }],
    ]) {
      const res = await upload('door-z', checkins);
      expect(res.statusCode, JSON.stringify(checkins)).toBe(422);
      expect(res.json().error.code).toBe('validation_failed');
    }
    const after = await sql<{ n: number }>`select count(*)::int n from checkins`.execute(t.ctx.db);
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });
});
