import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeStaffedAccountFile, signedInAs } from '../../../test/console-account.ts';
import { makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { ConsoleClient } from '../../../test/console-client.ts';

// The event lifecycle in the console (contract section 11): new events are drafts, preview,
// publish and back, the sales start, archive and the archived filter, delete with a confirmation.

let t: TestApp;
const people = { manager: 'm@example.org', viewer: 'v@example.org', door: 'd@example.org' } as const;

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  await seedAccount(
    t.ctx,
    makeStaffedAccountFile(people, {
      slug: 'acme',
      events: [makeEvent({ slug: 'gala', name: 'Gala', orders: [makeOrder({ ref: 'GALA-1' })] })],
    }),
  );
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

const etagIn = (body: string) => (/name="etag" value="([^"]+)"/.exec(body)?.[1] ?? '').replace(/&quot;/g, '"');
const event = (slug: string) =>
  t.ctx.db.selectFrom('events').select(['status', 'sales_start_at', 'archived']).where('slug', '=', slug).executeTakeFirst();

const signedIn = (role: keyof typeof people) => signedInAs(t.app, people, role, '10.2.0');

/** Posts a lifecycle action from the event's page, as the page's form does. */
async function act(c: ConsoleClient, slug: string, action: string, extra: Record<string, string> = {}) {
  const pageRes = await c.get(`/console/a/acme/events/${slug}`);
  return c.post(`/console/a/acme/events/${slug}/lifecycle`, { etag: etagIn(pageRes.body), action, ...extra });
}

describe('console lifecycle', () => {
  it('creates a new event as a draft that buyers cannot see, but staff can preview', async () => {
    const c = await signedIn('manager');
    await c.get('/console/a/acme/events/new');
    const res = await c.post('/console/a/acme/events/new', {
      slug: 'spring',
      name: 'Spring fair',
      currency: 'eur',
      timezone: 'Europe/Berlin',
      starts_at: '2027-04-01T18:00',
      locale: 'en',
    });
    expect(res.statusCode, res.body).toBe(303);
    expect((await event('spring'))!.status).toBe('draft');
    expect((await t.app.inject({ method: 'GET', url: '/e/acme/spring' })).statusCode).toBe(404);
    const list = await c.get('/console/a/acme/events');
    expect(list.body).toMatch(/spring · <span class="pill">draft<\/span>/);
    const details = await c.get('/console/a/acme/events/spring');
    expect(details.body).toContain('Status and schedule');
    expect(details.body).toContain('>Publish</button>');
    const preview = await c.get('/console/a/acme/events/spring/preview');
    expect(preview.statusCode).toBe(200);
    expect(preview.body).toContain('Spring fair');
    expect(preview.body).toContain('Preview: buyers cannot see this page');
    expect(preview.body).toContain('No tickets are on sale');
    // a viewer may look, door staff may not
    expect((await (await signedIn('viewer')).get('/console/a/acme/events/spring/preview')).statusCode).toBe(200);
    expect((await (await signedIn('door')).get('/console/a/acme/events/spring/preview')).statusCode).toBe(404);
  });

  it('publishes, and goes back to draft while there are no orders', async () => {
    const c = await signedIn('manager');
    const res = await act(c, 'spring', 'publish');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/a/acme/events/spring?lifecycle=published#lifecycle');
    expect((await event('spring'))!.status).toBe('published');
    expect((await t.app.inject({ method: 'GET', url: '/e/acme/spring' })).statusCode).toBe(200);
    const shown = await c.get('/console/a/acme/events/spring?lifecycle=published');
    expect(shown.body).toContain('The event is published');
    expect((await act(c, 'spring', 'draft')).headers.location).toContain('lifecycle=drafted');
    expect((await event('spring'))!.status).toBe('draft');
    await act(c, 'spring', 'publish');
  });

  it('an event with orders stays published and offers Archive, not Delete', async () => {
    const c = await signedIn('manager');
    const page = await c.get('/console/a/acme/events/gala');
    expect(page.body).not.toContain('Back to draft');
    expect(page.body).not.toContain('/events/gala/delete');
    expect(page.body).toContain('>Archive</button>');
    const res = await act(c, 'gala', 'draft');
    expect(res.headers.location).toContain('lifecycle=has-orders');
    expect((await event('gala'))!.status).toBe('published');
  });

  it('sets, refuses and clears the sales start', async () => {
    const c = await signedIn('manager');
    const res = await act(c, 'spring', 'schedule', { sales_start_at: '2027-01-10T09:00' });
    expect(res.headers.location).toContain('lifecycle=scheduled');
    expect((await event('spring'))!.sales_start_at!.toISOString()).toBe('2027-01-10T08:00:00.000Z');
    const buyer = await t.app.inject({ method: 'GET', url: '/e/acme/spring' });
    expect(buyer.body).toContain('Tickets go on sale');
    expect((await c.get('/console/a/acme/events/spring')).body).toContain('value="2027-01-10T09:00"');
    // after the event starts: refused, nothing changed
    const late = await act(c, 'spring', 'schedule', { sales_start_at: '2027-05-01T09:00' });
    expect(late.headers.location).toContain('lifecycle=bad-sales-start');
    const junk = await act(c, 'spring', 'schedule', { sales_start_at: 'soon' });
    expect(junk.headers.location).toContain('lifecycle=bad-sales-start');
    expect((await event('spring'))!.sales_start_at!.toISOString()).toBe('2027-01-10T08:00:00.000Z');
    expect((await act(c, 'spring', 'unschedule')).headers.location).toContain('lifecycle=unscheduled');
    expect((await event('spring'))!.sales_start_at).toBeNull();
  });

  it('refuses a change made over a stale page', async () => {
    const c = await signedIn('manager');
    const page = await c.get('/console/a/acme/events/spring');
    await act(c, 'spring', 'schedule', { sales_start_at: '2027-01-11T09:00' });
    const res = await c.post('/console/a/acme/events/spring/lifecycle', { etag: etagIn(page.body), action: 'unschedule' });
    expect(res.headers.location).toContain('lifecycle=stale');
    expect((await event('spring'))!.sales_start_at).not.toBeNull();
    await act(c, 'spring', 'unschedule');
  });

  it('archives an event with orders: off the list, on the archived filter, its orders intact', async () => {
    const c = await signedIn('manager');
    expect((await act(c, 'gala', 'archive')).headers.location).toContain('lifecycle=archived');
    expect((await event('gala'))!.archived).toBe(true);
    const current = await c.get('/console/a/acme/events');
    expect(current.body).not.toContain('/console/a/acme/events/gala"');
    const archived = await c.get('/console/a/acme/events?show=archived');
    expect(archived.body).toContain('/console/a/acme/events/gala"');
    expect(archived.body).toContain('<span class="pill">archived</span>');
    expect((await c.get('/console/a/acme/events/gala/orders')).statusCode).toBe(200);
    expect((await act(c, 'gala', 'unarchive')).headers.location).toContain('lifecycle=unarchived');
    expect((await c.get('/console/a/acme/events')).body).toContain('/console/a/acme/events/gala"');
  });

  it('deletes an event without orders after a confirmation; one with orders is refused', async () => {
    const c = await signedIn('manager');
    const confirm = await c.get('/console/a/acme/events/spring/delete');
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('This cannot be undone');
    // a form without its CSRF token changes nothing
    const forged = await c.post('/console/a/acme/events/spring/delete', {}, { csrf: false });
    expect(forged.statusCode).toBe(403);
    expect(await event('spring')).toBeDefined();
    const res = await c.post('/console/a/acme/events/spring/delete', {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/a/acme/events?done=event-deleted');
    expect(await event('spring')).toBeUndefined();
    expect((await c.get('/console/a/acme/events?done=event-deleted')).body).toContain('The event was deleted.');
    expect((await c.get('/console/a/acme/events/spring')).statusCode).toBe(404);

    expect((await c.get('/console/a/acme/events/gala/delete')).body).toContain('cannot be deleted');
    const refused = await c.post('/console/a/acme/events/gala/delete', {});
    expect(refused.headers.location).toContain('lifecycle=has-orders');
    expect(await event('gala')).toBeDefined();
  });

  it('the door page is never a dead end: an event whose lists were all removed links to adding one', async () => {
    const gala = await t.ctx.db.selectFrom('events').select('id').where('slug', '=', 'gala').executeTakeFirstOrThrow();
    const lists = await t.ctx.db.selectFrom('checkin_lists').select('key').where('event_id', '=', gala.id).execute();
    expect(lists.map((l) => l.key)).toEqual(['all-tickets']);
    await t.ctx.db.updateTable('checkin_lists').set({ archived_at: new Date() }).where('event_id', '=', gala.id).execute();
    try {
      const m = await signedIn('manager');
      const page = await m.get('/console/a/acme/door');
      expect(page.body).toContain('This event has no check-in list.');
      expect(page.body).toContain('href="/console/a/acme/events/gala/checkin-lists">Add one</a>');
      const door = await (await signedIn('door')).get('/console/a/acme/door');
      expect(door.body).toContain('Ask an organiser to add one.');
    } finally {
      await t.ctx.db.updateTable('checkin_lists').set({ archived_at: null }).where('event_id', '=', gala.id).execute();
    }
  });

  it('a viewer sees no lifecycle card and cannot change anything (404)', async () => {
    const v = await signedIn('viewer');
    const page = await v.get('/console/a/acme/events/gala');
    expect(page.body).not.toContain('Status and schedule');
    const m = await signedIn('manager');
    const etag = etagIn((await m.get('/console/a/acme/events/gala')).body);
    await v.get('/console/a/acme/events/gala');
    for (const [url, data] of [
      ['/console/a/acme/events/gala/lifecycle', { etag, action: 'archive' }],
      ['/console/a/acme/events/gala/delete', {}],
    ] as const) {
      const res = await v.post(url, data);
      expect(res.statusCode, url).toBe(404);
    }
    expect((await v.get('/console/a/acme/events/gala/delete')).statusCode).toBe(404);
    expect(await event('gala')).toEqual({ status: 'published', sales_start_at: null, archived: false });
  });
});
