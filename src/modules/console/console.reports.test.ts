import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { inGerman, leftoverEnglish } from '../../../test/console-german.ts';
import { makeStaffedAccountFile, signedInAs } from '../../../test/console-account.ts';
import { makeEvent, makeOrder, seedAccount, tokenSecrets } from '../../../test/factories.ts';

/** Reports in the console: income by month, the orders report by every grouping, saved reports. */

let t: TestApp;
const people = { manager: 'manager@example.org', viewer: 'viewer@example.org', door: 'door@example.org' } as const;

beforeAll(async () => {
  t = await createTestApp();
  await seedAccount(
    t.ctx,
    makeStaffedAccountFile(people, {
      slug: 'acme',
      events: [
        makeEvent({
          slug: 'gala',
          ticket_types: [{ key: 'ga', name: 'General', price: 2500, capacity: 100 }],
          discount_codes: [{ code: 'EARLY', percent_off: 10 }],
          orders: [
            makeOrder({ ref: 'GALA-1', created_at: '2026-10-05T10:00:00Z', paid_at: '2026-10-05T10:01:00Z' }),
            makeOrder({
              ref: 'GALA-2',
              created_at: '2026-11-05T10:00:00Z',
              paid_at: '2026-11-05T10:01:00Z',
              discounts: [{ code: 'EARLY', amount: 250 }],
              payments: [{ rail: 'sandbox', amount: 2250, at: '2026-11-05T10:01:00Z', fee: 0, provider_ref: 'sbx_g2' }],
            }),
          ],
          saved_reports: [{ name: 'By code', query: 'group=code&range=all' }],
        }),
      ],
    }),
  );
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

const signedIn = (role: keyof typeof people) => signedInAs(t.app, people, role, '10.6.0');
const base = '/console/a/acme/events/gala/reports';
const cells = (body: string, label: string) =>
  [
    ...(new RegExp(`<th scope="row">${label}</th>([\\s\\S]*?)</tr>`).exec(body)?.[1] ?? '').matchAll(
      /<td class="num">(?:<strong>)?([^<]*)/g,
    ),
  ].map((m) => m[1]);

describe('reports in the console', () => {
  it('shows income by month in the event timezone, with totals', async () => {
    const c = await signedIn('viewer');
    const res = await c.get(`${base}?range=all`);
    expect(res.statusCode).toBe(200);
    expect(cells(res.body, 'October 2026').slice(0, 2)).toEqual(['1', '€25.00']);
    expect(cells(res.body, 'November 2026').slice(0, 3)).toEqual(['1', '€25.00', '€2.50']);
    expect(cells(res.body, 'Total').slice(0, 3)).toEqual(['2', '€50.00', '€2.50']);
  });

  it('groups the orders report by every axis of the spec, with ranges and filters', async () => {
    const c = await signedIn('viewer');
    const month = await c.get(`${base}/orders?group=month&range=all`);
    expect(cells(month.body, '2026-10')[0]).toBe('1');
    expect(cells(month.body, '2026-11')[0]).toBe('1');
    const code = await c.get(`${base}/orders?group=code&range=all`);
    expect(cells(code.body, 'EARLY').slice(0, 5)).toEqual(['1', '1', '€25.00', '€2.50', '€22.50']);
    const custom = await c.get(`${base}/orders?group=status&range=custom&from=2026-11-01&to=2026-11-30`);
    expect(cells(custom.body, 'paid')[0]).toBe('1');
    expect(cells(custom.body, 'Total')[0]).toBe('1');
    // a viewer reads saved reports, and cannot save or delete
    expect(custom.body).toContain('By code');
    expect(custom.body).not.toContain('Save report');
  });

  it('saves the current report under a unique name and deletes it; bad names are refused beside the field', async () => {
    const c = await signedIn('manager');
    await c.get(`${base}/orders?group=status&range=all`);
    const saved = await c.post(`${base}/saved`, { name: 'Status, all time', query: 'group=status&range=all&junk=1' });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`${base}/orders?group=status&range=all&done=saved`);
    const rows = await t.ctx.db.selectFrom('saved_reports').select(['id', 'name', 'query']).orderBy('id').execute();
    expect(rows.map((r) => [r.name, r.query])).toEqual([
      ['By code', 'group=code&range=all'],
      ['Status, all time', 'group=status&range=all'],
    ]);
    await c.get(`${base}/orders`);
    const dup = await c.post(`${base}/saved`, { name: 'By code', query: '' });
    expect(dup.statusCode).toBe(422);
    expect(dup.body).toMatch(/id="f-name"[^>]*aria-invalid="true"/);
    expect((await c.post(`${base}/saved`, { name: '   ', query: '' })).statusCode).toBe(422);
    expect(await t.ctx.db.selectFrom('saved_reports').select('id').execute()).toHaveLength(2);
    // the API lists what the console saved
    const api = await t.call(tokenSecrets('acme').all, {
      method: 'GET',
      url: '/api/v1/events/gala/reports',
    });
    expect(
      api
        .json()
        .reports.map((r: { name: string }) => r.name)
        .sort(),
    ).toEqual(['By code', 'Status, all time']);

    const del = await c.post(`${base}/saved/${rows[1]!.id}/delete`, {});
    expect(del.statusCode).toBe(303);
    expect(await t.ctx.db.selectFrom('saved_reports').select('name').execute()).toEqual([{ name: 'By code' }]);
    expect((await c.post(`${base}/saved/999999/delete`, {})).statusCode).toBe(404);
  });

  it('keeps reports from door staff and saving from viewers', async () => {
    expect((await (await signedIn('door')).get(base)).statusCode).toBe(404);
    const v = await signedIn('viewer');
    await v.get(`${base}/orders`);
    expect((await v.post(`${base}/saved`, { name: 'x', query: '' })).statusCode).toBe(404);
  });

  it('speaks German to a person who chose it, with German formats', async () => {
    const c = await signedIn('manager');
    await inGerman(c, async () => {
      const income = await c.get(`${base}?range=all`);
      expect(income.body).toContain('<html lang="de"');
      expect(income.body).toContain('Eingenommen');
      expect(income.body).toContain('Nach Monat');
      expect(cells(income.body, 'Oktober 2026').slice(0, 2)).toEqual(['1', '25,00\u00a0€']);
      expect(cells(income.body, 'Gesamt').slice(0, 2)).toEqual(['2', '50,00\u00a0€']);
      expect(
        leftoverEnglish(income.body, ['Income', 'Collected', 'Refunded', 'By month', 'Month', 'Total', 'Show', 'Range', 'Net']),
      ).toEqual([]);

      const report = await c.get(`${base}/orders?group=status&range=all`);
      expect(report.body).toContain('Bestellbericht');
      expect(report.body).toContain('Gespeicherte Berichte');
      expect(report.body).toContain('Bericht speichern');
      expect(cells(report.body, 'bezahlt')[0]).toBe('2');
      const english = [
        'Orders report',
        'Saved reports',
        'Save report',
        'Group by',
        'Any status',
        'Total',
        'Discounts',
        'Refunds',
      ];
      expect(leftoverEnglish(report.body, english)).toEqual([]);

      const refused = await c.post(`${base}/saved`, { name: 'By code', query: '' });
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain('Nicht gespeichert: Bitte prüfen Sie den Namen.');
    });
    expect((await c.get(base)).body).toContain('<html lang="en"');
  });
});
