import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { validateCii } from '../invoices/cii-xsd.fixture.ts';
import { documentXml } from '../invoices/invoices.service.ts';
import type { InvoiceContent } from '../orders/invoice-register.repo.ts';

/**
 * "Need an invoice?" on the order page (contract section 14: a free order's invoice only on
 * request; also an order paid before the account issued invoices), and its attacks.
 */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let biz: Awaited<ReturnType<typeof seedAccount>>;
let ids: Record<string, number>;

const issuer = { name: 'Verein e.V.', address: 'Hauptstr. 1\n10115 Berlin', country: 'DE', vat_id: 'DE123456789' };
const address = {
  inv_name: 'Ada Lovelace',
  inv_street: '1 rue de Rivoli',
  inv_postcode: '75001',
  inv_city: 'Paris',
  inv_country: 'fr',
};

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  const account = (slug: string, business_only: boolean, events: ReturnType<typeof makeEvent>[]) =>
    makeAccountFile({
      slug,
      account: {
        slug,
        name: slug,
        payments: { mode: 'sandbox' },
        invoicing: { enabled: true, issuer, number_prefix: 'RE', ...(business_only ? { business_only } : {}) },
      },
      events,
    });
  a = await seedAccount(
    t.ctx,
    account('verein', false, [
      makeEvent({
        slug: 'talk',
        ticket_types: [
          { key: 'free', name: 'Free seat', price: 0, capacity: 100 },
          { key: 'paid', name: 'Supporter', price: 1190, capacity: 100, tax_rate_bp: 1900 },
        ],
      }),
    ]),
  );
  biz = await seedAccount(
    t.ctx,
    account('bizonly', true, [
      makeEvent({ slug: 'b2b', ticket_types: [{ key: 'bfree', name: 'Guest', price: 0, capacity: 10 }] }),
    ]),
  );
  const tt = await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).execute();
  ids = Object.fromEntries(tt.map((r) => [r.key, r.id]));
});
afterAll(() => t.close());

const csrfOf = (body: string, action: string) =>
  new RegExp(`action="${action.replace(/[/.]/g, '\\$&')}">\\s*<input type="hidden" name="csrf" value="([^"]+)"`).exec(
    body,
  )?.[1] ?? '';

async function order(token: string, event: string, key: string) {
  const res = await t.call(token, {
    method: 'POST',
    url: `/api/v1/events/${event}/orders`,
    payload: { items: [{ ticket_type_id: ids[key]!, quantity: 1 }], email: 'ada@example.org', name: 'Ada' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const { ref } = res.json() as { ref: string };
  const row = await t.ctx.db
    .selectFrom('orders')
    .select(['access_secret', 'id'])
    .where('ref', '=', ref)
    .executeTakeFirstOrThrow();
  return { ref, secret: row.access_secret, id: row.id };
}

const invoicesOf = (orderId: number) =>
  t.ctx.db.selectFrom('invoices').selectAll().where('order_id', '=', orderId).orderBy('id').execute();

async function ask(secret: string, form: Record<string, string>) {
  const page = await t.app.inject({ method: 'GET', url: `/o/${secret}` });
  const csrf = csrfOf(page.body, `/o/${secret}/invoice`);
  return t.app.inject({ method: 'POST', url: `/o/${secret}/invoice`, payload: { csrf, ...form } });
}

describe('an invoice on request', () => {
  it('a free order gets none at once; its page offers one, and the request numbers it with the address given', async () => {
    const o = await order(a.tokens.all, 'talk', 'free');
    expect(await invoicesOf(o.id)).toEqual([]);
    const page = await t.app.inject({ method: 'GET', url: `/o/${o.secret}` });
    expect(page.body).toContain('Need an invoice?');

    // a refused address marks its fields, keeps what was typed, and issues nothing
    const bad = await ask(o.secret, { ...address, inv_country: 'XX', inv_city: '' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('Enter the two-letter code of a country');
    expect(bad.body).toContain('value="1 rue de Rivoli"');
    expect(bad.body).toContain('<details open>');
    expect(await invoicesOf(o.id)).toEqual([]);

    const ok = await ask(o.secret, { ...address, inv_company: 'Acme SARL' });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe(`/o/${o.secret}`);
    const [inv, ...more] = await invoicesOf(o.id);
    expect(more).toEqual([]);
    expect(inv).toMatchObject({ kind: 'invoice', number: 'RE2026-1', total_cents: 0, vat_cents: 0 });
    expect((inv!.content as unknown as InvoiceContent).buyer.address).toMatchObject({ company: 'Acme SARL', country: 'FR' });
    await validateCii(documentXml(inv!));
    const after = await t.app.inject({ method: 'GET', url: `/o/${o.secret}` });
    expect(after.body).toContain(`<a href="/o/${o.secret}/invoices/RE2026-1.pdf">Invoice RE2026-1</a>`);
    expect(after.body).not.toContain('Need an invoice?');
    const log = await t.ctx.db.selectFrom('order_log').select(['action', 'data']).where('order_id', '=', o.id).execute();
    expect(log.map((l) => l.action)).toContain('invoice_requested');
  });

  it('an empty optional address gives an invoice in the order name; asking twice, even at once, gives one', async () => {
    const o = await order(a.tokens.all, 'talk', 'free');
    const page = await t.app.inject({ method: 'GET', url: `/o/${o.secret}` });
    const csrf = csrfOf(page.body, `/o/${o.secret}/invoice`);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => t.app.inject({ method: 'POST', url: `/o/${o.secret}/invoice`, payload: { csrf } })),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(Array(6).fill(303));
    const docs = await invoicesOf(o.id);
    expect(docs).toHaveLength(1);
    expect((docs[0]!.content as unknown as InvoiceContent).buyer).toMatchObject({ name: 'Ada', address: null });
  });

  it('a paid order with its invoice offers none; an address given after payment never turns charged VAT into reverse charge', async () => {
    const paid = await order(a.tokens.all, 'talk', 'paid');
    // pending: nothing to ask for
    expect((await t.app.inject({ method: 'GET', url: `/o/${paid.secret}` })).body).not.toContain('Need an invoice?');
    const pending = await t.app.inject({ method: 'POST', url: `/o/${paid.secret}/invoice`, payload: { csrf: 'x' } });
    expect(pending.statusCode).toBe(403);
    // an order paid before the account issued invoices: invoicing turned on afterwards
    await t.ctx.db.updateTable('accounts').set({ invoicing: null }).where('slug', '=', a.slug).execute();
    const payPage = await t.app.inject({ method: 'GET', url: `/pay/${paid.secret}` });
    const payCsrf = /name="csrf" value="([^"]+)"/.exec(payPage.body)?.[1] ?? '';
    expect((await t.app.inject({ method: 'POST', url: `/pay/${paid.secret}`, payload: { csrf: payCsrf } })).statusCode).toBe(303);
    expect(await invoicesOf(paid.id)).toEqual([]);
    await t.ctx.db
      .updateTable('accounts')
      .set({ invoicing: JSON.stringify({ enabled: true, issuer, number_prefix: 'RE' }) })
      .where('slug', '=', a.slug)
      .execute();
    const res = await ask(paid.secret, { ...address, inv_vat_id: 'FR12345678901' });
    expect(res.statusCode).toBe(303);
    const [inv] = await invoicesOf(paid.id);
    // paid gross with 19 % VAT: the invoice says so, whoever the address names
    expect(inv).toMatchObject({ total_cents: 1190, vat_cents: 190 });
    expect((inv!.content as unknown as InvoiceContent).reverse_charge).toBe(false);
    expect((await t.app.inject({ method: 'GET', url: `/o/${paid.secret}` })).body).not.toContain('Need an invoice?');
  });

  it('an account that invoices businesses only wants the address; attacks change nothing', async () => {
    const o = await order(biz.tokens.all, 'b2b', 'bfree');
    const empty = await ask(o.secret, {});
    expect(empty.statusCode).toBe(422);
    expect(empty.body).toContain('Fill this in');
    expect(await invoicesOf(o.id)).toEqual([]);
    // no CSRF token, another order's token, an unknown secret, an unknown field
    const other = await order(biz.tokens.all, 'b2b', 'bfree');
    const otherPage = await t.app.inject({ method: 'GET', url: `/o/${other.secret}` });
    const foreign = csrfOf(otherPage.body, `/o/${other.secret}/invoice`);
    expect((await t.app.inject({ method: 'POST', url: `/o/${o.secret}/invoice`, payload: address })).statusCode).toBe(403);
    expect(
      (await t.app.inject({ method: 'POST', url: `/o/${o.secret}/invoice`, payload: { csrf: foreign, ...address } })).statusCode,
    ).toBe(403);
    expect(
      (await t.app.inject({ method: 'POST', url: `/o/${'x'.repeat(40)}/invoice`, payload: { csrf: foreign, ...address } }))
        .statusCode,
    ).toBe(404);
    expect((await ask(o.secret, { ...address, inv_iban: 'DE00' })).statusCode).toBe(400);
    expect(await invoicesOf(o.id)).toEqual([]);
    expect(await invoicesOf(other.id)).toEqual([]);
    const ok = await ask(o.secret, address);
    expect(ok.statusCode).toBe(303);
    expect(await invoicesOf(o.id)).toHaveLength(1);
  });
});
