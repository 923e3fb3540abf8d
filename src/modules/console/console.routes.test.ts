import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { PW, makeStaffedAccountFile, signedInAs } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { ConsoleClient } from '../../../test/console-client.ts';
import { inGerman, leftoverEnglish } from '../../../test/console-german.ts';
import { renderInvitationMail, renderPasswordResetMail } from '../users/users.mail.ts';

let t: TestApp;
const people = {
  owner: 'owner@example.org',
  manager: 'manager@example.org',
  door: 'door@example.org',
  viewer: 'viewer@example.org',
} as const;

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
          ticket_types: [{ key: 'ga', name: 'General', price: 2500, capacity: 10 }],
          orders: [makeOrder({ ref: 'GALA-0001' })],
        }),
      ],
    }),
  );
  await seedAccount(
    t.ctx,
    makeAccountFile({ slug: 'other-co', users: [{ email: 'other@example.org', role: 'owner', password: PW }] }),
  );
});
afterAll(() => t.close());
// each test its own minute of sign-in budget (per email and per address)
beforeEach(() => t.clock.advance(61_000));

const galaType = () =>
  t.ctx.db
    .selectFrom('ticket_types as tt')
    .innerJoin('events as e', 'e.id', 'tt.event_id')
    .selectAll('tt')
    .where('e.slug', '=', 'gala')
    .where('tt.key', '=', 'ga')
    .executeTakeFirstOrThrow();
const etagIn = (body: string) => (/name="etag" value="([^"]+)"/.exec(body)?.[1] ?? '').replace(/&quot;/g, '"');
/** A browser-like client on this app, signing in with the test password by default. */
class Client extends ConsoleClient {
  constructor() {
    super(t.app);
  }
  override signIn(email: string, password = PW) {
    return super.signIn(email, password);
  }
}

const signedIn = (role: keyof typeof people) => signedInAs(t.app, people, role, '10.1.0');

describe('console sign-in', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie scoped to /console and lands on the events', async () => {
    const c = new Client();
    await c.get('/console/sign-in');
    const res = await c.post('/console/sign-in', { email: 'OWNER@example.org', password: PW, next: '/console/a/acme/team' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/a/acme/team');
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/admit_session=[\w-]{40,}; Path=\/console; HttpOnly; SameSite=Lax/);
    expect(cookie).not.toContain('Secure');
    // the session is stored hashed: the cookie value is not in the database
    const stored = await t.ctx.db.selectFrom('console_sessions').select('id').execute();
    expect(stored.some((s) => s.id === c.cookie)).toBe(false);
    expect((await c.get('/console/a/acme/events')).statusCode).toBe(200);
  });

  it('answers a wrong password and an unknown email alike, and never redirects off the console', async () => {
    const c = new Client();
    c.ip = '10.2.0.1';
    await c.get('/console/sign-in');
    const wrong = await c.post('/console/sign-in', { email: people.owner, password: 'nope nope nope' });
    const unknown = await c.post('/console/sign-in', { email: 'ghost@example.org', password: 'nope nope nope' });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    const message = (b: string) => /role="alert">([^<]*)</.exec(b)?.[1];
    expect(message(wrong.body)).toBe(message(unknown.body));
    const evil = await c.post('/console/sign-in', { email: people.owner, password: PW, next: 'https://evil.example/' });
    expect(evil.headers.location).toBe('/console');
  });

  it('throttles sign-in per email and per address with a clear message', async () => {
    const c = new Client();
    c.ip = '10.3.0.1';
    await c.get('/console/sign-in');
    const codes = [];
    for (let i = 0; i < 7; i++)
      codes.push((await c.post('/console/sign-in', { email: people.viewer, password: `wrong ${i} wrong` })).statusCode);
    expect(codes.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(codes.slice(5)).toEqual([429, 429]);
    // the right password is refused too while the email is throttled
    const right = await c.post('/console/sign-in', { email: people.viewer, password: PW });
    expect(right.statusCode).toBe(429);
    expect(right.body).toContain('Too many sign-in attempts');
    // per address: twenty tries over many emails
    const d = new Client();
    d.ip = '10.3.0.2';
    await d.get('/console/sign-in');
    const many = [];
    for (let i = 0; i < 22; i++)
      many.push((await d.post('/console/sign-in', { email: `x${i}@example.org`, password: 'whatever long' })).statusCode);
    expect(many.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    await sql`delete from rate_limits where key like 'signin:%'`.execute(t.ctx.db);
  });

  it('refuses a sign-in form without its CSRF token', async () => {
    const c = new Client();
    const res = await c.post('/console/sign-in', { email: people.owner, password: PW }, { csrf: false });
    expect(res.statusCode).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('signs out: the session ends on the server', async () => {
    const c = await signedIn('manager');
    const old = c.cookie;
    await c.get('/console/a/acme/events');
    expect((await c.post('/console/sign-out', {})).statusCode).toBe(303);
    c.cookie = old;
    const after = await c.get('/console/a/acme/events');
    expect(after.statusCode).toBe(303);
    expect(after.headers.location).toMatch(/^\/console\/sign-in/);
  });
});

describe('roles, on every page and form', () => {
  const pages = [
    '/console/a/acme/events',
    '/console/a/acme/events/new',
    '/console/a/acme/events/gala',
    '/console/a/acme/events/gala/ticket-types',
    '/console/a/acme/events/gala/codes',
    '/console/a/acme/team',
    '/console/a/acme/tokens',
    '/console/a/acme/webhooks',
  ];
  const allowed: Record<keyof typeof people, string[]> = {
    owner: pages,
    manager: pages.filter((p) => !/\/(team|tokens|webhooks)$/.test(p)),
    viewer: pages.filter((p) => !/\/(team|tokens|webhooks|new)$/.test(p)),
    door: [],
  };

  it('shows each role only its pages; others are 404, as is another account', async () => {
    for (const role of Object.keys(people) as Array<keyof typeof people>) {
      const c = await signedIn(role);
      for (const p of pages) {
        const res = await c.get(p);
        expect([role, p, res.statusCode]).toEqual([role, p, allowed[role].includes(p) ? 200 : 404]);
      }
      expect((await c.get('/console/a/other-co/events')).statusCode).toBe(404);
      expect((await c.get('/console/me')).statusCode).toBe(200);
    }
  });

  it('a viewer and a door person cannot post any change; nothing is written', async () => {
    const typeRow = await t.ctx.db
      .selectFrom('ticket_types')
      .select(['name', 'price_cents'])
      .where('key', '=', 'ga')
      .executeTakeFirstOrThrow();
    const forms: Array<[string, Record<string, string>]> = [
      ['/console/a/acme/events/new', { slug: 'x1', name: 'X', currency: 'eur', timezone: 'UTC', starts_at: '2027-01-01T10:00' }],
      ['/console/a/acme/events/gala', { name: 'Hijacked', timezone: 'UTC', starts_at: '2027-01-01T10:00', etag: 'x' }],
      ['/console/a/acme/events/gala/duplicate', { slug: 'copy' }],
      ['/console/a/acme/events/gala/ticket-types', { key: 'x', name: 'X', price: '1' }],
      ['/console/a/acme/events/gala/ticket-types/ga', { name: 'Hijacked', price: '0' }],
      ['/console/a/acme/events/gala/ticket-types/ga/delete', {}],
      ['/console/a/acme/events/gala/codes-generate', { count: '5', percent_off: '100' }],
      ['/console/a/acme/team', { email: 'friend@example.org', role: 'owner' }],
      ['/console/a/acme/team/1', { role: 'viewer' }],
      ['/console/a/acme/tokens', { name: 'mine', capabilities: 'refund' }],
      ['/console/a/acme/tokens/1/revoke', {}],
      ['/console/a/acme/webhooks', { url: 'https://example.org/hook' }],
    ];
    const before = await sql<{
      f: string;
    }>`select concat_ws('|', (select count(*) from events), (select count(*) from ticket_types),
      (select count(*) from discount_codes), (select count(*) from invitations), (select count(*) from api_tokens),
      (select string_agg(role, ',' order by user_id) from memberships)) as f`.execute(t.ctx.db);
    for (const role of ['viewer', 'door'] as const) {
      const c = await signedIn(role);
      await c.get('/console/me');
      for (const [url, data] of forms) {
        const res = await c.post(url, data);
        expect([role, url, res.statusCode]).toEqual([role, url, 404]);
      }
    }
    const after = await sql<{
      f: string;
    }>`select concat_ws('|', (select count(*) from events), (select count(*) from ticket_types),
      (select count(*) from discount_codes), (select count(*) from invitations), (select count(*) from api_tokens),
      (select string_agg(role, ',' order by user_id) from memberships)) as f`.execute(t.ctx.db);
    expect(after.rows[0]!.f).toBe(before.rows[0]!.f);
    expect(
      await t.ctx.db.selectFrom('ticket_types').select(['name', 'price_cents']).where('key', '=', 'ga').executeTakeFirstOrThrow(),
    ).toEqual(typeRow);
  });

  it('a manager edits the catalogue through the document: If-Match protects a concurrent edit', async () => {
    const c = await signedIn('manager');
    const page = await c.get('/console/a/acme/events/gala/ticket-types');
    const etag = etagIn(page.body);
    const save = await c.post('/console/a/acme/events/gala/ticket-types/ga', {
      etag,
      name: 'General admission',
      price: '27.50',
      capacity: '12',
      max_per_order: '',
      position: '0',
      on_sale: '1',
      tax_rate_bp: '7',
    });
    expect(save.statusCode, save.body.slice(0, 500)).toBe(303);
    const ga = await galaType();
    expect([ga.name, ga.price_cents, ga.capacity, ga.tax_rate_bp, ga.on_sale]).toEqual([
      'General admission',
      2750,
      12,
      700,
      true,
    ]);
    // the same page's ETag again: the event changed meanwhile, so 412 and nothing applied
    const stale = await c.post('/console/a/acme/events/gala/ticket-types/ga', { etag, name: 'Overwritten', price: '1' });
    expect(stale.statusCode).toBe(412);
    expect(stale.body).toContain('Someone else changed this event');
    expect(
      (await t.ctx.db.selectFrom('ticket_types').select('name').where('key', '=', 'ga').executeTakeFirstOrThrow()).name,
    ).toBe('General admission');
    // a capacity below what is sold: 409, the message beside the field, the input kept
    const fresh = etagIn((await c.get('/console/a/acme/events/gala/ticket-types')).body);
    const low = await c.post('/console/a/acme/events/gala/ticket-types/ga', {
      etag: fresh,
      name: 'General admission',
      price: '27.50',
      capacity: '0',
    });
    expect(low.statusCode).toBe(409);
    expect(low.body).toMatch(/class="error"[^>]*>[^<]*taken by orders/);
    expect(low.body).toContain('value="0"');
  });

  it('an owner invites a person who accepts by mail, changes their role, and cannot remove the last owner', async () => {
    const c = await signedIn('owner');
    await c.get('/console/a/acme/team');
    expect((await c.post('/console/a/acme/team', { email: 'new.hire@example.org', role: 'door' })).statusCode).toBe(303);
    const mail = await t.ctx.db
      .selectFrom('outbox')
      .select('payload')
      .where('kind', '=', 'mail.invitation')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const payload = (typeof mail.payload === 'string' ? JSON.parse(mail.payload) : mail.payload) as Record<string, unknown>;
    const rendered = await renderInvitationMail(t.ctx, payload);
    expect(rendered?.to).toBe('new.hire@example.org');
    const link = /http:\/\/admit\.test(\/console\/invite\/[\w-]+)/.exec(rendered!.text)![1]!;
    const guest = new Client();
    guest.ip = '10.5.0.1';
    expect((await guest.get(link)).statusCode).toBe(200);
    const accepted = await guest.post(link, { name: 'New Hire', password: 'short' });
    expect(accepted.statusCode).toBe(422);
    const ok = await guest.post(link, { name: 'New Hire', password: 'a brand new password' });
    expect(ok.statusCode).toBe(303);
    expect((await guest.get('/console')).headers.location).toBe('/console/a/acme/door');
    expect((await guest.get(link)).statusCode).toBe(404);

    const hire = await t.ctx.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'new.hire@example.org')
      .executeTakeFirstOrThrow();
    await c.get('/console/a/acme/team');
    expect((await c.post(`/console/a/acme/team/${hire.id}`, { role: 'manager' })).statusCode).toBe(303);
    expect((await guest.get('/console/a/acme/events')).statusCode).toBe(200);
    const me = await t.ctx.db.selectFrom('users').select('id').where('email', '=', people.owner).executeTakeFirstOrThrow();
    const last = await c.post(`/console/a/acme/team/${me.id}`, { role: 'viewer' });
    expect(last.statusCode).toBe(409);
    expect(last.body).toContain('An account needs an owner');
  });

  it('an owner creates a token (secret shown once, never in a URL) and revokes it', async () => {
    const c = await signedIn('owner');
    await c.get('/console/a/acme/tokens');
    const res = await c.post('/console/a/acme/tokens', {
      name: 'Box office',
      capabilities: ['events.view', 'orders.view'],
      events: ['gala'],
    });
    expect(res.statusCode).toBe(201);
    const secret = /<code class="secret">([^<]+)<\/code>/.exec(res.body)![1]!;
    expect(
      (await t.call(secret, { method: 'GET', url: '/api/v1/events' })).json().events.map((e: { slug: string }) => e.slug),
    ).toEqual(['gala']);
    expect((await c.get('/console/a/acme/tokens')).body).not.toContain(secret);
    const id = (await t.ctx.db.selectFrom('api_tokens').select('id').where('name', '=', 'Box office').executeTakeFirstOrThrow())
      .id;
    expect((await c.post(`/console/a/acme/tokens/${id}/revoke`, {})).statusCode).toBe(303);
    expect((await t.call(secret, { method: 'GET', url: '/api/v1/events' })).statusCode).toBe(401);
  });
});

describe('password reset and two-step sign-in', () => {
  it('mails a reset link only for a known email, answers alike, and the link sets a new password once', async () => {
    const c = new Client();
    c.ip = '10.6.0.1';
    await c.get('/console/forgot');
    const before = await t.ctx.db
      .selectFrom('outbox')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('kind', '=', 'mail.password_reset')
      .executeTakeFirstOrThrow();
    const unknown = await c.post('/console/forgot', { email: 'ghost@example.org' });
    await c.get('/console/forgot');
    const known = await c.post('/console/forgot', { email: people.manager });
    expect(unknown.body.replace(/csrf" value="[^"]+"/g, '')).toBe(known.body.replace(/csrf" value="[^"]+"/g, ''));
    const mails = await t.ctx.db
      .selectFrom('outbox')
      .select('payload')
      .where('kind', '=', 'mail.password_reset')
      .orderBy('id')
      .execute();
    expect(mails.length).toBe(before.n + 1);
    const payload = mails.at(-1)!.payload;
    const mail = await renderPasswordResetMail(
      t.ctx,
      (typeof payload === 'string' ? JSON.parse(payload) : payload) as Record<string, unknown>,
    );
    const link = /http:\/\/admit\.test(\/console\/reset\/[\w-]+)/.exec(mail!.text)![1]!;
    const session = await signedIn('manager');
    await c.get(link);
    expect((await c.post(link, { password: 'brand new secret pw' })).statusCode).toBe(303);
    expect((await c.get(link)).statusCode).toBe(404);
    // every session of that person ended; the new password works
    expect((await session.get('/console/a/acme/events')).statusCode).toBe(303);
    expect((await new Client().signIn(people.manager, 'brand new secret pw')).statusCode).toBe(303);
  });

  it('turns on TOTP, then asks for a code after the password', async () => {
    const c = await signedIn('viewer');
    await c.get('/console/me');
    await c.post('/console/me/2fa/start', {});
    const page = await c.get('/console/me');
    const key = /Key: <code>([A-Z2-7]+)<\/code>/.exec(page.body)![1]!;
    const totp = new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' });
    const code = () => totp.generate({ timestamp: t.clock.now().getTime() });
    expect((await c.post('/console/me/2fa/confirm', { code: '000000' === code() ? '111111' : '000000' })).statusCode).toBe(422);
    expect((await c.post('/console/me/2fa/confirm', { code: code() })).statusCode).toBe(303);

    const d = new Client();
    d.ip = '10.7.0.1';
    const first = await d.signIn(people.viewer);
    expect(first.headers.location).toMatch(/^\/console\/sign-in\/code/);
    // password alone is not a session
    expect((await d.get('/console/a/acme/events')).statusCode).toBe(303);
    await d.get('/console/sign-in/code');
    expect((await d.post('/console/sign-in/code', { code: '12345' })).statusCode).toBe(401);
    expect((await d.post('/console/sign-in/code', { code: code(), next: '/console' })).statusCode).toBe(303);
    expect((await d.get('/console/a/acme/events')).statusCode).toBe(200);
  });
});

describe('webhooks page', () => {
  it('an owner adds an endpoint (secret shown once), sends a test event and reads the delivery log', async () => {
    const c = await signedIn('owner');
    await c.get('/console/a/acme/webhooks');
    const made = await c.post('/console/a/acme/webhooks', {
      url: 'https://hooks.example.org/admit',
      events: ['order.paid', 'order.refunded'],
    });
    expect(made.statusCode).toBe(201);
    const secret = /<code class="secret">([^<]+)<\/code>/.exec(made.body)![1]!;
    expect(secret).toMatch(/^whsec_/);
    expect((await c.get('/console/a/acme/webhooks')).body).not.toContain(secret);
    const ep = await t.ctx.db.selectFrom('webhook_endpoints').select(['id', 'events']).executeTakeFirstOrThrow();
    expect(ep.events).toEqual(['order.paid', 'order.refunded']);
    expect((await c.post(`/console/a/acme/webhooks/${ep.id}/test`, {})).statusCode).toBe(303);
    const log = await c.get(`/console/a/acme/webhooks/${ep.id}`);
    expect(log.statusCode).toBe(200);
    expect(log.body).toContain('webhook.test');
    const bad = await c.post('/console/a/acme/webhooks', { url: 'ftp://nope' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('Must be an http or https URL.');
  });

  it('speaks German to an owner who chose it: the endpoints, the delivery log and the refusals', async () => {
    const c = await signedIn('owner');
    await inGerman(c, async () => {
      await c.get('/console/a/acme/webhooks');
      const made = await c.post('/console/a/acme/webhooks', { url: 'https://hooks.example.org/de' });
      expect(made.statusCode).toBe(201);
      expect(made.body).toContain('Der Endpunkt wurde hinzugefügt.');
      expect(made.body).toContain('Signaturschlüssel für https://hooks.example.org/de');
      const list = await c.get('/console/a/acme/webhooks');
      expect(list.body).toContain('<html lang="de"');
      expect(list.body).toContain('Endpunkt hinzufügen');
      expect(list.body).toContain('Zustellprotokoll');
      expect(list.body).toContain('Testereignis senden');
      const english = [
        'Add an endpoint',
        'Delivery log',
        'Send a test event',
        'Rotate the secret',
        'Description',
        'every event',
        'Edit',
      ];
      expect(leftoverEnglish(list.body, english)).toEqual([]);

      const ep = await t.ctx.db
        .selectFrom('webhook_endpoints')
        .select('id')
        .where('url', '=', 'https://hooks.example.org/de')
        .executeTakeFirstOrThrow();
      expect((await c.post(`/console/a/acme/webhooks/${ep.id}/test`, {})).statusCode).toBe(303);
      const log = await c.get(`/console/a/acme/webhooks/${ep.id}`);
      expect(log.body).toContain('Fehlgeschlagene Zustellungen erneut senden');
      expect(log.body).toContain('Versuche');
      expect(log.body).toMatch(/ausstehend|zugestellt|fehlgeschlagen/);
      const logEnglish = ['All endpoints', 'Send failed deliveries again', 'Attempts', 'Redeliver', 'Deliveries to', 'pending'];
      expect(leftoverEnglish(log.body, logEnglish)).toEqual([]);
      const noMoment = await c.post(`/console/a/acme/webhooks/${ep.id}/redeliver-failed`, { since: '' });
      expect(noMoment.statusCode).toBe(422);
      expect(noMoment.body).toContain('Bitte geben Sie Datum und Uhrzeit an.');

      const bad = await c.post('/console/a/acme/webhooks', { url: 'ftp://nope' });
      expect(bad.statusCode).toBe(422);
      expect(bad.body).toContain('Muss eine http- oder https-Adresse sein.');
      const refused = await c.post(`/console/a/acme/webhooks/${ep.id}`, { url: 'ftp://nope' });
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain('Nicht gespeichert: Muss eine http- oder https-Adresse sein.');
      const rotated = await c.post(`/console/a/acme/webhooks/${ep.id}/rotate`, {});
      expect(rotated.body).toContain('Ab jetzt signiert ein neuer Schlüssel');
    });
  });
});
