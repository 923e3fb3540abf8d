import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { ConsoleClient } from '../../../test/console-client.ts';
import { inGerman, leftoverEnglish } from '../../../test/console-german.ts';
import { PW } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

/**
 * Every console list that can be empty says what will appear there and offers the next step (a
 * link, a button): in English and German, and only the steps the person may take.
 */
let t: TestApp;
const users = {
  owner: 'owner@empty.example',
  viewer: 'viewer@empty.example',
  door: 'door@empty.example',
  solo: 'solo@blank.example',
  soloViewer: 'viewer@blank.example',
  alone: 'alone@alone.example',
} as const;
const type = { key: 'ga', name: 'General admission', price: 2500, capacity: 100 };

beforeAll(async () => {
  t = await createTestApp();
  // an account with nothing in it
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'blank',
      tokens: [],
      users: [
        { email: users.solo, role: 'owner', password: PW },
        { email: users.soloViewer, role: 'viewer', password: PW },
      ],
      events: [],
    }),
  );
  // an account of one person
  await seedAccount(
    t.ctx,
    makeAccountFile({ slug: 'alone', tokens: [], users: [{ email: users.alone, role: 'owner', password: PW }], events: [] }),
  );
  // events at each step before their first order, and one that sold
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'shop',
      users: [
        { email: users.owner, role: 'owner', password: PW },
        { email: users.viewer, role: 'viewer', password: PW },
        { email: users.door, role: 'door', password: PW },
      ],
      events: [
        makeEvent({ slug: 'draft-ev', name: 'Draft night', status: 'draft', ticket_types: [type] }),
        makeEvent({ slug: 'archived-ev', name: 'Old fair', archived: true, ticket_types: [type] }),
        makeEvent({ slug: 'bare', name: 'Bare event', ticket_types: [] }),
        makeEvent({ slug: 'live', name: 'Live gig', ticket_types: [type] }),
        makeEvent({ slug: 'sold', name: 'Sold show', ticket_types: [type], orders: [makeOrder({ ref: 'SOLD-1' })] }),
      ],
    }),
  );
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

let ip = 0;
async function signedIn(who: keyof typeof users) {
  const c = new ConsoleClient(t.app);
  c.ip = `10.62.0.${++ip}`;
  expect((await c.signIn(users[who], PW)).statusCode).toBe(303);
  return c;
}

/** The empty state standing for `name` on a page: its text and the addresses it links to. */
function emptyOf(body: string, name: string): { text: string; hrefs: string[] } {
  const block = new RegExp(`<div class="card empty" data-empty="${name}">([\\s\\S]*?)</div>`).exec(body)?.[1];
  expect(block, `an empty state "${name}"`).toBeDefined();
  return {
    text: block!
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
    hrefs: [...block!.matchAll(/(?:href|action)="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&')),
  };
}

const S = '/console/a/shop';
const B = '/console/a/blank';

/** [page, list, words it says, the next steps it links to] for the account's owner. */
const OWNER_CASES: Array<[string, string, string, string[]]> = [
  [`${B}/events`, 'events', 'No events yet.', [`${B}/events/new`]],
  [`${B}/events?show=archived`, 'archived-events', 'No archived events.', [`${B}/events`]],
  [`${B}/door`, 'door', 'No events at the door today or coming up.', [`${B}/events/new`, `${B}/door?past=1`]],
  [`${B}/door?past=1`, 'door-past', 'No past events yet.', []],
  ['/console/a/alone/team', 'team', 'Only you so far.', ['#invite']],
  [`${B}/tokens`, 'tokens', 'No API tokens yet.', ['#new-token']],
  [`${B}/webhooks`, 'webhooks', 'No endpoints yet.', ['#add-endpoint']],
  [`${S}/events/draft-ev/orders`, 'orders', 'this event is a draft', [`${S}/events/draft-ev#lifecycle`]],
  [`${S}/events/archived-ev/orders`, 'orders', 'This event is archived', [`${S}/events/archived-ev#lifecycle`]],
  [`${S}/events/bare/orders`, 'orders', 'this event has no ticket types yet', [`${S}/events/bare/ticket-types#add`]],
  [
    `${S}/events/live/orders`,
    'orders',
    'Share your event page:',
    ['http://admit.test/e/shop/live', `${S}/events/live/orders/new`],
  ],
  [
    `${S}/events/live/dashboard`,
    'orders',
    'Share your event page:',
    ['http://admit.test/e/shop/live', `${S}/events/live/orders/new`],
  ],
  [`${S}/events/bare/dashboard`, 'availability', 'Nothing on sale yet', [`${S}/events/bare/ticket-types#add`]],
  [
    `${S}/events/live/reports`,
    'orders',
    'Share your event page:',
    ['http://admit.test/e/shop/live', `${S}/events/live/orders/new`],
  ],
  [`${S}/events/draft-ev/reports/orders`, 'orders', 'this event is a draft', [`${S}/events/draft-ev#lifecycle`]],
  [`${S}/events/sold/orders?status=canceled`, 'orders-match', 'No orders match these filters.', [`${S}/events/sold/orders`]],
  [
    `${S}/events/sold/reports?range=custom&from=2020-01-01&to=2020-01-31`,
    'range',
    'No orders in this range.',
    [`${S}/events/sold/reports?range=all`],
  ],
  [`${S}/events/live/waiting-list`, 'waiting-list', 'it is off for this event', ['#wl-settings']],
  [`${S}/events/live/messages`, 'messages', 'No messages yet.', ['#f-subject']],
  [`${S}/events/sold/orders/SOLD-1/invoices`, 'invoices', 'Issue one below', [`${S}/invoicing`]],
  ...(['ticket-types', 'goods', 'sessions', 'donations', 'codes', 'audiences', 'portals'] as const).map(
    (kind): [string, string, string, string[]] => [`${S}/events/bare/${kind}`, kind, 'yet.', ['#add']],
  ),
];

describe('empty lists, for an owner', () => {
  it.each(OWNER_CASES)('%s says what will be there (%s) and links the next step', async (url, name, words, next) => {
    const c = await signedIn(url.startsWith(B) ? 'solo' : url.startsWith(S) ? 'owner' : 'alone');
    const res = await c.get(url);
    expect(res.statusCode, url).toBe(200);
    const empty = emptyOf(res.body, name);
    expect(empty.text).toContain(words);
    expect(empty.hrefs).toEqual(next);
    // every step it offers is a page this person can open
    for (const href of next.filter((h) => h.startsWith('/console')))
      expect((await c.get(href.replace(/#.*/, ''))).statusCode, href).toBe(200);
  });

  it('says what each catalogue kind is for, and a choice of ticket types without any links to adding one', async () => {
    const c = await signedIn('owner');
    expect(emptyOf((await c.get(`${S}/events/bare/goods`)).body, 'goods').text).toContain('merchandise, parking');
    expect(emptyOf((await c.get(`${S}/events/bare/portals`)).body, 'portals').text).toContain('a partner or a channel');
    const codes = await c.get(`${S}/events/bare/codes`);
    expect(codes.body).toContain(`No ticket types yet. <a href="${S}/events/bare/ticket-types#add">Add a ticket type</a>`);
    expect(codes.body).toContain('<h2>Add a discount code</h2>');
    expect((await c.get(`${S}/events/bare/audiences`)).body).toContain('<h2>Add an audience</h2>');
  });

  it("sends a test event from an endpoint's empty delivery log", async () => {
    const c = await signedIn('owner');
    await c.get(`${S}/webhooks`);
    expect((await c.post(`${S}/webhooks`, { url: 'https://example.org/hook', description: 'CRM' })).statusCode).toBe(201);
    const row = await t.ctx.db.selectFrom('webhook_endpoints').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
    const log = emptyOf((await c.get(`${S}/webhooks/${row.id}`)).body, 'deliveries');
    expect(log.text).toContain('No deliveries yet.');
    expect(log.hrefs).toEqual([`${S}/webhooks/${row.id}/test`]);
  });
});

describe('empty lists, for those who may not take the step', () => {
  it('tells a viewer who can, and links no page they cannot use', async () => {
    const solo = await signedIn('soloViewer');
    const events = emptyOf((await solo.get(`${B}/events`)).body, 'events');
    expect(events.text).toContain('An owner or manager of the account creates them.');
    expect(events.hrefs).toEqual([]);
    const c = await signedIn('viewer');
    for (const slug of ['draft-ev', 'bare', 'archived-ev']) {
      const orders = emptyOf((await c.get(`${S}/events/${slug}/orders`)).body, 'orders');
      expect(orders.text, slug).toContain('An owner or manager of the account can change that.');
      expect(orders.hrefs, slug).toEqual([]);
    }
    // the event page to share, but no complimentary order
    expect(emptyOf((await c.get(`${S}/events/live/orders`)).body, 'orders').hrefs).toEqual(['http://admit.test/e/shop/live']);
    const waiting = emptyOf((await c.get(`${S}/events/live/waiting-list`)).body, 'waiting-list');
    expect(waiting.hrefs).toEqual([]);
    expect(emptyOf((await c.get(`${S}/events/live/messages`)).body, 'messages').hrefs).toEqual([]);
    expect(emptyOf((await c.get(`${S}/events/bare/codes`)).body, 'codes').hrefs).toEqual([]);
  });

  it('offers door staff the past events, not a new one', async () => {
    // the seeded events all start in 2027, so they are at the door now: move past them
    t.clock.advance(400 * 24 * 60 * 60 * 1000);
    try {
      const c = await signedIn('door');
      const door = emptyOf((await c.get(`${S}/door`)).body, 'door');
      expect(door.hrefs).toEqual([`${S}/door?past=1`]);
    } finally {
      t.clock.advance(-400 * 24 * 60 * 60 * 1000);
    }
  });
});

describe('empty lists in German', () => {
  const GERMAN: Array<[string, string, string, keyof typeof users]> = [
    [`${B}/events`, 'events', 'Erste Veranstaltung anlegen', 'solo'],
    [`${B}/events?show=archived`, 'archived-events', 'Zurück zu den aktuellen Veranstaltungen', 'solo'],
    [`${B}/door`, 'door', 'Vergangene Veranstaltungen ansehen', 'solo'],
    ['/console/a/alone/team', 'team', 'Bisher nur Sie.', 'alone'],
    [`${B}/tokens`, 'tokens', 'Noch keine API-Schlüssel.', 'solo'],
    [`${B}/webhooks`, 'webhooks', 'Endpunkt hinzufügen', 'solo'],
    [`${S}/events/draft-ev/orders`, 'orders', 'Veröffentlichen', 'owner'],
    [`${S}/events/archived-ev/orders`, 'orders', 'Aus dem Archiv holen', 'owner'],
    [`${S}/events/bare/orders`, 'orders', 'Ticketart hinzufügen', 'owner'],
    [`${S}/events/live/orders`, 'orders', 'Teilen Sie Ihre Veranstaltungsseite', 'owner'],
    [`${S}/events/sold/orders?status=canceled`, 'orders-match', 'Filter zurücksetzen', 'owner'],
    [`${S}/events/bare/dashboard`, 'availability', 'Noch nichts im Verkauf', 'owner'],
    [`${S}/events/sold/reports?range=custom&from=2020-01-01&to=2020-01-31`, 'range', 'Gesamten Zeitraum zeigen', 'owner'],
    [`${S}/events/live/waiting-list`, 'waiting-list', 'Warteliste einschalten', 'owner'],
    [`${S}/events/live/messages`, 'messages', 'Erste Nachricht schreiben', 'owner'],
    [`${S}/events/sold/orders/SOLD-1/invoices`, 'invoices', 'Einstellungen zur Rechnungsstellung', 'owner'],
    [`${S}/events/bare/codes`, 'codes', 'Rabattcodes ziehen einen Prozentsatz', 'owner'],
    [`${S}/events/bare/goods`, 'goods', 'Merchandise, Parkplätze', 'owner'],
  ];
  const english = [
    'No events yet',
    'Create your first event',
    'Only you so far',
    'No API tokens yet',
    'Add an endpoint',
    'Publish it',
    'Share your event page',
    'Clear the filters',
    'Show all time',
    'Turn the waiting list on',
    'Write the first message',
    'Invoicing settings',
    'No ticket types yet',
  ];

  it.each(GERMAN)('%s says it in German (%s)', async (url, name, words, who) => {
    const c = await signedIn(who);
    await inGerman(c, async () => {
      const res = await c.get(url);
      expect(res.statusCode).toBe(200);
      expect(emptyOf(res.body, name).text).toContain(words);
      expect(leftoverEnglish(res.body, english)).toEqual([]);
    });
  });
});

describe('the waiting list settings, the empty list’s next step', () => {
  const page = `${S}/events/live/waiting-list`;
  const etagOf = (body: string) => /id="wl-settings">[\s\S]*?name="etag" value="([^"]+)"/.exec(body)![1]!.replace(/&quot;/g, '"');
  const row = () =>
    t.ctx.db
      .selectFrom('events')
      .select(['waiting_list_enabled', 'waiting_list_offer_minutes'])
      .where('slug', '=', 'live')
      .executeTakeFirstOrThrow();

  it('turns the list on with how long an offer holds, and off again', async () => {
    const c = await signedIn('owner');
    const etag = etagOf((await c.get(page)).body);
    const res = await c.post(`${page}/settings`, { etag, enabled: '1', offer_minutes: '1,440' });
    expect([res.statusCode, res.headers.location]).toEqual([303, `${page}?done=settings`]);
    expect(await row()).toEqual({ waiting_list_enabled: true, waiting_list_offer_minutes: 1440 });
    const on = await c.get(res.headers.location as string);
    expect(on.body).toContain('The waiting list settings were saved.');
    expect(emptyOf(on.body, 'waiting-list').text).toContain('When a ticket type sells out');
    expect(on.body).toMatch(/id="f-enabled"[^>]*checked/);
    const off = await c.post(`${page}/settings`, { etag: etagOf(on.body), offer_minutes: '120' });
    expect(off.statusCode).toBe(303);
    expect(await row()).toEqual({ waiting_list_enabled: false, waiting_list_offer_minutes: 120 });
  });

  it('refuses minutes out of range beside the field, keeping what was typed', async () => {
    const c = await signedIn('owner');
    const before = await row();
    const etag = etagOf((await c.get(page)).body);
    for (const minutes of ['4', '20161', 'soon', '']) {
      const res = await c.post(`${page}/settings`, { etag, enabled: '1', offer_minutes: minutes });
      expect(res.statusCode, minutes).toBe(422);
      expect(res.body).toContain('Must be a whole number of minutes from 5 to 20,160.');
      expect(res.body).toMatch(new RegExp(`name="offer_minutes"\\s+type="text"\\s+value="${minutes}"`));
    }
    expect(await row()).toEqual(before);
  });

  it('does not overwrite a change made since the page was read', async () => {
    const c = await signedIn('owner');
    const etag = etagOf((await c.get(page)).body);
    expect((await c.post(`${page}/settings`, { etag, enabled: '1', offer_minutes: '60' })).statusCode).toBe(303);
    const stale = await c.post(`${page}/settings`, { etag, offer_minutes: '90' });
    expect(stale.headers.location).toBe(`${page}?done=stale#wl-settings`);
    expect((await row()).waiting_list_offer_minutes).toBe(60);
    expect((await c.get(`${page}?done=stale`)).body).toContain('Someone else changed this event');
  });

  it('is the owner’s and manager’s: a viewer gets no form and no route; no CSRF token, no change', async () => {
    const viewer = await signedIn('viewer');
    const shown = await viewer.get(page);
    expect(shown.body).not.toContain('id="wl-settings"');
    expect((await viewer.post(`${page}/settings`, { etag: 'x', enabled: '1', offer_minutes: '60' })).statusCode).toBe(404);
    const c = await signedIn('owner');
    const etag = etagOf((await c.get(page)).body);
    expect((await c.post(`${page}/settings`, { etag, offer_minutes: '60' }, { csrf: false })).statusCode).toBe(403);
  });
});
