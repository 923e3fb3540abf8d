import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { refundOrder } from '../refunds/refund-order.service.ts';
import type { InvoiceContent } from './invoice-register.repo.ts';
import { validateCii } from '../invoices/cii-xsd.fixture.ts';
import { documentXml } from '../invoices/invoices.service.ts';

/** Invoices and credit notes as paying and refunding issue them (contract section 14). */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;
let ids: Record<string, number>;

const issuer = { name: 'Konferenz GmbH', address: 'Hauptstr. 1\n10115 Berlin', country: 'DE', vat_id: 'DE 123 456 789' };
const address = {
  company: 'Acme SARL',
  name: 'Ada Lovelace',
  street: '1 rue de Rivoli',
  postcode: '75001',
  city: 'Paris',
  country: 'FR',
};

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'konf',
      account: {
        slug: 'konf',
        name: 'Konf',
        payments: { mode: 'sandbox' },
        invoicing: { enabled: true, issuer, number_prefix: 'RE' },
      },
      events: [
        makeEvent({
          slug: 'conf',
          ticket_types: [
            { key: 'day', name: 'Day', price: 1850, capacity: 500, tax_rate_bp: 1000 },
            { key: 'ws', name: 'Workshop', price: 11900, capacity: 500, tax_rate_bp: 1900 },
          ],
        }),
        makeEvent({
          slug: 'must',
          invoice_address: 'required',
          ticket_types: [{ key: 'm', name: 'M', price: 1000, capacity: 50, tax_rate_bp: 700 }],
        }),
        makeEvent({
          slug: 'none',
          invoice_address: 'off',
          ticket_types: [{ key: 'n', name: 'N', price: 1000, capacity: 50, tax_rate_bp: 700 }],
        }),
      ],
    }),
  );
  other = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'other',
      account: {
        slug: 'other',
        name: 'Other',
        payments: { mode: 'sandbox' },
        invoicing: { enabled: true, issuer, number_prefix: 'X-' },
      },
      events: [makeEvent({ slug: 'o', ticket_types: [{ key: 'o', name: 'O', price: 500, capacity: 50, tax_rate_bp: 700 }] })],
    }),
  );
  const tt = await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).execute();
  ids = Object.fromEntries(tt.map((r) => [r.key, r.id]));
});
afterAll(() => t.close());

const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

async function place(token: string, event: string, items: Array<[string, number]>, extra: Record<string, unknown> = {}) {
  return t.call(token, {
    method: 'POST',
    url: `/api/v1/events/${event}/orders`,
    payload: {
      items: items.map(([k, q]) => ({ ticket_type_id: ids[k]!, quantity: q })),
      email: 'b@example.org',
      name: 'Bea',
      ...extra,
    },
  });
}

async function pay(paymentUrl: string) {
  const path = new URL(paymentUrl).pathname;
  const page = await t.app.inject({ method: 'GET', url: path });
  const res = await t.app.inject({ method: 'POST', url: path, payload: { csrf: csrfOf(page.body) } });
  expect(res.statusCode).toBe(303);
}

async function docs(ref: string) {
  return t.ctx.db
    .selectFrom('invoices as i')
    .innerJoin('orders as o', 'o.id', 'i.order_id')
    .select([
      'i.number',
      'i.kind',
      'i.total_cents',
      'i.vat_cents',
      'i.content',
      'i.corrects_id',
      'i.id',
      'i.canceled_at',
      'i.locale',
    ])
    .where('o.ref', '=', ref)
    .orderBy('i.id')
    .execute();
}

async function paidOrder(items: Array<[string, number]>, extra: Record<string, unknown> = {}) {
  const res = await place(a.tokens.all, 'conf', items, extra);
  expect(res.statusCode, res.body).toBe(201);
  const o = res.json();
  await pay(o.payment_url);
  return o as { ref: string; total_cents: number };
}

describe('invoices', () => {
  it('a paid order gets an invoice numbered {prefix}{year}-{n}, one after the other; a pending one none', async () => {
    const pending = await place(a.tokens.all, 'conf', [['day', 1]]);
    expect(await docs(pending.json().ref)).toEqual([]);
    const one = await paidOrder([['day', 1]]);
    const two = await paidOrder([
      ['day', 2],
      ['ws', 1],
    ]);
    const [d1] = await docs(one.ref);
    const [d2] = await docs(two.ref);
    expect(d1).toMatchObject({ number: 'RE2026-1', kind: 'invoice', total_cents: 1850, vat_cents: 168 });
    expect(d2).toMatchObject({ number: 'RE2026-2', kind: 'invoice', total_cents: 3700 + 11900 });
    const c = d2!.content as unknown as InvoiceContent;
    expect(c.rates).toEqual([
      { rate_bp: 1000, gross_cents: 3700, net_cents: 3364, vat_cents: 336 },
      { rate_bp: 1900, gross_cents: 11900, net_cents: 10000, vat_cents: 1900 },
    ]);
    expect(c.net_cents + c.vat_cents).toBe(two.total_cents);
    // the issuer as stored: its VAT ID without spaces
    expect(c.issuer.vat_id).toBe('DE123456789');
    // another account counts on its own
    const o = await place(other.tokens.all, 'o', [['o', 1]]);
    await pay(o.json().payment_url);
    expect((await docs(o.json().ref))[0]).toMatchObject({ number: 'X-2026-1' });
  });

  it('keeps the invoice address; a French business with a VAT ID buying from a German issuer pays net, reverse charge', async () => {
    const o = await paidOrder(
      [
        ['ws', 1],
        ['day', 3],
      ],
      { invoice_address: { ...address, vat_id: 'fr 12 345678901' } },
    );
    // 119.00 incl. 19 % is 100.00 net; 18.50 incl. 10 % is 16.82 net a unit (18.50 - 1.68), three of them 50.46
    expect(o.total_cents).toBe(10000 + 3 * 1682);
    const read = (
      await t.app.inject({ method: 'GET', url: `/api/v1/orders/${o.ref}`, headers: { authorization: `Bearer ${a.tokens.all}` } })
    ).json();
    expect(read.total_cents).toBe(15046);
    expect(read.lines.map((l: { unit_price_cents: number; tax_cents: number }) => [l.unit_price_cents, l.tax_cents])).toEqual([
      [10000, 0],
      [1682, 0],
    ]);
    const [d] = await docs(o.ref);
    const c = d!.content as unknown as InvoiceContent;
    expect(c.buyer.address).toEqual({ ...address, vat_id: 'FR12345678901' });
    expect(c.reverse_charge).toBe(true);
    expect(d).toMatchObject({ total_cents: 15046, vat_cents: 0 });
    expect(c.rates).toEqual([{ rate_bp: 0, gross_cents: 15046, net_cents: 15046, vat_cents: 0 }]);
    // without a VAT ID, or in the issuer's own country: VAT as usual
    const b2c = await paidOrder([['ws', 1]], { invoice_address: address });
    expect((await docs(b2c.ref))[0]).toMatchObject({ vat_cents: 1900 });
    const home = await paidOrder([['ws', 1]], { invoice_address: { ...address, country: 'DE', vat_id: 'DE999999999' } });
    expect((await docs(home.ref))[0]).toMatchObject({ vat_cents: 1900 });
    // outside the EU: no reverse charge here either (an export: the issuer's adviser decides)
    const swiss = await paidOrder([['ws', 1]], {
      invoice_address: { ...address, country: 'CH', vat_id: 'CHE-123.456.789 MWST' },
    });
    expect((await docs(swiss.ref))[0]).toMatchObject({ vat_cents: 1900 });
  });

  it('refuses a bad address with the field named, and changes nothing', async () => {
    const before = await t.ctx.db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const bad = [
      [{ ...address, vat_id: 'DE123' }, 'invoice_address.vat_id'],
      [{ ...address, country: 'XX' }, 'invoice_address.country'],
      [{ ...address, city: '  ' }, 'invoice_address.city'],
    ] as const;
    for (const [addr, field] of bad) {
      const res = await place(a.tokens.all, 'conf', [['day', 1]], { invoice_address: addr });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('invalid_invoice_address');
      expect(JSON.stringify(res.json().error)).toContain(field);
    }
    const unknownKey = await place(a.tokens.all, 'conf', [['day', 1]], { invoice_address: { ...address, iban: 'x' } });
    expect(unknownKey.statusCode).toBe(422);
    const required = await place(a.tokens.all, 'must', [['m', 1]]);
    expect(required.statusCode).toBe(422);
    expect(required.json().error.code).toBe('invoice_address_required');
    const off = await place(a.tokens.all, 'none', [['n', 1]], { invoice_address: address });
    expect(off.statusCode).toBe(422);
    const after = await t.ctx.db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect((await place(a.tokens.all, 'must', [['m', 1]], { invoice_address: address })).statusCode).toBe(201);
  });

  it('a partial refund issues a partial credit note, the rest a second one; never more than the invoice', async () => {
    const o = await paidOrder([
      ['day', 1],
      ['ws', 1],
    ]);
    const order = await t.ctx.db
      .selectFrom('orders')
      .select(['id', 'account_id', 'ref'])
      .where('ref', '=', o.ref)
      .executeTakeFirstOrThrow();
    await refundOrder(t.ctx, order, { amount_cents: 1000 });
    let d = await docs(o.ref);
    expect(d.map((x) => x.kind)).toEqual(['invoice', 'credit_note']);
    const part = d[1]!;
    expect(part.corrects_id).toBe(d[0]!.id);
    expect(part.total_cents).toBe(1000);
    const pc = part.content as unknown as InvoiceContent;
    expect(pc.corrects?.number).toBe(d[0]!.number);
    // 10.00 over 18.50 @10 % and 119.00 @19 % by gross: 1.35 and 8.65
    expect(pc.rates.map((r) => [r.rate_bp, r.gross_cents])).toEqual([
      [1000, 135],
      [1900, 865],
    ]);
    expect(pc.net_cents + pc.vat_cents).toBe(1000);
    await refundOrder(t.ctx, order);
    d = await docs(o.ref);
    expect(d.map((x) => x.kind)).toEqual(['invoice', 'credit_note', 'credit_note']);
    expect(Number(d[1]!.total_cents) + Number(d[2]!.total_cents)).toBe(o.total_cents);
    const credits = d.slice(1).map((x) => x.content as unknown as InvoiceContent);
    const inv = d[0]!.content as unknown as InvoiceContent;
    expect(credits.reduce((s, c) => s + c.vat_cents, 0)).toBeGreaterThanOrEqual(inv.vat_cents - 1);
    // every number consecutive within the account's year
    const all = await t.ctx.db
      .selectFrom('invoices')
      .select(['sequence'])
      .where('account_id', '=', order.account_id)
      .orderBy('sequence')
      .execute();
    expect(all.map((r) => r.sequence)).toEqual(all.map((_, i) => i + 1));
  });

  it('a full refund mirrors the invoice in one credit note', async () => {
    const o = await paidOrder([['day', 1]]);
    const order = await t.ctx.db
      .selectFrom('orders')
      .select(['id', 'account_id', 'ref'])
      .where('ref', '=', o.ref)
      .executeTakeFirstOrThrow();
    await refundOrder(t.ctx, order);
    const d = await docs(o.ref);
    expect(d.map((x) => [x.kind, Number(x.total_cents), Number(x.vat_cents)])).toEqual([
      ['invoice', 1850, 168],
      ['credit_note', 1850, 168],
    ]);
  });

  it('an account without invoicing issues none', async () => {
    const plain = await seedAccount(t.ctx, makeAccountFile({ events: [makeEvent({ slug: 'plain' })] }));
    const tid = (
      await t.ctx.db
        .selectFrom('ticket_types as tt')
        .innerJoin('events as e', 'e.id', 'tt.event_id')
        .select('tt.id')
        .where('e.slug', '=', 'plain')
        .executeTakeFirstOrThrow()
    ).id;
    const res = await t.call(plain.tokens.all, {
      method: 'POST',
      url: '/api/v1/events/plain/orders',
      payload: { items: [{ ticket_type_id: tid, quantity: 1 }], email: 'x@example.org' },
    });
    await pay(res.json().payment_url);
    expect(await docs(res.json().ref)).toEqual([]);
  });

  it('the account file refuses an issuer whose VAT ID is not of its country, or an unknown country', async () => {
    const bad = makeAccountFile({
      account: {
        slug: 'badinv',
        name: 'B',
        invoicing: { enabled: true, issuer: { ...issuer, vat_id: 'FR12345678901' }, number_prefix: 'R' },
      },
    });
    await expect(seedAccount(t.ctx, bad)).rejects.toThrow(/issuer\.vat_id/);
    const country = makeAccountFile({
      account: {
        slug: 'badinv2',
        name: 'B',
        invoicing: { enabled: true, issuer: { ...issuer, country: 'QQ' }, number_prefix: 'R' },
      },
    });
    await expect(seedAccount(t.ctx, country)).rejects.toThrow(/issuer\.country/);
  });

  it('every document this file issued validates against the EN 16931 CII schema', async () => {
    const rows = await t.ctx.db.selectFrom('invoices').selectAll().execute();
    expect(rows.length).toBeGreaterThanOrEqual(10);
    await validateCii(rows.map((r) => documentXml(r)));
  });

  it('the event document shows invoice_address when set', async () => {
    const doc = await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/must/config' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json().invoice_address).toBe('required');
    const conf = await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/conf/config' });
    expect(conf.json().invoice_address).toBeUndefined();
  });
});

describe.runIf(process.env.DATABASE_URL)('numbers under concurrency on two instances', () => {
  it('pays many orders at once on two instances: consecutive numbers, none twice, none missing', async () => {
    const N = Number(process.env.INVOICE_RACE_N ?? 500);
    const second = await createTestApp({ sameDatabaseAs: t });
    try {
      const race = await seedAccount(
        t.ctx,
        makeAccountFile({
          slug: 'race',
          account: {
            slug: 'race',
            name: 'Race',
            payments: { mode: 'sandbox' },
            invoicing: { enabled: true, issuer, number_prefix: 'R' },
          },
          events: [
            makeEvent({ slug: 'race', ticket_types: [{ key: 'r', name: 'R', price: 1000, capacity: N, tax_rate_bp: 1900 }] }),
          ],
        }),
      );
      const tid = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'r').executeTakeFirstOrThrow()).id;
      const orders: string[] = [];
      for (let i = 0; i < N; i += 50) {
        const made = await Promise.all(
          Array.from({ length: Math.min(50, N - i) }, () =>
            t.call(race.tokens.all, {
              method: 'POST',
              url: '/api/v1/events/race/orders',
              payload: { items: [{ ticket_type_id: tid, quantity: 1 }] },
            }),
          ),
        );
        orders.push(...made.map((r) => r.json().payment_url as string));
      }
      // every payment races the others, half through each instance
      await Promise.all(
        orders.map(async (url, i) => {
          const app = i % 2 ? second : t;
          const path = new URL(url).pathname;
          const page = await app.app.inject({ method: 'GET', url: path });
          const res = await app.app.inject({ method: 'POST', url: path, payload: { csrf: csrfOf(page.body) } });
          expect(res.statusCode).toBe(303);
        }),
      );
      const rows = await t.ctx.db
        .selectFrom('invoices as i')
        .innerJoin('accounts as a', 'a.id', 'i.account_id')
        .select(['i.number', 'i.sequence'])
        .where('a.slug', '=', 'race')
        .orderBy('i.sequence')
        .execute();
      expect(rows.length).toBe(N);
      expect(rows.map((r) => r.sequence)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
      expect(new Set(rows.map((r) => r.number)).size).toBe(N);
      expect(rows[N - 1]!.number).toBe(`R2026-${N}`);
    } finally {
      await second.close();
    }
  });
});
