import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { ConsoleClient } from '../../../test/console-client.ts';
import { inGerman, leftoverEnglish } from '../../../test/console-german.ts';
import { PW } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { validateCii } from '../invoices/cii-xsd.fixture.ts';

/** The console's invoicing settings and an order's invoices: list, download, re-issue. */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
const owner = 'owner@example.org';
const manager = 'manager@example.org';
const viewerEmail = 'viewer@example.org';

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'invacct',
      users: [
        { email: owner, role: 'owner', password: PW },
        { email: manager, role: 'manager', password: PW },
        { email: viewerEmail, role: 'viewer', password: PW },
      ],
      events: [
        makeEvent({
          slug: 'gig',
          ticket_types: [
            { key: 'ga', name: 'General', price: 11900, capacity: 100, tax_rate_bp: 1900 },
            { key: 'guest', name: 'Guest', price: 0, capacity: 100 },
          ],
        }),
      ],
    }),
  );
  await seedAccount(
    t.ctx,
    makeAccountFile({ slug: 'elsewhere', users: [{ email: 'other@example.org', role: 'owner', password: PW }] }),
  );
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

async function signedIn(email: string, ip: string) {
  const c = new ConsoleClient(t.app);
  c.ip = ip;
  const res = await c.signIn(email, PW);
  expect(res.statusCode, res.body).toBe(303);
  return c;
}

const base = '/console/a/invacct';

async function paidOrder(extra: Record<string, unknown> = {}) {
  const tid = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'ga').executeTakeFirstOrThrow()).id;
  const res = await t.call(a.tokens.all, {
    method: 'POST',
    url: '/api/v1/events/gig/orders',
    payload: { items: [{ ticket_type_id: tid, quantity: 1 }], email: 'b@example.org', ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
  const path = new URL(res.json().payment_url).pathname;
  const page = await t.app.inject({ method: 'GET', url: path });
  await t.app.inject({ method: 'POST', url: path, payload: { csrf: /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '' } });
  return res.json().ref as string;
}

describe('console invoicing', () => {
  it('the owner turns invoicing on; bad issuer details are refused by field and change nothing', async () => {
    const c = await signedIn(owner, '10.8.0.1');
    const page = await c.get(`${base}/invoicing`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Issuer name');
    const bad = await c.post(`${base}/invoicing`, {
      enabled: '1',
      name: 'Gig GmbH',
      address: 'Weg 1\n10115 Berlin',
      country: 'DE',
      vat_id: 'DE12',
      number_prefix: 'G',
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('format of a VAT ID of DE');
    expect(
      (await t.ctx.db.selectFrom('accounts').select('invoicing').where('slug', '=', 'invacct').executeTakeFirstOrThrow())
        .invoicing,
    ).toBeNull();
    const ok = await c.post(`${base}/invoicing`, {
      enabled: '1',
      name: 'Gig GmbH',
      address: 'Weg 1\n10115 Berlin',
      country: 'de',
      vat_id: 'DE 123456789',
      number_prefix: 'G',
    });
    expect(ok.statusCode).toBe(303);
    const stored = (
      await t.ctx.db.selectFrom('accounts').select('invoicing').where('slug', '=', 'invacct').executeTakeFirstOrThrow()
    ).invoicing;
    expect(stored).toMatchObject({ enabled: true, number_prefix: 'G', issuer: { country: 'DE', vat_id: 'DE123456789' } });
  });

  it('only owners reach the settings (404 for others, as the console hides what a role may not use)', async () => {
    const m = await signedIn(manager, '10.8.0.2');
    expect((await m.get(`${base}/invoicing`)).statusCode).toBe(404);
    const o = await signedIn('other@example.org', '10.8.0.3');
    expect([403, 404]).toContain((await o.get(`${base}/invoicing`)).statusCode);
  });

  it("lists an order's invoice with downloads; re-issue after an address correction cancels it and numbers a new one", async () => {
    const ref = await paidOrder();
    const c = await signedIn(manager, '10.8.0.4');
    const list = await c.get(`${base}/events/gig/orders/${ref}/invoices`);
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('G2026-1');
    const pdf = await c.get(`${base}/events/gig/orders/${ref}/invoices/G2026-1.pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const re = await c.post(`${base}/events/gig/orders/${ref}/invoices/reissue`, {
      company: 'Acme AB',
      name: 'Ada',
      street: 'Gatan 1',
      postcode: '11122',
      city: 'Stockholm',
      country: 'SE',
      vat_id: 'SE123456789001',
    });
    expect(re.statusCode, re.body.slice(0, 300)).toBe(303);
    const after = await c.get(`${base}/events/gig/orders/${ref}/invoices`);
    expect(after.body).toContain('G2026-2');
    expect(after.body).toContain('G2026-3');
    expect(after.body).toContain('replaced');
    const docs = await t.ctx.db.selectFrom('invoices').selectAll().orderBy('id').execute();
    expect(docs.map((d) => [d.number, d.kind, Number(d.total_cents), Number(d.vat_cents), d.canceled_at !== null])).toEqual([
      ['G2026-1', 'invoice', 11900, 1900, true],
      ['G2026-2', 'credit_note', 11900, 1900, false],
      // a Swedish business, named after payment: the order was charged VAT and the invoice says so
      // (reverse charge is priced at checkout, pricing.ts)
      ['G2026-3', 'invoice', 11900, 1900, false],
    ]);
    const xml = await c.get(`${base}/events/gig/orders/${ref}/invoices/G2026-3.xml`);
    await validateCii(xml.body);
    expect(xml.body).toContain('Acme AB');
    expect(xml.body).not.toContain('VATEX-EU-AE');
    // a bad address changes nothing
    const bad = await c.post(`${base}/events/gig/orders/${ref}/invoices/reissue`, {
      name: 'Ada',
      street: 'x',
      postcode: '1',
      city: 'y',
      country: 'SE',
      vat_id: 'DE1',
    });
    expect(bad.statusCode).toBe(422);
    expect(await t.ctx.db.selectFrom('invoices').select('id').execute()).toHaveLength(3);
  });

  it('a free order has no invoice until staff issue one on request', async () => {
    const tid = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'guest').executeTakeFirstOrThrow()).id;
    const res = await t.call(a.tokens.all, {
      method: 'POST',
      url: '/api/v1/events/gig/orders',
      payload: { items: [{ ticket_type_id: tid, quantity: 1 }], email: 'guest@example.org' },
    });
    const ref = res.json().ref as string;
    const c = await signedIn(manager, '10.8.0.6');
    const page = await c.get(`${base}/events/gig/orders/${ref}/invoices`);
    expect(page.body).toContain('No invoice for this order yet. Issue one below with the buyer’s address.');
    expect(page.body).toContain('Issue an invoice');
    const before = (await t.ctx.db.selectFrom('invoices').select('number').execute()).length;
    const issued = await c.post(`${base}/events/gig/orders/${ref}/invoices/reissue`, {
      name: 'Grace Hopper',
      street: 'Weg 1',
      postcode: '10115',
      city: 'Berlin',
      country: 'DE',
    });
    expect(issued.statusCode, issued.body.slice(0, 300)).toBe(303);
    expect(issued.headers.location).toMatch(/done=issued$/);
    const after = await c.get(issued.headers.location as string);
    expect(after.body).toContain('The invoice was issued.');
    const docs = await t.ctx.db
      .selectFrom('invoices as i')
      .innerJoin('orders as o', 'o.id', 'i.order_id')
      .select(['i.kind', 'i.total_cents'])
      .where('o.ref', '=', ref)
      .execute();
    expect(docs).toEqual([{ kind: 'invoice', total_cents: 0 }]);
    expect((await t.ctx.db.selectFrom('invoices').select('number').execute()).length).toBe(before + 1);
  });

  it("a viewer sees and downloads but cannot re-issue; a forged CSRF token is refused; another order's number is 404", async () => {
    const ref = await paidOrder();
    const other = await paidOrder();
    const v = await signedIn(viewerEmail, '10.8.0.5');
    const page = await v.get(`${base}/events/gig/orders/${ref}/invoices`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('Issue again');
    expect(
      (
        await v.post(`${base}/events/gig/orders/${ref}/invoices/reissue`, {
          name: 'x',
          street: 'x',
          postcode: '1',
          city: 'y',
          country: 'DE',
        })
      ).statusCode,
    ).toBe(404);
    const m = await signedIn(manager, '10.8.0.6');
    await m.get(`${base}/events/gig/orders/${ref}/invoices`);
    const forged = await m.post(
      `${base}/events/gig/orders/${ref}/invoices/reissue`,
      { csrf: 'forged', name: 'x', street: 'x', postcode: '1', city: 'y', country: 'DE' },
      { csrf: false },
    );
    expect(forged.statusCode).toBe(403);
    const theirs = (
      await t.ctx.db
        .selectFrom('invoices as i')
        .innerJoin('orders as o', 'o.id', 'i.order_id')
        .select('i.number')
        .where('o.ref', '=', other)
        .executeTakeFirstOrThrow()
    ).number;
    expect((await v.get(`${base}/events/gig/orders/${ref}/invoices/${theirs}.pdf`)).statusCode).toBe(404);
  });

  it("the income report shows VAT on invoices beside income, credit notes taken off; the machine API's income is unchanged", async () => {
    const c = await signedIn(owner, '10.8.0.7');
    const api = await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/gig/income' });
    expect(api.statusCode).toBe(200);
    expect(JSON.stringify(api.json())).not.toContain('invoice');
    const docs = await t.ctx.db.selectFrom('invoices').select(['kind', 'vat_cents']).execute();
    const want = docs.reduce((s, d) => s + (d.kind === 'invoice' ? 1 : -1) * Number(d.vat_cents), 0);
    expect(want).toBeGreaterThan(0);
    const page = await c.get(`${base}/events/gig/reports`);
    expect(page.statusCode).toBe(200);
    const card = /data-invoiced-vat="eur">([\s\S]*?)<\/div>/.exec(page.body)?.[1] ?? '';
    expect(card).toContain('VAT on invoices');
    expect(card).toContain(`€${(want / 100).toFixed(2)}`);
  });

  it("speaks German to a person who chose it: the settings, an order's invoices and the refusals", async () => {
    const c = await signedIn(owner, '10.8.0.8');
    await inGerman(c, async () => {
      const settings = await c.get(`${base}/invoicing`);
      expect(settings.body).toContain('<html lang="de"');
      expect(settings.body).toContain('Name des Rechnungsstellers');
      expect(settings.body).toContain('Rechnungseinstellungen speichern');
      const english = ['Issuer name', 'Issue invoices', 'Save invoicing', 'Tax number', 'Number prefix', 'With invoicing on'];
      expect(leftoverEnglish(settings.body, english)).toEqual([]);
      const bad = await c.post(`${base}/invoicing`, { enabled: '1', name: ' ', address: 'Weg 1', country: 'DE', vat_id: 'DE12' });
      expect(bad.statusCode).toBe(422);
      expect(bad.body).toContain('Hat nicht das Format einer USt-IdNr. aus DE.');
      expect(bad.body).toContain('Bitte füllen Sie dieses Feld aus.');

      const ref = await paidOrder();
      const here = `${base}/events/gig/orders/${ref}/invoices`;
      const list = await c.get(here);
      expect(list.body).toContain('Adresse korrigieren und neu ausstellen');
      expect(list.body).toContain('Herunterladen');
      expect(list.body).toContain('<td>Rechnung</td>');
      expect(list.body).toContain('<td>22. Nov. 2026</td>');
      expect(list.body).toContain('119,00\u00a0€');
      const refused = await c.post(`${here}/reissue`, { name: 'Ada', street: '', postcode: '1', city: 'y', country: 'SE' });
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain('Bitte füllen Sie dieses Feld aus.');
      const done = await c.post(`${here}/reissue`, {
        name: 'Ada',
        street: 'Gatan 1',
        postcode: '11122',
        city: 'Stockholm',
        country: 'SE',
      });
      expect(done.statusCode).toBe(303);
      const after = await c.get(done.headers.location as string);
      expect(after.body).toContain('Die Rechnung wurde durch eine Gutschrift storniert und neu ausgestellt.');
      expect(after.body).toMatch(/Gutschrift zu G2026-\d+/);
      expect(after.body).toContain('>ersetzt<');
      const pageEnglish = [
        'Correct the address and issue again',
        'Download',
        'Invoice',
        'Credit note',
        'Issued',
        'Street and number',
      ];
      expect(leftoverEnglish(after.body, [...pageEnglish, 'Postcode', 'City', 'Company', 'replaced', 'Invoices of'])).toEqual([]);
    });
  });
});
