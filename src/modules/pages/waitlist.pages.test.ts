import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { renderWaitlistJoinedMail, renderWaitlistOfferMail } from '../waitlist/waitlist.mail.ts';

/** The waiting list's buyer pages: join on a sold-out type, the confirmation, leaving by the mailed link, and their attacks. */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let ids: Record<string, number>;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

beforeAll(async () => {
  t = await createTestApp();
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'wlp',
      events: [
        makeEvent({
          slug: 'show',
          waiting_list: { enabled: true, offer_minutes: 120 },
          ticket_types: [
            { key: 'full', name: 'Front row', price: 2500, capacity: 1, max_per_order: 4 },
            { key: 'open', name: 'Balcony', price: 2500, capacity: 50 },
          ],
          orders: [makeOrder({ ref: 'WLP-1', lines: [{ kind: 'tickets', ref: 'full', quantity: 1, unit_price: 2500 }] })],
        }),
        makeEvent({
          slug: 'nolist',
          ticket_types: [{ key: 'full', name: 'Sold', price: 2500, capacity: 1 }],
          orders: [makeOrder({ ref: 'WLP-2', lines: [{ kind: 'tickets', ref: 'full', quantity: 1, unit_price: 2500 }] })],
        }),
      ],
    }),
  );
  const rows = await t.ctx.db
    .selectFrom('ticket_types as tt')
    .innerJoin('events as e', 'e.id', 'tt.event_id')
    .select(['tt.id', 'tt.key', 'e.slug'])
    .execute();
  ids = Object.fromEntries(rows.map((r) => [`${r.slug}/${r.key}`, r.id]));
});
afterAll(() => t.close());

/** The token of the page's waiting list form (not the checkout's). */
const waitlistCsrf = (body: string) => /<section class="admit-waitlist"[\s\S]*?name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
const entries = () => t.ctx.db.selectFrom('waiting_list_entries').selectAll().orderBy('id').execute();

async function join(
  fields: Record<string, string>,
  opts: { event?: string; csrfFrom?: string; headers?: Record<string, string> } = {},
) {
  const page = await t.app.inject({ method: 'GET', url: `/e/wlp/${opts.csrfFrom ?? 'show'}` });
  return t.app.inject({
    method: 'POST',
    url: `/e/wlp/${opts.event ?? 'show'}/waiting-list`,
    headers: { ...form, ...opts.headers },
    payload: new URLSearchParams({
      csrf: waitlistCsrf(page.body),
      ticket_type_id: String(ids['show/full']),
      quantity: '2',
      name: 'Ada',
      email: 'ada@example.org',
      ...fields,
    }).toString(),
  });
}

describe('the event page', () => {
  it('offers the list on a sold-out type only, in English and German, and not when the list is off', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/e/wlp/show' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Join the waiting list: Front row');
    expect(page.body).not.toContain('Join the waiting list: Balcony');
    expect(page.body).toContain('action="/e/wlp/show/waiting-list"');
    // the sold-out line points to the form
    expect(page.body).toContain(`<a href="#wl-${ids['show/full']}">Join the waiting list</a>`);
    // the quantity goes up to the type's per-order cap
    expect(page.body).toContain('<option value="4">4</option>');
    expect(page.body).not.toContain('<option value="5">5</option>');
    expect(waitlistCsrf(page.body)).not.toBe('');
    const de = await t.app.inject({ method: 'GET', url: '/e/wlp/show?lang=de' });
    expect(de.body).toContain('Auf die Warteliste: Front row');
    const off = await t.app.inject({ method: 'GET', url: '/e/wlp/nolist' });
    expect(off.body).not.toContain('admit-waitlist');
  });
});

describe('joining', () => {
  it('refuses a form without a token, a token of another form or event, and another site', async () => {
    const checkoutToken = /name="csrf" value="([^"]+)"/.exec(
      (await t.app.inject({ method: 'GET', url: '/e/wlp/show' })).body,
    )![1]!;
    const forged = [
      await join({ csrf: '' }),
      await join({ csrf: 'x'.repeat(40) }),
      await join({ csrf: checkoutToken }),
      await join({}, { csrfFrom: 'nolist' }),
      await join({}, { headers: { origin: 'https://evil.example' } }),
    ];
    expect(forged.map((r) => r.statusCode)).toEqual([403, 403, 403, 403, 403]);
    // a type of another event, or one on sale: back to the event page, nothing written
    const foreign = await join({ ticket_type_id: String(ids['nolist/full']) });
    expect([foreign.statusCode, foreign.headers.location]).toEqual([303, '/e/wlp/show']);
    const onSale = await join({ ticket_type_id: String(ids['show/open']) });
    expect([onSale.statusCode, onSale.headers.location]).toEqual([303, '/e/wlp/show']);
    expect(await entries()).toEqual([]);
  });

  it('shows the form again on bad input, writing nothing', async () => {
    const bads: Array<[Record<string, string>, string, Record<string, string>?]> = [
      [{ email: 'not-an-address' }, 'This is not an email address'],
      [{ email: '' }, 'Enter your email address'],
      [{ name: '' }, 'Enter your name'],
      [{ quantity: '5' }, 'Please check the highlighted fields.'],
      [{ quantity: 'lots' }, 'Please check the highlighted fields.'],
      // each problem in the page's language
      [{ name: '', email: 'x' }, 'Bitte geben Sie Ihren Namen ein', { 'accept-language': 'de' }],
    ];
    for (const [bad, said, headers] of bads) {
      const res = await join(bad, headers ? { headers } : {});
      expect(res.statusCode, JSON.stringify(bad)).toBe(422);
      expect(res.body).toContain('aria-invalid="true"');
      expect(res.body, JSON.stringify(bad)).toContain(said);
    }
    expect(await entries()).toEqual([]);
  });

  it('joins, confirms, mails a leave link; joining again answers the same and queues nobody twice', async () => {
    const res = await join({});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/e\/wlp\/show\/waiting-list\/joined\?/);
    const done = await t.app.inject({ method: 'GET', url: res.headers.location as string });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('You are on the waiting list');
    expect(done.body).toContain('2 × Front row');
    const again = await join({ name: 'Ada again', email: 'ADA@example.org' });
    expect([again.statusCode, again.headers.location]).toEqual([303, res.headers.location]);
    const rows = await entries();
    expect(rows.map((r) => [r.name, r.quantity, r.status, r.locale])).toEqual([['Ada', 2, 'waiting', 'en']]);
    const msg = await renderWaitlistJoinedMail(t.ctx, { entry_id: rows[0]!.id });
    expect(msg?.to).toBe('ada@example.org');
    expect(msg?.text).toContain(`/waiting-list/${rows[0]!.leave_secret}`);
    // the public still sees it sold out
    expect((await t.app.inject({ method: 'GET', url: '/e/wlp/show' })).body).toContain('Join the waiting list: Front row');
  });
});

describe('leaving by the mailed link', () => {
  it('the link shows a button; only its form, with its own token, removes; others are refused', async () => {
    const [ada] = await entries();
    const url = `/waiting-list/${ada!.leave_secret}`;
    const page = await t.app.inject({ method: 'GET', url });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Leave the waiting list');
    expect((await entries())[0]!.status).toBe('waiting');
    // another person's place, to forge with
    await join({ name: 'Bo', email: 'bo@example.org', quantity: '1' });
    const bo = (await entries())[1]!;
    const boToken = /name="csrf" value="([^"]+)"/.exec(
      (await t.app.inject({ method: 'GET', url: `/waiting-list/${bo.leave_secret}` })).body,
    )![1]!;
    const post = (path: string, csrf: string, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: path,
        headers: { ...form, ...headers },
        payload: new URLSearchParams({ csrf }).toString(),
      });
    const token = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    expect((await post(url, '')).statusCode).toBe(403);
    expect((await post(url, boToken)).statusCode).toBe(403);
    expect((await post(url, token, { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await post(`/waiting-list/${'z'.repeat(32)}`, token)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/waiting-list/${ada!.leave_secret.slice(0, -2)}zz` })).statusCode).toBe(
      404,
    );
    expect((await entries()).map((e) => e.status)).toEqual(['waiting', 'waiting']);
    const left = await post(url, token);
    expect([left.statusCode, left.headers.location]).toEqual([303, url]);
    expect((await entries()).map((e) => e.status)).toEqual(['removed', 'waiting']);
    const after = await t.app.inject({ method: 'GET', url });
    expect(after.body).toContain('You have left the waiting list');
    // sending it again changes nothing
    expect((await post(url, token)).statusCode).toBe(303);
    expect((await entries()).map((e) => e.status)).toEqual(['removed', 'waiting']);
  });

  it('mails the offer in the language the person joined in (German), with the pay link', async () => {
    const de = await join({ name: 'Grete', email: 'grete@example.org', quantity: '1', lang: 'de' });
    expect(de.statusCode).toBe(303);
    const grete = (await entries()).find((e) => e.name === 'Grete')!;
    expect(grete.locale).toBe('de');
    const joined = await renderWaitlistJoinedMail(t.ctx, { entry_id: grete.id });
    expect(joined?.subject).toContain('Sie stehen auf der Warteliste');
    // Bo and Grete wait; the seat comes back (the organiser raises capacity by 2): both get offers
    await t.call(a.tokens.all, {
      method: 'PATCH',
      url: `/api/v1/events/show/ticket-types/${ids['show/full']}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ capacity: 3 }),
    });
    await t.jobs.runAll();
    const offered = (await entries()).find((e) => e.name === 'Grete')!;
    expect(offered.status).toBe('offered');
    const mail = await renderWaitlistOfferMail(t.ctx, { entry_id: offered.id });
    expect(mail?.subject).toBe(`Tickets für ${'Event'} sind für Sie reserviert`.replace('Event', (await eventName())!));
    expect(mail?.text).toMatch(/\/pay\/\S+/);
    expect(mail?.text).toContain('Bitte bezahlen Sie bis');
    const en = await renderWaitlistOfferMail(t.ctx, {
      entry_id: (await entries()).find((e) => e.name === 'Bo')!.id,
    });
    expect(en?.subject).toContain('are reserved for you');
  });
});

const eventName = async () =>
  (await t.ctx.db.selectFrom('events').select('name').where('slug', '=', 'show').executeTakeFirst())?.name;
