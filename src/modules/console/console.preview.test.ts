import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { ConsoleClient, csrfIn } from '../../../test/console-client.ts';
import { inGerman } from '../../../test/console-german.ts';
import { PW, makeStaffedAccountFile } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';

/**
 * The event description's preview: the form's Preview button (no script: the form again, rendered
 * description below it, nothing saved) and the endpoint the typing preview calls (the buyer
 * page's very HTML, sanitised; its session, role, CSRF token and size checked).
 */
let t: TestApp;
// the account prev's staff; the stranger owns another account
const staff = { owner: 'owner@prev.example', manager: 'manager@prev.example', viewer: 'viewer@prev.example' } as const;
const people = { ...staff, stranger: 'stranger@other.example' } as const;

beforeAll(async () => {
  t = await createTestApp();
  await seedAccount(
    t.ctx,
    makeStaffedAccountFile(staff, {
      slug: 'prev',
      events: [makeEvent({ slug: 'gala', name: 'Gala', description: 'The **old** text.' })],
    }),
  );
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'other',
      users: [{ email: people.stranger, role: 'owner', password: PW }],
      events: [makeEvent({ slug: 'theirs' })],
    }),
  );
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

let ip = 0;
async function signedIn(who: keyof typeof people) {
  const c = new ConsoleClient(t.app);
  c.ip = `10.61.0.${++ip}`;
  expect((await c.signIn(people[who], PW)).statusCode).toBe(303);
  return c;
}

const PREVIEW = '/console/a/prev/markdown-preview';
const DETAILS = '/console/a/prev/events/gala';

/** The preview endpoint as the page's script calls it (JSON, the token in a header). */
function preview(c: ConsoleClient, body: unknown, opts: { csrf?: string | null; url?: string; origin?: string } = {}) {
  const token = opts.csrf === undefined ? c.csrf : opts.csrf;
  return t.app.inject({
    method: 'POST',
    url: opts.url ?? PREVIEW,
    headers: {
      cookie: `admit_session=${c.cookie}`,
      'content-type': 'application/json',
      ...(token === null ? {} : { 'x-csrf-token': token }),
      ...(opts.origin ? { origin: opts.origin } : {}),
    },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
    remoteAddress: c.ip,
  });
}

/** The version the details form sends back (the status card's forms carry their own). */
const etagOf = (body: string) =>
  new RegExp(`action="${DETAILS}" class="card">[\\s\\S]*?name="etag" value="([^"]+)"`).exec(body)![1]!.replace(/&quot;/g, '"');

const description = async () =>
  (await t.ctx.db.selectFrom('events').select('description').where('slug', '=', 'gala').executeTakeFirstOrThrow()).description;

/** The buyer page's description section, as served. */
async function buyerDescription(): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/e/prev/gala' });
  expect(res.statusCode).toBe(200);
  return /<section class="admit-description"[^>]*>([\s\S]*?)<\/section>/.exec(res.body)?.[1] ?? '';
}

describe('the preview endpoint', () => {
  it('answers the very HTML the buyer page shows for the same Markdown', async () => {
    const c = await signedIn('owner');
    await c.get(DETAILS);
    const markdown = '## Line-up\n\n- **Ada** at 19:00\n- _Grace_ at 21:00\n\nTickets: [info](https://example.org/info)';
    const res = await preview(c, { markdown });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const { html } = res.json() as { html: string };
    expect(html).toContain('<h3>Line-up</h3>');
    expect(html).toContain('<strong>Ada</strong>');
    // save the same text and compare with the buyer page
    const page = await c.get(DETAILS);
    const saved = await c.post(DETAILS, {
      etag: etagOf(page.body),
      name: 'Gala',
      timezone: 'Europe/Berlin',
      starts_at: '2027-03-15T19:00',
      locale: 'en',
      description: markdown,
    });
    expect(saved.statusCode, saved.body).toBe(303);
    expect(await buyerDescription()).toBe(html);
  });

  it('sends back script and markup sanitised, as the buyer page would', async () => {
    const c = await signedIn('owner');
    await c.get(DETAILS);
    const attacks = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '[click](javascript:alert(1))',
      '[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
      '![x](https://evil.example/pixel.png)',
      '<iframe src="https://evil.example"></iframe>',
      '"><svg onload=alert(1)>',
      '[x](vbscript:msgbox(1))',
    ];
    for (const markdown of attacks) {
      const res = await preview(c, { markdown });
      expect(res.statusCode, markdown).toBe(200);
      const { html } = res.json() as { html: string };
      // only the Markdown's own elements, and no attribute but a link's safe href
      for (const [, tag, attrs] of html.matchAll(/<(\w+)([^>]*)>/g)) {
        expect(['p', 'a', 'em', 'strong', 'code'], markdown).toContain(tag);
        expect(attrs!.trim(), markdown).toMatch(/^(href="(https?:|mailto:)[^"]*")?$/);
      }
    }
    // raw HTML is shown as text, not markup
    expect((await preview(c, { markdown: '<b>bold?</b>' })).json()).toEqual({ html: '<p>&lt;b&gt;bold?&lt;/b&gt;</p>\n' });
  });

  it('answers an empty string for an empty description', async () => {
    const c = await signedIn('manager');
    await c.get(DETAILS);
    expect((await preview(c, { markdown: '   \n ' })).json()).toEqual({ html: '' });
  });

  it('refuses without the form token, with a foreign one, or from another site (403)', async () => {
    const c = await signedIn('owner');
    await c.get(DETAILS);
    const other = await signedIn('manager');
    await other.get(DETAILS);
    const cases: Array<[string, Parameters<typeof preview>[2]]> = [
      ['no token', { csrf: null }],
      ['empty token', { csrf: '' }],
      ['forged token', { csrf: '1.nope' }],
      ["another person's token", { csrf: other.csrf }],
      ['another origin', { origin: 'https://evil.example' }],
    ];
    for (const [what, opts] of cases) {
      const res = await preview(c, { markdown: 'hi' }, opts);
      expect(res.statusCode, what).toBe(403);
      expect((res.json() as { error: { code: string } }).error.code, what).toBe('csrf_failed');
    }
  });

  it('is not there for a stranger to the account, a viewer, or nobody signed in', async () => {
    const stranger = await signedIn('stranger');
    await stranger.get('/console/a/other/events/theirs');
    expect((await preview(stranger, { markdown: 'hi' })).statusCode).toBe(404);
    // their own account's endpoint answers them
    expect((await preview(stranger, { markdown: 'hi' }, { url: '/console/a/other/markdown-preview' })).statusCode).toBe(200);
    const viewer = await signedIn('viewer');
    await viewer.get(DETAILS);
    expect((await preview(viewer, { markdown: 'hi' })).statusCode).toBe(404);
    const nobody = new ConsoleClient(t.app);
    expect((await preview(nobody, { markdown: 'hi' }, { csrf: 'x' })).statusCode).toBe(401);
  });

  it('refuses what is not a description: too long, too large, not the shape', async () => {
    const c = await signedIn('owner');
    await c.get(DETAILS);
    const long = await preview(c, { markdown: 'a'.repeat(20_001) });
    expect(long.statusCode).toBe(422);
    expect((await preview(c, { markdown: 'a'.repeat(20_000) })).statusCode).toBe(200);
    const huge = await preview(c, JSON.stringify({ markdown: 'a'.repeat(200_000) }));
    expect(huge.statusCode).toBe(413);
    expect((await preview(c, { markdown: 'x', extra: 1 })).statusCode).toBe(422);
    expect((await preview(c, { text: 'x' })).statusCode).toBe(422);
    expect((await preview(c, { markdown: 42 })).statusCode).toBe(422);
    expect((await preview(c, '{not json')).statusCode).toBe(422);
  });
});

describe('the Preview button (no script)', () => {
  it('shows the details form again with the description rendered below it, and saves nothing', async () => {
    const c = await signedIn('owner');
    const page = await c.get(DETAILS);
    const etag = etagOf(page.body);
    const before = await description();
    const res = await c.post(DETAILS, {
      intent: 'preview',
      etag,
      name: 'Gala night',
      timezone: 'Europe/Berlin',
      starts_at: '2027-03-15T19:00',
      locale: 'en',
      description: 'Doors at **19:00**.\n\n<script>alert(1)</script>',
    });
    expect(res.statusCode).toBe(200);
    const box = /<section id="description-preview"[\s\S]*?<\/section>/.exec(res.body)![0];
    expect(box).not.toMatch(/\shidden[\s>]/);
    expect(box).toContain('<strong>19:00</strong>');
    expect(box).toContain('&lt;script&gt;');
    expect(box).not.toContain('<script>');
    expect(box).toContain('nothing was saved yet');
    // what was typed stays in the form, with the version it was read with
    expect(res.body).toContain('value="Gala night"');
    expect(etagOf(res.body)).toBe(etag);
    expect(await description()).toBe(before);
    // saving after the preview goes through as usual
    const saved = await c.post(DETAILS, {
      etag,
      name: 'Gala',
      timezone: 'Europe/Berlin',
      starts_at: '2027-03-15T19:00',
      locale: 'en',
      description: 'Doors at **19:00**.',
    });
    expect(saved.statusCode).toBe(303);
    expect(await description()).toBe('Doors at **19:00**.');
  });

  it('keeps the version it was read with, so a change made since is still caught on saving', async () => {
    const c = await signedIn('owner');
    const page = await c.get(DETAILS);
    const etag = etagOf(page.body);
    const fields = { name: 'Gala', timezone: 'Europe/Berlin', starts_at: '2027-03-15T19:00', locale: 'en' };
    // someone else saves meanwhile
    const other = await signedIn('manager');
    await other.get(DETAILS);
    expect((await other.post(DETAILS, { ...fields, etag, description: 'Theirs.' })).statusCode).toBe(303);
    const shown = await c.post(DETAILS, { ...fields, intent: 'preview', etag, description: 'Mine.' });
    expect(etagOf(shown.body)).toBe(etag);
    expect((await c.post(DETAILS, { ...fields, etag, description: 'Mine.' })).statusCode).toBe(412);
    expect(await description()).toBe('Theirs.');
  });

  it('previews a new event without creating it', async () => {
    const c = await signedIn('owner');
    await c.get('/console/a/prev/events/new');
    const before = await t.ctx.db.selectFrom('events').select('id').execute();
    const res = await c.post('/console/a/prev/events/new', {
      intent: 'preview',
      name: 'Spring fair',
      slug: '',
      currency: 'eur',
      timezone: 'Europe/Berlin',
      starts_at: '',
      locale: 'en',
      description: '# Welcome\n\nAll *day* long.',
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h2>Welcome</h2>');
    expect(res.body).toContain('<em>day</em>');
    expect(res.body).toContain('value="Spring fair"');
    // no "is required" yet: a preview is not a save
    expect(res.body).not.toContain('aria-invalid="true"');
    expect((await t.ctx.db.selectFrom('events').select('id').execute()).length).toBe(before.length);
  });

  it('says the empty description plainly, and in German', async () => {
    const c = await signedIn('owner');
    const page = await c.get(DETAILS);
    const etag = etagOf(page.body);
    const fields = {
      etag,
      name: 'Gala',
      timezone: 'Europe/Berlin',
      starts_at: '2027-03-15T19:00',
      locale: 'en',
      description: '',
    };
    expect((await c.post(DETAILS, { ...fields, intent: 'preview' })).body).toContain(
      'Nothing to preview: the description is empty.',
    );
    await inGerman(c, async () => {
      const de = await c.get(DETAILS);
      expect(de.body).toContain('Vorschau der Beschreibung');
      const shown = await c.post(DETAILS, { ...fields, csrf: csrfIn(de.body), intent: 'preview' });
      expect(shown.body).toContain('Vorschau: so sehen Käufer sie');
      expect(shown.body).toContain('Nichts zu zeigen: Die Beschreibung ist leer.');
      expect(shown.body).toContain('Es wurde noch nichts gespeichert.');
    });
  });

  it('refuses a preview without the form token (403), and for those who may not change events (404)', async () => {
    const c = await signedIn('owner');
    await c.get(DETAILS);
    const res = await c.post(DETAILS, { intent: 'preview', description: 'x' }, { csrf: false });
    expect(res.statusCode).toBe(403);
    const viewer = await signedIn('viewer');
    await viewer.get(DETAILS);
    expect((await viewer.post(DETAILS, { intent: 'preview', description: 'x' })).statusCode).toBe(404);
    expect((await viewer.post('/console/a/prev/events/new', { intent: 'preview', description: 'x' })).statusCode).toBe(404);
  });

  it("serves the typing preview's script from the console's own files, under the page's policy", async () => {
    const c = await signedIn('owner');
    const page = await c.get(DETAILS);
    const src = /<script src="(\/console\/assets\/description-preview\.js\?v=\w+)" defer><\/script>/.exec(page.body)?.[1];
    expect(src).toBeDefined();
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self' 'nonce-/);
    const js = await t.app.inject({ method: 'GET', url: src! });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.body).toContain('data-preview-url');
  });
});
