import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { expectHashedScripts } from '../../../test/csp.ts';

let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let b: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'later',
          name: 'Later <b>Show</b>',
          starts_at: '2027-05-01T18:00:00Z',
          venue: { name: 'Halle Süd', address: 'Hafenstraße 12, Hamburg', map_url: 'https://maps.example/halle' },
          description: 'Doors at **19:00**, bring a friend.\n\n<script>alert(1)</script>',
          sales_end_at: '2027-05-01T16:00:00Z',
        }),
        makeEvent({ slug: 'sooner', name: 'Sooner Show', starts_at: '2026-12-01T18:00:00Z' }),
        makeEvent({ slug: 'past', name: 'Past Show', starts_at: '2026-10-01T18:00:00Z' }),
        // started an hour ago, ends tonight: still on the list
        makeEvent({ slug: 'running', name: 'Running Show', starts_at: '2026-11-22T11:00:00Z', ends_at: '2026-11-22T22:00:00Z' }),
      ],
    }),
  );
  b = await seedAccount(t.ctx, makeAccountFile({ events: [makeEvent({ slug: 'other', name: 'Other Account Show' })] }));
});
afterAll(() => t.close());

const get = (url: string, language?: string) =>
  t.app.inject({ method: 'GET', url, headers: language ? { 'accept-language': language } : {} });

describe('the root page', () => {
  it('links the console and the API docs and lists upcoming events of every account, soonest first', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('href="/console"');
    expect(res.body).toContain('href="/docs"');
    const order = ['Running Show', 'Sooner Show', 'Other Account Show', 'Later &lt;b&gt;Show&lt;/b&gt;'].map((n) =>
      res.body.indexOf(n),
    );
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect(res.body).not.toContain('Past Show');
    expect(res.body).not.toContain('<b>Show</b>');
  });
});

describe("an account's page", () => {
  it("lists only that account's upcoming events, linked to their pages", async () => {
    const res = await get(`/e/${a.slug}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`href="/e/${a.slug}/sooner"`);
    expect(res.body).toContain('Halle Süd');
    expect(res.body).not.toContain('Other Account Show');
    expect(res.body).not.toContain('Past Show');
    expect((await get(`/e/${b.slug}`)).body).toContain('Other Account Show');
  });

  it('is a 404 page for an unknown account', async () => {
    const res = await get('/e/no-such-account');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
  });
});

describe('the event page', () => {
  it('shows the description as Markdown, the venue with its map link, when sales end, and prices for the total', async () => {
    const res = await get(`/e/${a.slug}/later`, 'en-GB,en;q=0.8');
    expect(res.statusCode).toBe(200);
    expect(res.headers.vary).toContain('accept-language');
    expect(res.body).toContain('Doors at <strong>19:00</strong>, bring a friend.');
    expect(res.body).not.toContain('<script>alert(1)</script>');
    expect(res.body).toMatch(/<address class="admit-venue">\s*<strong>Halle Süd<\/strong><br \/>Hafenstraße 12, Hamburg/);
    expect(res.body).toContain('href="https://maps.example/halle"');
    expect(res.body).toContain('Sales end Sat, 1 May 2027, 18:00 (Europe/Berlin).');
    expect(res.body).toMatch(/data-price="2500"/);
    expect(res.body).toContain('held for you for 35 minutes');
  });
});

describe('languages', () => {
  it("speaks the browser's language among the catalogues, with its formats; ?lang= overrides; else the event's locale", async () => {
    const de = await get(`/e/${a.slug}/later`, 'fr-CH, de-AT;q=0.8, en;q=0.5');
    expect(de.body).toContain('<html lang="de-AT">');
    expect(de.body).toContain('Verkauf endet Sa., 1. Mai 2027, 18:00 (Europe/Berlin).');
    expect(de.body).toContain('Weiter zur Zahlung');
    expect(de.body).toContain('Zum Kalender hinzufügen');
    expect(de.body).toContain('<input type="hidden" name="lang" value="de-AT" />');
    expect(de.body).toMatch(/data-locale="de-AT"/);
    expect(de.body).not.toContain('Continue to payment');
    // the buyer's choice beats the browser; an unknown choice falls through to it
    const en = await get(`/e/${a.slug}/later?lang=en`, 'de-AT');
    expect(en.body).toContain('<html lang="en">');
    expect(en.body).toContain('Continue to payment');
    expect((await get(`/e/${a.slug}/later?lang=xx-invalid!`, 'de')).body).toContain('Weiter zur Zahlung');
    // no language the catalogues speak: the event's locale (en here)
    expect((await get(`/e/${a.slug}/later`, 'ja, fr;q=0.9')).body).toContain('Continue to payment');
    // the switch names each language in itself and marks the current one
    expect(de.body).toMatch(/<a href="\/e\/[^"]+\/later\?lang=en" lang="en" hreflang="en">English<\/a>/);
    expect(de.body).toMatch(/lang="de" hreflang="de" aria-current="true">Deutsch<\/a>/);
    // the account and root pages follow the browser too
    expect((await get(`/e/${a.slug}`, 'de')).body).toContain('Kommende Veranstaltungen');
    expect((await get('/', 'de')).body).toContain('Konsole für Veranstalter');
  });

  it("an account page falls back to its theme's page language", async () => {
    const c = await seedAccount(
      t.ctx,
      makeAccountFile({
        themes: [{ name: 'Haus', is_default: true, settings: { locale: 'de' } }],
        events: [makeEvent({ slug: 'fest', starts_at: '2027-01-01T18:00:00Z' })],
      }),
    );
    expect((await get(`/e/${c.slug}`, 'ja')).body).toContain('Kommende Veranstaltungen');
    expect((await get(`/e/${c.slug}`, 'en')).body).toContain('Upcoming events');
  });

  it('a German event speaks German to a browser that asks for no catalogue language', async () => {
    const account = await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', a.slug).executeTakeFirstOrThrow();
    await t.ctx.db
      .updateTable('events')
      .set({ locale: 'de' })
      .where('account_id', '=', account.id)
      .where('slug', '=', 'sooner')
      .execute();
    const res = await get(`/e/${a.slug}/sooner`, 'ja');
    expect(res.body).toContain('<html lang="de">');
    expect(res.body).toContain('Ihre Angaben');
    expect((await get(`/e/${a.slug}/sooner`, 'en-US')).body).toContain('Your details');
  });
});

describe('the event page under its one-second cache', () => {
  it('keeps one rendering per language: a German browser never gets the English page, nor the reverse', async () => {
    const cached = await createTestApp({ now: '2026-11-22T12:00:00Z', config: { catalogueCacheMs: 60_000 } });
    try {
      const c = await seedAccount(
        cached.ctx,
        makeAccountFile({ events: [makeEvent({ slug: 'later', starts_at: '2027-05-01T18:00:00Z' })] }),
      );
      const get2 = (language: string) =>
        cached.app.inject({ method: 'GET', url: `/e/${c.slug}/later`, headers: { 'accept-language': language } });
      const en1 = await get2('en-GB');
      const de1 = await get2('de-DE');
      expect(en1.body).toContain('Continue to payment');
      expect(de1.body).toContain('Weiter zur Zahlung');
      // one rendering per language, sent as the same bytes (its script is allowed by hash)
      const en2 = await get2('en-GB');
      expect(en2.body).toBe(en1.body);
      expect(expectHashedScripts(en2)).toEqual({ scripts: 1 });
      expect((await get2('de-DE')).body).toBe(de1.body);
      expect((await get2('de-DE, en;q=0.5')).body).toBe(de1.body);
      expect((await get2('de-AT')).body).toContain('<html lang="de-AT">');
      expect(en1.headers['cache-control']).toBe('no-store');
    } finally {
      await cached.close();
    }
  });
});

describe('the calendar file', () => {
  it('is an iCalendar download of the event', async () => {
    const res = await get(`/e/${a.slug}/later/calendar.ics`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="later.ics"');
    const lines = res.body.replace(/\r\n /g, '').split('\r\n');
    expect(lines).toContain('DTSTART:20270501T180000Z');
    expect(lines).toContain('SUMMARY:Later <b>Show</b>');
    expect(lines).toContain('LOCATION:Halle Süd\\, Hafenstraße 12\\, Hamburg');
    expect(lines).toContain(`URL:http://admit.test/e/${a.slug}/later`);
    expect(lines.some((l) => l.startsWith('UID:event-') && l.endsWith('@admit.test'))).toBe(true);
    // the description's Markdown as words: no asterisks for a calendar to show
    expect(lines).toContain(
      `DESCRIPTION:Doors at 19:00\\, bring a friend.\\n\\n<script>alert(1)</script>\\n\\nhttp://admit.test/e/${a.slug}/later`,
    );
  });

  it('is linked from the event page', async () => {
    const page = await get(`/e/${a.slug}/later`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`href="/e/${a.slug}/later/calendar.ics"`);
  });

  it('is a 404 for an event of another account', async () => {
    expect((await get(`/e/${a.slug}/other/calendar.ics`)).statusCode).toBe(404);
  });
});
