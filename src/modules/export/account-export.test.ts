import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { ConsoleClient } from '../../../test/console-client.ts';
import { AppError } from '../../platform/errors.ts';
import { parseAccountFile } from '../events/account-file.schemas.ts';
import { importAccount } from '../import/import.service.ts';
import { exportAccount } from './account-export.service.ts';

// Export -> import into an empty instance -> the same reads: orders, money, availability, the
// door's state, sign-ins and tokens (contract section 16).

const demo = JSON.parse(fs.readFileSync(new URL('../../../demo/demo-account.json', import.meta.url), 'utf8'));
const SLUG = demo.account.slug as string;
const TOKEN = demo.tokens[0].secret as string;
const OWNER = demo.users[0] as { email: string; password: string };
const EVENTS = (demo.events as Array<{ slug: string }>).map((e) => e.slug);

let a: TestApp;
let b: TestApp;
let exported = '';

async function exportText(t: TestApp, slug: string): Promise<string> {
  let out = '';
  await exportAccount(t.ctx, slug, (chunk) => {
    out += chunk;
  });
  return out;
}

/** What an integration reads of an event, without what a new instance numbers afresh (row ids). */
async function reads(t: TestApp, event: string) {
  const get = async (url: string) => {
    const res = await t.call(TOKEN, { method: 'GET', url });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json() as Record<string, unknown>;
  };
  const orders = (await get(`/api/v1/events/${event}/orders?limit=100`)).orders as Array<Record<string, unknown>>;
  return {
    orders: orders
      .map(({ items: _items, item_answers: _ia, lines, ...o }) => ({
        ...o,
        // a line whose tickets were admitted differently travels as one line per run (see the export)
        lines: merged(lines as Array<Record<string, number | string>>),
      }))
      .sort((x, y) => String((x as { ref?: string }).ref).localeCompare(String((y as { ref?: string }).ref))),
    income: await get(`/api/v1/events/${event}/income`),
    report: await get(`/api/v1/events/${event}/report`),
    availability: await get(`/api/v1/events/${event}/availability`),
  };
}

function merged(lines: Array<Record<string, number | string>>) {
  const by = new Map<string, Record<string, number | string>>();
  for (const l of lines) {
    const key = `${l.kind}|${l.name}|${l.unit_price_cents}|${l.tax_rate_bp}`;
    const m = by.get(key);
    if (!m) by.set(key, { ...l });
    else for (const f of ['quantity', 'total_cents', 'tax_cents']) m[f] = Number(m[f]) + Number(l[f]);
  }
  return [...by.values()];
}

async function admissions(t: TestApp) {
  const rows = await t.ctx.db
    .selectFrom('checkins as c')
    .innerJoin('tickets as tk', 'tk.id', 'c.ticket_id')
    .innerJoin('checkin_lists as cl', 'cl.id', 'c.checkin_list_id')
    .select(['tk.ref', 'cl.key'])
    .where('c.conflict', '=', false)
    .execute();
  return rows.map((r) => `${r.ref}@${r.key}`).sort();
}

beforeAll(async () => {
  a = await createTestApp({ now: '2026-11-20T12:00:00Z' });
  b = await createTestApp({ now: '2026-11-20T12:00:00Z' });
  await importAccount(a.ctx, structuredClone(demo));
  // live activity on the source: one of three day tickets admitted at the gate, an order refunded
  const list = await a.ctx.db.selectFrom('checkin_lists').select(['id']).where('key', '=', 'gate').executeTakeFirstOrThrow();
  const ticket = await a.ctx.db.selectFrom('tickets').select(['id']).where('ref', '=', 'LAC-1002-2').executeTakeFirstOrThrow();
  const scan = await a.call(TOKEN, {
    method: 'POST',
    url: `/${SLUG}/${EVENTS[0]}/checkin_lists/${list.id}/checkins/batch`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({
      device: 'gate-1',
      checkins: [{ client_id: 'c1', scanned_at: '2026-11-20T11:59:00Z', ticket_id: Number(ticket.id) }],
    }),
  });
  expect(scan.statusCode, scan.body).toBe(200);
  const refund = await a.call(TOKEN, {
    method: 'POST',
    url: '/api/v1/orders/LAC-1004/refund',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'export-test-refund' },
    payload: '{}',
  });
  expect(refund.statusCode, refund.body).toBeLessThan(300);
  exported = await exportText(a, SLUG);
  await importAccount(b.ctx, JSON.parse(exported));
}, 240_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
});

describe('admit export', () => {
  it('writes an account file the importer accepts, with tokens and people as hashes only', () => {
    const file = parseAccountFile(JSON.parse(exported));
    expect(file.account.slug).toBe(SLUG);
    expect(exported).not.toContain(TOKEN);
    expect(exported).not.toContain(OWNER.password);
    expect(file.tokens![0]!.secret_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(file.users![0]!.password_hash).toMatch(/^scrypt\$/);
    expect(file.events!.map((e) => e.orders?.length ?? 0)).toEqual(
      demo.events.map((e: { orders?: unknown[] }) => e.orders?.length ?? 0),
    );
  });

  it('gives the same orders, money, availability and report in the new instance', async () => {
    for (const event of EVENTS) expect(await reads(b, event)).toEqual(await reads(a, event));
  });

  it('keeps who was admitted where, ticket by ticket', async () => {
    const before = await admissions(a);
    expect(before).toContain('LAC-1002-2@gate');
    expect(before).not.toContain('LAC-1002-1@gate');
    expect(await admissions(b)).toEqual(before);
  });

  it('lets the same token and the same console password in', async () => {
    expect((await b.call(TOKEN, { method: 'GET', url: '/api/v1/account' })).statusCode).toBe(200);
    const c = new ConsoleClient(b.app);
    expect((await c.signIn(OWNER.email, OWNER.password)).statusCode).toBe(303);
    const wrong = new ConsoleClient(b.app);
    expect((await wrong.signIn(OWNER.email, 'not the password at all')).statusCode).not.toBe(303);
  });

  it('exports again what it imported, byte for byte', async () => {
    expect(await exportText(b, SLUG)).toBe(exported);
  });

  it('refuses an unknown account and a person whose hash would make sign-ins costly', async () => {
    await expect(exportText(a, 'no-such-account')).rejects.toBeInstanceOf(AppError);
    const file = JSON.parse(exported);
    file.account.slug = 'costly';
    file.tokens = [];
    for (const e of file.events) e.orders = [];
    file.users[0].password_hash = 'scrypt$1073741824$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const err = await importAccount(b.ctx, file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(await b.ctx.db.selectFrom('accounts').select('id').where('slug', '=', 'costly').executeTakeFirst()).toBeUndefined();
  });
});
