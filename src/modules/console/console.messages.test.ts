import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../../../test/app.ts';
import { signedInAs } from '../../../test/console-account.ts';
import { MESSAGES_PEOPLE as people, messagesFixture } from '../messages/messages.fixture.ts';

/** Messages in the console: the list with counts, the form, its preview with a real order, sending, and who may. */
let t: TestApp;

beforeAll(async () => {
  ({ t } = await messagesFixture());
});
afterAll(() => t.close());
beforeEach(() => t.clock.advance(61_000));

const signedIn = (role: keyof typeof people) => signedInAs(t.app, people, role, '10.8.0');
const base = '/console/a/msg/events/show/messages';
const messages = () => t.ctx.db.selectFrom('messages').selectAll().orderBy('id').execute();
const draft = {
  subject: 'Camping opens early',
  body: 'The camp site opens at **noon**.',
  status: 'paid',
  checked_in: '',
  when: 'now',
};

describe('the messages page', () => {
  it('shows the tab and the form to a manager, the list only to a viewer', async () => {
    const m = await signedIn('manager');
    const page = await m.get(base);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('aria-current="page">Messages</a>');
    expect(page.body).toContain('name="ticket_types" value="vip"');
    expect(page.body).toContain('No messages yet.');
    const v = await signedIn('viewer');
    const seen = await v.get(base);
    expect(seen.statusCode).toBe(200);
    expect(seen.body).not.toContain('id="compose"');
    expect((await v.post(base, { ...draft, intent: 'send' })).statusCode).toBe(404);
    expect(await messages()).toHaveLength(0);
  });

  it('speaks German to a German browser', async () => {
    const m = await signedIn('manager');
    m.headers['accept-language'] = 'de';
    const page = await m.get(base);
    expect(page.body).toContain('Neue Nachricht');
    expect(page.body).toContain('>Nachrichten</a>');
  });

  it('refuses a form without its CSRF token and writes nothing', async () => {
    const m = await signedIn('manager');
    await m.get(base);
    expect((await m.post(base, { ...draft, intent: 'send' }, { csrf: false })).statusCode).toBe(403);
    expect(await messages()).toHaveLength(0);
  });

  it('previews the mail with the first matching order and says how many will receive it', async () => {
    const m = await signedIn('manager');
    await m.get(base);
    const res = await m.post(base, { ...draft, ticket_types: ['ga'], intent: 'preview' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('2 orders will receive it');
    expect(res.body).toContain('MSG-1');
    expect(res.body).toContain('ann@example.org');
    // the mail's HTML, escaped into the sandboxed frame's srcdoc, with the rendered Markdown
    expect(res.body).toMatch(/<iframe sandbox="" [^>]*srcdoc="[^"]*&lt;strong&gt;noon&lt;\/strong&gt;/);
    expect(res.body).toContain('The camp site opens at noon.');
    // the form keeps what was typed
    expect(res.body).toContain('value="Camping opens early"');
    expect(res.body).toMatch(/value="ga"\s+checked/);
    expect(await messages()).toHaveLength(0);
    const nobody = await m.post(base, { ...draft, ticket_types: ['vip'], checked_in: 'yes', intent: 'preview' });
    expect(nobody.body).toContain('No order matches');
  });

  it('shows errors by field, keeps what was typed, and sends nothing', async () => {
    const m = await signedIn('manager');
    await m.get(base);
    const res = await m.post(base, {
      ...draft,
      subject: ' ',
      body: 'Kept <b>as typed</b>',
      when: 'later',
      send_at: '',
      intent: 'send',
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('id="f-subject-err"');
    expect(res.body).toContain('Write a subject.');
    expect(res.body).toContain('id="f-send_at-err"');
    expect(res.body).toContain('Kept &lt;b&gt;as typed&lt;/b&gt;</textarea>');
    expect(await messages()).toHaveLength(0);
  });

  it('sends: queued for the matching orders, then listed with its counts', async () => {
    const m = await signedIn('manager');
    await m.get(base);
    const res = await m.post(base, { ...draft, ticket_types: ['vip'], checked_in: 'no', intent: 'send' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${base}?done=sent`);
    const [msg] = await messages();
    expect(msg).toMatchObject({ subject: 'Camping opens early', recipients: 1, created_by: people.manager });
    await t.jobs.runAll();
    const page = await m.get(`${base}?done=sent`);
    expect(page.body).toContain('Queued: the mails go out');
    expect(page.body).toContain('Camping opens early');
    expect(page.body).toMatch(/VIP · Paid · Not checked in/);
    expect(page.body).toMatch(/<td class="num">1<\/td>\s*<td class="num">1<\/td>\s*<td class="num">0<\/td>/);
    // the order's activity in the console names the message
    const desk = await m.get('/console/a/msg/events/show/orders/MSG-2');
    expect(desk.body).toContain('Message sent: &quot;Camping opens early&quot;');
  });

  it('schedules a message for a time in the event time zone', async () => {
    const m = await signedIn('manager');
    await m.get(base);
    const res = await m.post(base, {
      ...draft,
      subject: 'See you tomorrow',
      when: 'later',
      send_at: '2027-03-14T10:00',
      intent: 'send',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${base}?done=scheduled`);
    const msg = (await messages()).find((x) => x.subject === 'See you tomorrow')!;
    expect(msg.state).toBe('scheduled');
    expect(msg.send_at.toISOString()).toBe('2027-03-14T09:00:00.000Z');
  });

  it("answers 404 for another account's event", async () => {
    const m = await signedIn('manager');
    expect((await m.get('/console/a/msg-other/events/theirs/messages')).statusCode).toBe(404);
  });
});
