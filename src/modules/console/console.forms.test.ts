import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { ConsoleClient } from '../../../test/console-client.ts';
import { PW } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { freeKey, slugify } from './derived-keys.ts';
import { plainGeneral, plainMessage } from './plain-words.ts';

/** The console's forms as an organiser fills them: names first, addresses made from them, every problem at once, in plain words. */

let t: TestApp;
const owner = 'owner@example.org';

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'forms',
      users: [{ email: owner, role: 'owner', password: PW }],
      events: [
        makeEvent({
          slug: 'sommerfest-koeln',
          name: 'Sommerfest Köln',
          ticket_types: [{ key: 'general', name: 'General', price: 2500, capacity: 100 }],
        }),
      ],
    }),
  );
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

async function signedIn() {
  const c = new ConsoleClient(t.app);
  c.ip = '10.8.0.1';
  const res = await c.signIn(owner, PW);
  expect(res.statusCode, res.body).toBe(303);
  return c;
}
const base = '/console/a/forms/events';
const errorsOf = (body: string) => [...body.matchAll(/<p class="error" id="([^"]+)-err">([^<]*)<\/p>/g)].map((m) => [m[1], m[2]]);
const etagIn = (body: string) => /name="etag" value="([^"]+)"/.exec(body)![1]!.replace(/&quot;/g, '"');
const slugs = async () => (await t.ctx.db.selectFrom('events').select('slug').orderBy('slug').execute()).map((e) => e.slug);

describe('keys made from names', () => {
  it('spells names as lowercase addresses and finds a free one', () => {
    expect(slugify('Sommerfest Köln 2027!')).toBe('sommerfest-koeln-2027');
    expect(slugify('  Café — Crème brûlée  ')).toBe('cafe-creme-brulee');
    expect(slugify('Straße')).toBe('strasse');
    expect(slugify('日本')).toBe('');
    expect(slugify('a'.repeat(80))).toHaveLength(63);
    expect(freeKey('ga', new Set(['ga', 'ga-2']))).toBe('ga-3');
    expect(freeKey('a'.repeat(63), new Set(['a'.repeat(63)]))).toBe(`${'a'.repeat(61)}-2`);
  });
});

describe('plain words for the document’s messages', () => {
  it('says patterns, comparisons and paths as an organiser would', () => {
    expect(plainMessage('must match pattern "^[a-z]{3}$"')).toBe('Use a three-letter currency code, like EUR or USD.');
    expect(plainMessage('is before starts_at')).toBe('Must be after the start.');
    expect(plainMessage('give exactly one of percent_off and amount_off')).toMatch(
      /^Give either a percentage off or an amount off/,
    );
    expect(plainMessage('must be >= 0')).toBe('Use 0 or more.');
    expect(plainMessage('Only 25.00 EUR is left to refund')).toBe('Only €25.00 is left to refund.');
    expect(plainMessage('Only 1200 JPY is left')).toBe('Only JP¥1,200 is left.');
    expect(plainMessage('something about sales_end_at')).toBe('Something about the end of sales.');
    expect(plainGeneral('$.ticket_types[1].price: must be >= 0')).toBe('Ticket types 2, price: Use 0 or more.');
  });
});

describe('the new event form', () => {
  it('makes the address from the name when none is given, and a free one when it is taken', async () => {
    const c = await signedIn();
    await c.get(`${base}/new`);
    const make = (name: string) =>
      c.post(`${base}/new`, {
        name,
        slug: '',
        currency: 'eur',
        timezone: 'Europe/Berlin',
        starts_at: '2027-06-01T19:00',
        locale: 'en',
      });
    const first = await make('Sommerfest Köln');
    expect(first.statusCode, first.body).toBe(303);
    expect(first.headers.location).toBe(`${base}/sommerfest-koeln-2/ticket-types?done=event-created`);
    const second = await make('Winter Ball 2027');
    expect(second.headers.location).toContain('/winter-ball-2027/');
    expect(await slugs()).toEqual(['sommerfest-koeln', 'sommerfest-koeln-2', 'winter-ball-2027']);
    // an archived event keeps its address: it is taken too
    await t.ctx.db.updateTable('events').set({ archived: true }).where('slug', '=', 'winter-ball-2027').execute();
    const third = await make('Winter Ball 2027');
    expect(third.headers.location).toContain('/winter-ball-2027-2/');
    expect(await slugs()).toEqual(['sommerfest-koeln', 'sommerfest-koeln-2', 'winter-ball-2027', 'winter-ball-2027-2']);
  });

  it('shows every problem in one round, in plain words, and creates nothing', async () => {
    const c = await signedIn();
    await c.get(`${base}/new`);
    const before = await slugs();
    const res = await c.post(`${base}/new`, {
      name: 'Broken',
      slug: 'Bad Slug',
      currency: 'euro',
      timezone: 'Europe/Berlin',
      starts_at: '2027-06-01T19:00',
      ends_at: '2027-06-01T18:00',
      locale: 'en',
    });
    expect(res.statusCode).toBe(422);
    const errors = Object.fromEntries(errorsOf(res.body));
    // the form's own check (the address) and the document's (currency, end before start) together
    expect(errors['f-slug']).toMatch(/^Use lowercase letters, digits and dashes/);
    expect(errors['f-currency']).toBe('Use a three-letter currency code, like EUR or USD.');
    expect(errors['f-ends_at']).toBe('Must be after the start.');
    expect(res.body).not.toContain('must match pattern');
    expect(res.body).not.toContain('is before starts_at');
    expect(await slugs()).toEqual(before);
  });
});

describe('the catalogue forms', () => {
  it('asks for the name first and makes the key from it', async () => {
    const c = await signedIn();
    const page = await c.get(`${base}/sommerfest-koeln/ticket-types`);
    const add = page.body.slice(page.body.indexOf('Add a ticket type'));
    expect(add.indexOf('name="name"')).toBeLessThan(add.indexOf('name="key"'));
    const etag = etagIn(page.body);
    const res = await c.post(`${base}/sommerfest-koeln/ticket-types`, {
      etag,
      name: 'General',
      key: '',
      price: '30',
      on_sale: '1',
    });
    expect(res.statusCode, res.body).toBe(303);
    const keys = (await t.ctx.db.selectFrom('ticket_types').select('key').orderBy('id').execute()).map((r) => r.key);
    // 'general' is taken by the first type
    expect(keys.slice(0, 2)).toEqual(['general', 'general-2']);
  });

  it('shows a bad amount and a document problem in the same round', async () => {
    const c = await signedIn();
    const page = await c.get(`${base}/sommerfest-koeln/codes`);
    const etag = etagIn(page.body);
    const before = await t.ctx.db.selectFrom('discount_codes').select('id').execute();
    const res = await c.post(`${base}/sommerfest-koeln/codes`, {
      etag,
      code: 'has space',
      percent_off: '10',
      amount_off: 'lots',
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('Enter an amount, like');
    expect(res.body).toContain('Use letters, digits, dashes and underscores only');
    expect(await t.ctx.db.selectFrom('discount_codes').select('id').execute()).toHaveLength(before.length);
  });
});
