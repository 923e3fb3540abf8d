import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { inGerman, leftoverEnglish } from '../../../test/console-german.ts';
import { makeStaffedAccountFile, signedInAs } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

/** The waiting list in the console: places and statuses, offer now, remove, the CSV, and who may do what. */
let t: TestApp;
const people = { manager: 'manager@example.org', viewer: 'viewer@example.org', door: 'door@example.org' } as const;
let typeId: number;

beforeAll(async () => {
  t = await createTestApp();
  const a = await seedAccount(
    t.ctx,
    makeStaffedAccountFile(people, {
      slug: 'wlc',
      events: [
        makeEvent({
          slug: 'club',
          waiting_list: { enabled: true },
          ticket_types: [{ key: 'ga', name: 'Club night', price: 1500, capacity: 2 }],
          orders: [makeOrder({ ref: 'WLC-1', lines: [{ kind: 'tickets', ref: 'ga', quantity: 2, unit_price: 1500 }] })],
        }),
      ],
    }),
  );
  await seedAccount(
    t.ctx,
    makeAccountFile({ slug: 'wlc-other', events: [makeEvent({ slug: 'elsewhere', waiting_list: { enabled: true } })] }),
  );
  typeId = (
    await t.ctx.db
      .selectFrom('ticket_types')
      .select('id')
      .where('key', '=', 'ga')
      .where('name', '=', 'Club night')
      .executeTakeFirstOrThrow()
  ).id;
  for (const [name, email] of [
    ['Ann', 'ann@example.org'],
    ['=HYPERLINK("x")', 'formula@example.org'],
    ['Cy', 'cy@example.org'],
  ])
    expect(
      (
        await t.call(a.tokens.all, {
          method: 'POST',
          url: '/api/v1/events/club/waiting-list',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ ticket_type_id: typeId, quantity: 1, email, name }),
        })
      ).statusCode,
    ).toBe(201);
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

const signedIn = (role: keyof typeof people) => signedInAs(t.app, people, role, '10.7.0');
const base = '/console/a/wlc/events/club/waiting-list';
const entries = () => t.ctx.db.selectFrom('waiting_list_entries').select(['id', 'name', 'status']).orderBy('id').execute();

describe('the waiting list page', () => {
  it('shows places and statuses, escaped, with actions only for those who may change orders', async () => {
    const m = await signedIn('manager');
    const page = await m.get(base);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Club night');
    expect(page.body).toContain('aria-current="page">Waiting list</a>');
    expect(page.body).toMatch(/<td>=HYPERLINK\((&quot;|&#34;)x(&quot;|&#34;)\)/);
    expect(page.body).not.toContain('HYPERLINK("x")');
    expect(page.body.match(/>Offer now</g)?.length).toBe(3);
    const v = await signedIn('viewer');
    const seen = await v.get(base);
    expect(seen.statusCode).toBe(200);
    expect(seen.body).not.toContain('>Offer now<');
    // a role without the page: it does not exist for them
    expect((await (await signedIn('door')).get(base)).statusCode).toBe(404);
    expect((await m.get('/console/a/wlc-other/events/elsewhere/waiting-list')).statusCode).toBe(404);
  });

  it('offer now needs free units; remove takes a place off; forged and foreign posts change nothing', async () => {
    const m = await signedIn('manager');
    await m.get(base);
    const [ann, , cy] = await entries();
    // sold out: nothing to offer
    const none = await m.post(`${base}/${cy!.id}/offer`, {});
    expect(none.statusCode).toBe(409);
    expect(none.body).toContain('Not enough units are free');
    // a viewer may not, a post without the token is refused, an id of nothing is 404
    const v = await signedIn('viewer');
    await v.get(base);
    expect((await v.post(`${base}/${ann!.id}/remove`, {})).statusCode).toBe(404);
    expect((await m.post(`${base}/${ann!.id}/remove`, {}, { csrf: false })).statusCode).toBe(403);
    expect((await m.post(`${base}/999999/remove`, {})).statusCode).toBe(404);
    expect((await m.post(`${base}/abc/remove`, {})).statusCode).toBe(404);
    expect((await entries()).map((e) => e.status)).toEqual(['waiting', 'waiting', 'waiting']);

    // one more unit: offer now goes to Cy ahead of the others
    await t.ctx.db
      .updateTable('inventory')
      .set({ capacity: 3 })
      .where(
        'id',
        '=',
        (await t.ctx.db.selectFrom('ticket_types').select('inventory_id').where('id', '=', typeId).executeTakeFirstOrThrow())
          .inventory_id!,
      )
      .execute();
    const offered = await m.post(`${base}/${cy!.id}/offer`, {});
    expect([offered.statusCode, offered.headers.location]).toEqual([303, `${base}?done=offered`]);
    expect((await entries()).map((e) => e.status)).toEqual(['waiting', 'waiting', 'offered']);
    const removed = await m.post(`${base}/${ann!.id}/remove`, {});
    expect(removed.statusCode).toBe(303);
    expect((await entries()).map((e) => e.status)).toEqual(['removed', 'waiting', 'offered']);
    const page = await m.get(`${base}?done=removed`);
    expect(page.body).toContain('Removed from the waiting list.');
    expect(page.body).toMatch(/Offered<\/span>\s*<div class="muted">order <a href="\/console\/a\/wlc\/events\/club\/orders\//);
  });

  it('exports the list as CSV with formula cells kept as text', async () => {
    const m = await signedIn('viewer');
    const csv = await m.get(`${base}.csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('id,position,status,ticket_type,quantity,name,email,created_at,offered_at,expires_at,order');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toContain(`"'=HYPERLINK(""x"")"`);
    expect(lines[1]).toContain(',removed,Club night,1,Ann,ann@example.org,');
    expect((await (await signedIn('door')).get(`${base}.csv`)).statusCode).toBe(404);
  });

  it('speaks German to a person who chose it, its refusals too', async () => {
    const m = await signedIn('manager');
    await inGerman(m, async () => {
      const page = await m.get(base);
      expect(page.body).toContain('<html lang="de"');
      expect(page.body).toContain('Als CSV exportieren');
      expect(page.body).toContain('Eingetragen');
      expect(page.body).toMatch(/Angeboten<\/span>\s*<div class="muted">Bestellung <a/);
      expect(page.body).toContain('>Entfernt<');
      const english = ['Export CSV', 'Place', 'Joined', 'Offer now', 'Remove', 'Offered', 'Waiting', 'Actions', 'waiting list'];
      expect(leftoverEnglish(page.body, english)).toEqual([]);
      expect((await m.get(`${base}?done=removed`)).body).toContain('Von der Warteliste entfernt.');

      const [, bo] = await entries();
      const none = await m.post(`${base}/${bo!.id}/offer`, {});
      expect(none.statusCode).toBe(409);
      expect(none.body).toContain('Für diesen Eintrag sind gerade nicht genug Plätze frei, oder er wartet nicht mehr.');
    });
  });
});
