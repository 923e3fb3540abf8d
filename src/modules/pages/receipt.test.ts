import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';

let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let ids: Record<string, number>;

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'conf',
          ticket_types: [
            { key: 'day', name: 'Day', price: 1850, capacity: 50, tax_rate_bp: 1000 },
            { key: 'ws', name: 'Workshop', price: 4000, capacity: 50, tax_rate_bp: 1900 },
          ],
          discount_codes: [
            { code: 'TWENTY', percent_off: 20 },
            { code: 'WSHALF', percent_off: 50, ticket_types: ['ws'] },
          ],
        }),
        makeEvent({
          slug: 'net',
          tax_mode: 'exclusive',
          ticket_types: [{ key: 'n', name: 'Net', price: 1000, capacity: 50, tax_rate_bp: 1900 }],
          discount_codes: [{ code: 'TWENTY', percent_off: 20 }],
        }),
      ],
    }),
  );
  const tt = await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).execute();
  ids = Object.fromEntries(tt.map((r) => [r.key, r.id]));
});
afterAll(() => t.close());

const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

async function buy(event: string, form: Record<string, string>) {
  const path = `/e/${a.slug}/${event}`;
  const page = await t.app.inject({ method: 'GET', url: path });
  const res = await t.app.inject({
    method: 'POST',
    url: `${path}/checkout`,
    payload: new URLSearchParams({ csrf: csrfOf(page.body), name: 'Ada', email: 'ada@example.org', ...form }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    remoteAddress: '10.9.9.9',
  });
  expect(res.statusCode, res.body.slice(0, 400)).toBe(303);
  return t.app.inject({ method: 'GET', url: String(res.headers.location) });
}

const text = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('receipt figures', () => {
  it('18.50 with 10 % VAT included and a 20 % code: the total of 14.80 includes 1.35 VAT', async () => {
    const page = await buy('conf', { [`qty_${ids.day}`]: '1', code: 'TWENTY' });
    expect(text(page.body)).toContain('Total (includes €1.35 tax) €14.80');
    expect(page.body).not.toContain('€1.68');
  });

  it('a code for one type takes its VAT from that rate only', async () => {
    // 18.50 @10 % + 40.00 @19 % less 20.00 on the workshop: 18.50 -> 1.68, 20.00 -> 3.19
    const page = await buy('conf', { [`qty_${ids.day}`]: '1', [`qty_${ids.ws}`]: '1', code: 'WSHALF' });
    expect(text(page.body)).toContain('Total (includes €4.87 tax) €38.50');
  });

  it('without a code the line notes stay; tax-exclusive with a code shows the tax as priced and the VAT in the total', async () => {
    const plain = await buy('conf', { [`qty_${ids.day}`]: '2' });
    expect(text(plain.body)).toContain('incl. 10% tax: €3.36');
    expect(text(plain.body)).toContain('Total (includes €3.36 tax) €37.00');
    // 10.00 net + 1.90 = 11.90, less 20 % (2.38) = 9.52, of which VAT round(952 * 19 / 119) = 1.52
    const net = await buy('net', { [`qty_${ids.n}`]: '1', code: 'TWENTY' });
    expect(text(net.body)).toContain('Tax €1.90');
    expect(text(net.body)).toContain('Total (includes €1.52 tax) €9.52');
  });
});
