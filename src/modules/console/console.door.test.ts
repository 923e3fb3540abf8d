import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { ConsoleClient } from '../../../test/console-client.ts';
import { inGerman, leftoverEnglish } from '../../../test/console-german.ts';
import { consoleScannerEn } from '../i18n/console-scanner.en.ts';
import { consoleScannerDe } from '../i18n/console-scanner.de.ts';
import { scannerWords } from './console.door.view.ts';
import { CONSOLE_CATALOGUES } from '../i18n/i18n.ts';
import { makeStaffedAccountFile, signedInAs } from '../../../test/console-account.ts';
import { makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

/** Door check-in in the console: the lists, the scanner's session-authenticated sync and upload, the conflicts view. */

let t: TestApp;
let listId: number;
const people = { owner: 'owner@example.org', door: 'door@example.org', viewer: 'viewer@example.org' } as const;

beforeAll(async () => {
  t = await createTestApp();
  await seedAccount(
    t.ctx,
    makeStaffedAccountFile(people, {
      slug: 'acme',
      events: [
        makeEvent({
          slug: 'gala',
          name: 'Gala',
          starts_at: '2026-11-22T19:00:00Z',
          ticket_types: [{ key: 'ga', name: 'General', price: 2500, capacity: 10 }],
          checkin_lists: [{ key: 'main', name: 'Main door' }],
          orders: [
            makeOrder({
              ref: 'GALA-1',
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 2, unit_price: 2500, attendees: ['Ada', 'Bo'] }],
            }),
            makeOrder({
              ref: 'GALA-2',
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 2500, attendees: ['Cy'] }],
            }),
          ],
        }),
        makeEvent({
          slug: 'old',
          name: 'Last year',
          starts_at: '2025-11-22T19:00:00Z',
          checkin_lists: [{ key: 'x', name: 'Old door' }],
        }),
      ],
    }),
  );
  const list = await t.ctx.db.selectFrom('checkin_lists').select('id').where('key', '=', 'main').executeTakeFirstOrThrow();
  listId = Number(list.id);
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

const signedIn = (role: keyof typeof people) => signedInAs(t.app, people, role, '10.3.0');

const scanner = () => `/console/a/acme/door/gala/${listId}`;
const json = (c: ConsoleClient, method: 'GET' | 'POST', url: string, opts: { body?: unknown; csrf?: string } = {}) =>
  t.app.inject({
    method,
    url,
    headers: {
      cookie: `admit_session=${c.cookie}`,
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(opts.csrf === undefined ? {} : { 'x-csrf-token': opts.csrf }),
    },
    payload: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
const ticketIdOf = async (ref: string) =>
  Number((await t.ctx.db.selectFrom('tickets').select('id').where('ref', '=', ref).executeTakeFirstOrThrow()).id);

describe('door check-in in the console', () => {
  it('lists the events at the door with their lists, counts and a scanner link; past events apart', async () => {
    const c = await signedIn('door');
    expect((await c.get('/console')).headers.location).toBe('/console/a/acme/door');
    const page = await c.get('/console/a/acme/door');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Main door');
    expect(page.body).toMatch(/0 \/ 3/);
    expect(page.body).toContain(`href="${scanner()}"`);
    expect(page.body).not.toContain('Old door');
    const past = await c.get('/console/a/acme/door?past=1');
    expect(past.body).toContain('Old door');
    expect(past.body).not.toContain('Main door');
  });

  it('is for door staff and above: a viewer gets 404, a stranger is sent to sign in (JSON 401 for the exchange)', async () => {
    const v = await signedIn('viewer');
    expect((await v.get('/console/a/acme/door')).statusCode).toBe(404);
    expect((await v.get(scanner())).statusCode).toBe(404);
    expect((await json(v, 'GET', `${scanner()}/sync`)).statusCode).toBe(404);
    const stranger = new ConsoleClient(t.app);
    const page = await stranger.get(scanner());
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe(`/console/sign-in?next=${encodeURIComponent(scanner())}`);
    const res = await json(stranger, 'GET', `${scanner()}/sync`);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('sign_in');
  });

  it('serves the scanner page with its configuration, manifest, script and service worker', async () => {
    const c = await signedIn('door');
    const page = await c.get(scanner());
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    const config = JSON.parse(/<script type="application\/json" id="scanner-config">([^<]*)<\/script>/.exec(page.body)![1]!);
    expect(config).toMatchObject({
      sync: `${scanner()}/sync`,
      batch: `${scanner()}/batch`,
      who: people.door,
      timezone: 'Europe/Berlin',
    });
    const script = /<script src="([^"]+)"/.exec(page.body)![1]!;
    const js = await c.get(script);
    expect(js.headers['content-type']).toContain('text/javascript');
    expect(js.headers['cache-control']).toContain('immutable');
    expect(js.body).toContain('admit-scanner:');
    // its parts, joined in their order (the last starts the scanner), are not served alone
    expect(js.body.indexOf('createStore, Offline')).toBeLessThan(js.body.indexOf('createCamera }'));
    expect(js.body.indexOf('createCamera }')).toBeLessThan(js.body.indexOf('const WORDS'));
    expect((await c.get('/console/assets/scanner-store.js')).statusCode).toBe(404);
    const sw = await c.get('/console/scanner-sw.js');
    expect(sw.headers['content-type']).toContain('text/javascript');
    expect(sw.body).not.toContain('__VERSION__');
    expect((await c.get('/console/assets/jsQR.js')).body).toContain('jsQR');
    expect((await c.get('/console/assets/../../package.json')).statusCode).toBe(404);
    expect((await c.get('/console/assets/nothing.js')).statusCode).toBe(404);
    const manifest = await c.get(`${scanner()}/manifest.webmanifest`);
    expect(manifest.json()).toMatchObject({ start_url: scanner(), display: 'standalone' });
    expect((await c.get('/console/a/acme/door/gala/999999')).statusCode).toBe(404);
    expect((await c.get('/console/a/acme/door/nope/1')).statusCode).toBe(404);
  });

  it("passes the scanner its live words in the person's language; scanner.js keeps the English as its defaults", async () => {
    const wordsIn = (body: string) =>
      JSON.parse(/<script type="application\/json" id="scanner-words">([^<]*)<\/script>/.exec(body)![1]!) as Record<
        string,
        string
      >;
    const configIn = (body: string) =>
      JSON.parse(/<script type="application\/json" id="scanner-config">([^<]*)<\/script>/.exec(body)![1]!) as Record<
        string,
        string
      >;
    const c = await signedIn('door');
    const english = await c.get(scanner());
    expect(wordsIn(english.body)).toEqual(scannerWords(CONSOLE_CATALOGUES.en));
    expect(wordsIn(english.body)).toMatchObject({ valid: 'Valid', ready: 'Ready: {count} valid tickets on this device.' });
    expect(configIn(english.body).locale).toBe('en-GB');

    // scanner.js's defaults are the English catalogue's words, key for key
    const js = (await c.get(/<script src="([^"]+)"/.exec(english.body)![1]!)).body;
    const defaults = /const WORDS = \{([\s\S]*?)\n {2}\};/.exec(js)![1]!;
    for (const [key, value] of Object.entries(scannerWords(consoleScannerEn))) {
      expect(defaults, key).toMatch(new RegExp(`\\n {4}${key}: ['"]`));
      expect(defaults, key).toContain(value);
    }

    await inGerman(c, async () => {
      const page = await c.get(scanner());
      expect(page.body).toContain('<html lang="de"');
      const words = wordsIn(page.body);
      expect(words).toEqual(scannerWords(CONSOLE_CATALOGUES.de));
      expect(words).toMatchObject({
        valid: 'Gültig',
        refused: 'Abgewiesen',
        unknown: 'Unbekanntes Ticket',
        several: 'Mehrere Tickets',
        ready: 'Bereit: {count} gültige Tickets auf diesem Gerät.',
        already: 'Bereits eingelassen um {time}.',
      });
      expect(words.noConnection).toMatch(/^Keine Verbindung/);
      expect(configIn(page.body).locale).toBe('de-DE');
      // the page's own words are German too; the JSON holds no English of the live words
      const english = ['Recent scans', 'Scan with the camera', 'Check in'];
      expect(leftoverEnglish(page.body, english)).toEqual([]);
      for (const key of ['swValid', 'swRefused', 'swUnknown', 'swSeveral', 'swReady', 'swNoConnection'] as const)
        expect(Object.values(words)).not.toContain(consoleScannerEn[key]);
      expect(Object.keys(consoleScannerDe)).toEqual(Object.keys(consoleScannerEn));
    });
  });

  it('syncs with the session and a fresh form token; uploads only with that token; conflicts show in the console', async () => {
    const c = await signedIn('door');
    const first = await json(c, 'GET', `${scanner()}/sync?limit=2`);
    expect(first.statusCode, first.body).toBe(200);
    const token = String(first.headers['x-csrf-token']);
    expect(token).toMatch(/^\d+\./);
    const body = first.json();
    expect(body.tickets).toHaveLength(2);
    expect(body.has_more).toBe(true);

    const ada = await ticketIdOf('GALA-1-1');
    const at = (m: number) => new Date(Date.parse('2026-11-22T18:00:00Z') + m * 60_000).toISOString();
    const scans = {
      device: 'door@example.org · a1b2c3',
      checkins: [
        { client_id: 'k1', ticket_id: ada, scanned_at: at(1) },
        { client_id: 'k2', ticket_id: ada, scanned_at: at(2) },
      ],
    };
    // no token, a wrong token, another site's Origin: refused, nothing recorded
    expect((await json(c, 'POST', `${scanner()}/batch`, { body: scans })).statusCode).toBe(403);
    expect((await json(c, 'POST', `${scanner()}/batch`, { body: scans, csrf: '1.nope' })).statusCode).toBe(403);
    const foreign = await t.app.inject({
      method: 'POST',
      url: `${scanner()}/batch`,
      headers: {
        cookie: `admit_session=${c.cookie}`,
        'content-type': 'application/json',
        'x-csrf-token': token,
        origin: 'https://evil.example',
      },
      payload: JSON.stringify(scans),
    });
    expect(foreign.statusCode).toBe(403);
    expect(await t.ctx.db.selectFrom('checkins').select('id').execute()).toEqual([]);
    // bad input: the documented error, nothing recorded
    const bad = await json(c, 'POST', `${scanner()}/batch`, { body: { device: 'x', checkins: [] }, csrf: token });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.code).toBe('validation_failed');

    const up = await json(c, 'POST', `${scanner()}/batch`, { body: scans, csrf: token });
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json().results.map((r: { result: string; conflict: boolean }) => [r.result, r.conflict])).toEqual([
      ['recorded', false],
      ['recorded', true],
    ]);
    const again = await json(c, 'POST', `${scanner()}/batch`, { body: scans, csrf: token });
    expect(again.json().results.map((r: { result: string }) => r.result)).toEqual(['duplicate_upload', 'duplicate_upload']);

    const conflicts = await c.get(`${scanner()}/conflicts`);
    expect(conflicts.statusCode).toBe(200);
    expect(conflicts.body).toContain('GALA-1-1');
    expect(conflicts.body).toContain('Already checked in');
    expect(conflicts.body).toContain('door@example.org · a1b2c3');
    const door = await c.get('/console/a/acme/door');
    expect(door.body).toMatch(/1 \/ 3/);
    expect(door.body).toContain(`href="${scanner()}/conflicts"`);
  });
});
