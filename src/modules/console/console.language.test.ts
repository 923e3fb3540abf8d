import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { ConsoleClient } from '../../../test/console-client.ts';
import { PW } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { CONSOLE_CATALOGUES } from '../i18n/i18n.ts';
import { KINDS } from './catalogue-form.ts';

/** The console in the organiser's language: their choice, else the browser's, else English. */

let t: TestApp;
const anna = 'anna@example.org';
const bob = 'bob@example.org';

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'sprache',
      users: [
        { email: anna, role: 'owner', password: PW },
        { email: bob, role: 'owner', password: PW },
      ],
      events: [
        makeEvent({
          slug: 'sommerfest',
          name: 'Sommerfest',
          starts_at: '2026-11-27T17:14:00Z',
          ticket_types: [{ key: 'ga', name: 'Stehplatz', price: 1850, capacity: 100 }],
          orders: [
            makeOrder({
              ref: 'SOMMER-1',
              name: 'Grete Müller',
              created_at: '2026-11-20T10:00:00Z',
              paid_at: '2026-11-20T10:01:00Z',
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 1850 }],
            }),
          ],
        }),
      ],
    }),
  );
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

async function signedIn(email: string, headers: Record<string, string> = {}) {
  const c = new ConsoleClient(t.app);
  c.ip = '10.9.0.1';
  c.headers = headers;
  const res = await c.signIn(email, PW);
  expect(res.statusCode, res.body).toBe(303);
  return c;
}
const langOf = (body: string) => /<html lang="([^"]+)"/.exec(body)?.[1];
const storedLanguage = async (email: string) =>
  (await t.ctx.db.selectFrom('users').select('language').where('email', '=', email).executeTakeFirstOrThrow()).language;

describe('before signing in', () => {
  it('follows Accept-Language', async () => {
    const c = new ConsoleClient(t.app);
    c.headers = { 'accept-language': 'de-DE,de;q=0.9,en;q=0.8' };
    const res = await c.get('/console/sign-in');
    expect(langOf(res.body)).toBe('de');
    expect(res.body).toContain('<h1>Anmelden</h1>');
    expect(res.body).toContain('Passwort vergessen?');
    // a wrong password is refused in German too
    const bad = await c.post('/console/sign-in', { email: anna, password: 'not the password', next: '/console' });
    expect(bad.statusCode).toBe(401);
    expect(bad.body).toContain('E-Mail-Adresse und Passwort passen nicht zusammen.');
  });

  it('speaks English without Accept-Language, and for a language no catalogue speaks', async () => {
    for (const headers of [{}, { 'accept-language': 'fr-FR, ja;q=0.8' }] as Array<Record<string, string>>) {
      const c = new ConsoleClient(t.app);
      c.headers = headers;
      const res = await c.get('/console/sign-in');
      expect(langOf(res.body)).toBe('en');
      expect(res.body).toContain('<h1>Sign in</h1>');
    }
  });
});

describe('a person who chose German', () => {
  it('reads the navigation, the events list, an event, its ticket types and a validation message in German', async () => {
    // an English browser: the choice, not the browser, decides
    const c = await signedIn(anna, { 'accept-language': 'en-GB' });
    expect((await c.get('/console/me')).body).toContain('Language of the console');
    const saved = await c.post('/console/me/language', { language: 'de' });
    expect(saved.statusCode).toBe(303);
    expect(await storedLanguage(anna)).toBe('de');

    const me = await c.get(saved.headers.location as string);
    expect(langOf(me.body)).toBe('de');
    expect(me.body).toContain('Die Sprache der Konsole wurde gespeichert.');
    expect(me.body).toMatch(/<option value="de" selected>Deutsch<\/option>/);

    const list = await c.get('/console/a/sprache/events');
    expect(langOf(list.body)).toBe('de');
    expect(list.body).toContain('<h1>Veranstaltungen</h1>');
    expect(list.body).toContain('Bestellungen suchen');
    expect(list.body).toContain('Ihre Anmeldung');
    expect(list.body).toContain('Abmelden');
    expect(list.body).toContain('Neue Veranstaltung');
    expect(list.body).toContain('Verkaufte Tickets');
    expect(list.body).toContain('27. Nov. 2026, 18:14');
    expect(list.body).toContain('18,50\u00a0€');
    expect(list.body).not.toContain('Sign out');

    const event = await c.get('/console/a/sprache/events/sommerfest');
    expect(event.statusCode).toBe(200);
    expect(event.body).toContain('Status und Zeitplan');
    expect(event.body).toContain('Einrichtung');
    expect(event.body).toContain('Veranstaltungsort');
    expect(event.body).toContain('Speichern');

    const types = await c.get('/console/a/sprache/events/sommerfest/ticket-types');
    expect(types.body).toContain('Ticketarten');
    expect(types.body).toContain('18,50\u00a0€');
    expect(types.body).toContain('Ticketart hinzufügen');
    expect(types.body).toContain('Höchstens je Bestellung');

    // a new event with no name and a bad currency: the problems in German, nothing created
    await c.get('/console/a/sprache/events/new');
    const res = await c.post('/console/a/sprache/events/new', {
      name: '',
      slug: '',
      currency: 'euro',
      timezone: 'Europe/Berlin',
      starts_at: '2027-05-01T18:00',
      locale: 'de',
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('Bitte füllen Sie dieses Feld aus.');
    expect(res.body).toContain('Verwenden Sie einen dreibuchstabigen Währungscode wie EUR oder USD.');
    expect(res.body).not.toContain('Fill this in.');
    expect(await t.ctx.db.selectFrom('events').select('slug').execute()).toHaveLength(1);
  });

  it('reads the orders, an order, its refund form, the dashboard and the door in German', async () => {
    const c = await signedIn(anna, { 'accept-language': 'en' });
    const base = '/console/a/sprache/events/sommerfest';
    const orders = await c.get(`${base}/orders`);
    expect(orders.body).toContain('Bestellungen finden');
    expect(orders.body).toContain('Bezahlt');
    expect(orders.body).toContain('18,50\u00a0€');
    const order = await c.get(`${base}/orders/SOMMER-1`);
    expect(order.body).toContain('<h1>Bestellung SOMMER-1</h1>');
    expect(order.body).toContain('Zahlungen und Erstattungen');
    expect(order.body).toContain('Verlauf');
    const refund = await c.get(`${base}/orders/SOMMER-1/refund`);
    expect(refund.body).toContain('Was erstattet wird');
    expect(refund.body).toContain('Alles Übrige: 18,50\u00a0€');
    // a refund form that says two things is asked again, in German, and refunds nothing
    const nonce = /name="nonce" value="([^"]+)"/.exec(refund.body)![1]!;
    const twice = await c.post(`${base}/orders/SOMMER-1/refund`, { scope: 'all', amount: '5', reason: '', nonce });
    expect(twice.statusCode).toBe(422);
    expect(twice.body).toContain('Um einen Teil zu erstatten, wählen Sie „Nur ein Betrag“');
    expect(await t.ctx.db.selectFrom('refunds').select('id').execute()).toHaveLength(0);
    const dash = await c.get(`${base}/dashboard`);
    expect(dash.body).toContain('Verkäufe im Zeitverlauf');
    expect(dash.body).toContain('Nettoumsatz');
    const door = await c.get('/console/a/sprache/door');
    expect(door.body).toContain('<h1>Einlass</h1>');
    expect(door.body).toContain('Der Scanner arbeitet auch ohne Netz weiter');
  });

  it('goes back to following the browser when the choice is cleared, and refuses a language it does not have', async () => {
    const c = await signedIn(anna, { 'accept-language': 'en' });
    expect(langOf((await c.get('/console/me')).body)).toBe('de');
    const odd = await c.post('/console/me/language', { language: 'xx' });
    expect(odd.statusCode).toBe(422);
    expect(await storedLanguage(anna)).toBe('de');
    expect(odd.body).toContain('Wählen Sie einen der angebotenen Werte.');

    expect((await c.post('/console/me/language', { language: '' })).statusCode).toBe(303);
    expect(await storedLanguage(anna)).toBeNull();
    expect(langOf((await c.get('/console/a/sprache/events')).body)).toBe('en');
    c.headers = { 'accept-language': 'de-AT' };
    const list = await c.get('/console/a/sprache/events');
    expect(langOf(list.body)).toBe('de');
    expect(list.body).toContain('18,50\u00a0€');
  });

  it('keeps the choice to its own person, and the form needs its CSRF token', async () => {
    const a = await signedIn(anna);
    await a.get('/console/me');
    expect((await a.post('/console/me/language', { language: 'de' })).statusCode).toBe(303);
    const b = await signedIn(bob);
    const page = await b.get('/console/a/sprache/events');
    expect(langOf(page.body)).toBe('en');
    expect(page.body).toContain('<h1>Events</h1>');
    expect(page.body).toContain('€18.50');
    expect(page.body).toContain('27 Nov 2026, 18:14');
    await b.get('/console/me');
    const forged = await b.post('/console/me/language', { language: 'de' }, { csrf: false });
    expect(forged.statusCode).toBe(403);
    expect(await storedLanguage(bob)).toBeNull();
  });
});

describe('the catalogues', () => {
  it('every label, hint and title of the catalogue kinds has its German words', () => {
    const words = new Set<string>();
    for (const k of KINDS) {
      words.add(k.title).add(k.singular);
      for (const f of k.fields) {
        words.add(f.label);
        if (f.hint) words.add(f.hint);
      }
    }
    const missing = [...words].filter((w) => !Object.hasOwn(CONSOLE_CATALOGUES.de.catalogueWords, w));
    expect(missing).toEqual([]);
  });
});
