import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeStaffedAccountFile, signedInAs } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { theatrePlan } from '../events/seating.fixture.ts';

/** The seating page: upload a plan, map its categories, block seats, the sold map; refusals change nothing. */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
const people = { manager: 'manager@example.org', viewer: 'viewer@example.org' } as const;
const base = '/console/a/sc/events/play/seating';

beforeAll(async () => {
  t = await createTestApp();
  a = await seedAccount(
    t.ctx,
    makeStaffedAccountFile(people, {
      slug: 'sc',
      events: [
        makeEvent({
          slug: 'play',
          name: 'The Play',
          ticket_types: [
            { key: 'stalls', name: 'Stalls seat', price: 4500 },
            { key: 'balcony', name: 'Balcony seat', price: 2500 },
          ],
        }),
      ],
    }),
  );
  await seedAccount(t.ctx, makeAccountFile({ slug: 'sc-other', events: [makeEvent({ slug: 'elsewhere' })] }));
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

const signedIn = (role: keyof typeof people, lang?: string) =>
  signedInAs(t.app, people, role, '10.9.0', lang ? { 'accept-language': lang } : {});
const unescape = (s: string) =>
  s
    .replace(/&quot;|&#34;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
const etagIn = (body: string) => unescape(/name="etag" value="([^"]+)"/.exec(body)?.[1] ?? '');
const doc = async () =>
  (await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/play/config' })).json() as {
    seating?: { blocked?: string[] };
  };
const codes = async () =>
  ((await t.app.inject({ method: 'GET', url: '/e/sc/play/seats.json' })).json() as { codes: string }).codes;

describe('the seating page', () => {
  it('a manager pastes a plan and maps its categories: the event sells those seats', async () => {
    const c = await signedIn('manager');
    const empty = await c.get(base);
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('This event sells no seats yet.');
    expect(empty.body).toContain('aria-current="page">Seating</a>');
    const plan = JSON.stringify(theatrePlan());
    // the plan first: its categories come back to be mapped
    const first = await c.post(base, { etag: etagIn(empty.body), plan, blocked: '', action: 'save' });
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe(`${base}?done=saved`);
    const page = await c.get(base);
    expect(page.body).toContain('catname_0" value="Stalls"');
    const saved = await c.post(base, {
      etag: etagIn(page.body),
      plan: unescape(/<textarea id="f-plan"[^>]*>([\s\S]*?)<\/textarea>/.exec(page.body)![1]!),
      blocked: 'stalls-A-1',
      catname_0: 'Stalls',
      cat_0: 'stalls',
      catname_1: 'Balcony',
      cat_1: 'balcony',
      action: 'save',
    });
    expect(saved.statusCode, saved.body.slice(saved.body.indexOf('<main'), saved.body.indexOf('<main') + 800)).toBe(303);
    expect(saved.headers.location).toBe(`${base}?done=saved`);
    expect((await doc()).seating?.blocked).toEqual(['stalls-A-1']);
    const after = await c.get(saved.headers.location as string);
    expect(after.body).toContain('Seating saved.');
    expect(after.body).toContain('79 available, 0 held by orders being paid, 0 sold, 1 kept off sale');
    expect((await codes()).slice(0, 2)).toBe('ba');
  });

  it('refuses blocking a sold seat, bad JSON and a broken plan, naming the problem; nothing changes', async () => {
    const stalls = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'stalls').executeTakeFirstOrThrow())
      .id;
    const sold = await t.call(a.tokens.all, {
      method: 'POST',
      url: '/api/v1/events/play/orders',
      payload: { items: [{ ticket_type_id: stalls, quantity: 1, seats: ['stalls-B-1'] }], email: 'b@example.org' },
    });
    expect(sold.statusCode).toBe(201);
    const c = await signedIn('manager');
    const page = await c.get(base);
    expect(page.body).toContain('78 available, 1 held by orders being paid');
    const plan = unescape(/<textarea id="f-plan"[^>]*>([\s\S]*?)<\/textarea>/.exec(page.body)![1]!);
    const cats = { catname_0: 'Stalls', cat_0: 'stalls', catname_1: 'Balcony', cat_1: 'balcony' };
    const before = JSON.stringify(await doc());
    const held = await c.post(base, {
      etag: etagIn(page.body),
      plan,
      blocked: 'stalls-A-1, stalls-B-1',
      ...cats,
      action: 'save',
    });
    expect(held.statusCode).toBe(409);
    expect(held.body).toContain('stalls-B-1');
    expect(held.body).toContain('value="Stalls" />');
    const badJson = await c.post(base, { etag: etagIn(page.body), plan: '{"zones": [', blocked: '', ...cats, action: 'save' });
    expect(badJson.statusCode).toBe(422);
    expect(badJson.body).toContain('This is not JSON');
    expect(badJson.body).toContain('{&quot;zones&quot;: [');
    const broken = JSON.parse(plan) as { zones: Array<{ rows: Array<{ seats: Array<Record<string, unknown>> }> }> };
    delete broken.zones[0]!.rows[0]!.seats[0]!.category;
    const noCategory = await c.post(base, {
      etag: etagIn(page.body),
      plan: JSON.stringify(broken),
      blocked: '',
      ...cats,
      action: 'save',
    });
    expect(noCategory.statusCode).toBe(422);
    expect(noCategory.body).toMatch(/plan\.zones\[0\]\.rows\[0\]\.seats\[0\]\.category: is required/);
    // dropping the plan while a seat is held
    expect((await c.post(base, { etag: etagIn(page.body), action: 'remove' })).statusCode).toBe(409);
    expect(JSON.stringify(await doc())).toBe(before);
    // an ETag of another time: sent back to the page as it is now
    const stale = await c.post(base, { etag: '"old"', plan, blocked: '', ...cats, action: 'save' });
    expect(stale.headers.location).toBe(`${base}?done=stale`);
    expect(JSON.stringify(await doc())).toBe(before);
  });

  it('a viewer sees the sold map but no form; forged and foreign requests change nothing; it speaks German', async () => {
    const v = await signedIn('viewer');
    const seen = await v.get(base);
    expect(seen.statusCode).toBe(200);
    expect(seen.body).toContain('data-seating-plan');
    expect(seen.body).not.toContain('data-seating-form');
    // a role that may not change events: the action does not exist for them
    expect((await v.post(base, { etag: etagIn(seen.body), action: 'remove' })).statusCode).toBe(404);
    const m = await signedIn('manager');
    await m.get(base);
    expect((await m.post(base, { action: 'remove' }, { csrf: false })).statusCode).toBe(403);
    expect((await m.get('/console/a/sc-other/events/elsewhere/seating')).statusCode).toBe(404);
    expect((await doc()).seating).toBeDefined();
    const de = await signedIn('manager', 'de-DE,de;q=0.9');
    const german = await de.get(base);
    expect(german.body).toContain('<h1>Saalplan: The Play</h1>');
    expect(german.body).toContain('Saalplan speichern');
  });
});
