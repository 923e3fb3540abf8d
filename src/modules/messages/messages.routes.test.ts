import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../../test/app.ts';
import { messagesFixture, type MessagesAccount } from './messages.fixture.ts';
import { renderMessageMail } from './messages.mail.ts';

/** Messages to attendees through the API (contract section 15): filters, counts, refusals, sending. */
let t: TestApp;
let a: MessagesAccount;
let other: MessagesAccount;
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  ({ t, a, other } = await messagesFixture());
});
afterAll(() => t.close());

const post = (body: unknown, slug = 'show', token: string = a.tokens.all) =>
  t.call(token, { method: 'POST', url: `/api/v1/events/${slug}/messages`, headers: json, payload: JSON.stringify(body) });
const list = (slug = 'show', token: string = a.tokens.all) =>
  t.call(token, { method: 'GET', url: `/api/v1/events/${slug}/messages` });
const countMessages = async () =>
  Number(
    (
      await t.ctx.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const outboxOf = (id: number) =>
  t.ctx.db
    .selectFrom('outbox')
    .select(['payload', 'status'])
    .where('kind', '=', 'mail.message')
    .where(({ ref }) => ref('payload', '->>').key('message_id'), '=', String(id))
    .execute();
const msg = { subject: 'Doors open at 19:00', body: 'See you **soon**.' };

describe('POST /api/v1/events/{slug}/messages', () => {
  it('answers 202 with the number of paid orders by default, one outbox mail per order', async () => {
    const res = await post(msg);
    expect(res.statusCode).toBe(202);
    const { id, recipients } = res.json();
    expect(recipients).toBe(3);
    expect(await outboxOf(id)).toHaveLength(3);
  });

  it.each([
    [{ ticket_types: ['vip'] }, 1],
    [{ ticket_types: ['ga', 'vip'] }, 3],
    [{ status: 'pending' }, 1],
    [{ status: ['paid', 'pending', 'refunded'] }, 5],
    [{ checked_in: true }, 1],
    [{ checked_in: false }, 2],
    [{ ticket_types: ['ga'], checked_in: false }, 1],
    [{ ticket_types: ['vip'], status: 'pending' }, 0],
  ])('filters recipients by %j', async (to, expected) => {
    const res = await post({ ...msg, to });
    expect(res.statusCode).toBe(202);
    expect(res.json().recipients).toBe(expected);
    expect(await outboxOf(res.json().id)).toHaveLength(expected);
  });

  it('refuses an unknown ticket type key with 422 naming it, and writes nothing', async () => {
    const before = await countMessages();
    const res = await post({ ...msg, to: { ticket_types: ['ga', 'balcony'] } });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.message).toContain('balcony');
    expect(body.error.fields['to.ticket_types'][0]).toContain('balcony');
    expect(await countMessages()).toBe(before);
  });

  it.each([
    [{ body: 'x' }, 'subject'],
    [{ subject: 'x' }, 'body'],
    [{ ...msg, subject: '   ' }, 'subject'],
    [{ ...msg, to: { status: 'lost' } }, 'status'],
    [{ ...msg, to: { checked_in: 'yes' } }, 'checked_in'],
    [{ ...msg, send_at: 'tomorrow' }, 'send_at'],
    [{ ...msg, cc: 'x' }, 'cc'],
  ])('refuses %j with the error shape', async (body, field) => {
    const before = await countMessages();
    const res = await post(body);
    expect(res.statusCode).toBe(422);
    const err = res.json().error;
    expect(err.code).toBe('validation_failed');
    expect(JSON.stringify(err.fields ?? err.message)).toContain(field);
    expect(await countMessages()).toBe(before);
  });

  it("answers 404 for another account's event and for an unknown one", async () => {
    expect((await post(msg, 'theirs')).statusCode).toBe(404);
    expect((await post(msg, 'theirs', other.tokens.all)).statusCode).toBe(202);
    expect((await list('theirs')).statusCode).toBe(404);
    expect((await post(msg, 'nope')).statusCode).toBe(404);
    // a token limited to 'show' does not see the account's other event
    expect((await post(msg, 'quiet', a.tokens.limited)).statusCode).toBe(404);
    expect((await list('quiet', a.tokens.limited)).statusCode).toBe(404);
  });

  it('needs orders.manage to write and orders.view to list', async () => {
    expect((await post(msg, 'show', a.tokens.orders)).statusCode).toBe(403);
    expect((await post(msg, 'show', a.tokens.view)).statusCode).toBe(403);
    expect((await post(msg, 'show', a.tokens.manage)).statusCode).toBe(202);
    expect((await list('show', a.tokens.orders)).statusCode).toBe(200);
    expect((await list('show', a.tokens.none)).statusCode).toBe(403);
    expect((await post(msg, 'show', '')).statusCode).toBe(401);
  });
});

describe('sending and GET /api/v1/events/{slug}/messages', () => {
  it('sends each mail, counts it on the message and logs it on the order', async () => {
    const { id } = (await post({ ...msg, to: { ticket_types: ['ga'] } }, 'show')).json();
    await t.jobs.runAll();
    const listed = (await list()).json().messages.find((m: { id: number }) => m.id === id);
    expect(listed).toMatchObject({
      subject: msg.subject,
      to: { ticket_types: ['ga'], status: ['paid'] },
      state: 'sent',
      recipients: 2,
      sent: 2,
      failed: 0,
    });
    const logged = await t.ctx.db
      .selectFrom('order_log as l')
      .innerJoin('orders as o', 'o.id', 'l.order_id')
      .select(['o.ref', 'l.data'])
      .where('l.action', '=', 'message_sent')
      .execute();
    const mine = logged.filter((l) => l.data.message_id === id).map((l) => l.ref);
    expect(mine.sort()).toEqual(['MSG-1', 'MSG-3']);
  });

  it('renders the Markdown body, sanitised, with a plain-text part, to the buyer', async () => {
    const order = await t.ctx.db.selectFrom('orders').select('id').where('ref', '=', 'MSG-1').executeTakeFirstOrThrow();
    const { id } = (
      await post({
        subject: 'Parking',
        body: '# Parking\n\nUse **gate 3**. <script>alert(1)</script> [map](https://example.org/map)',
      })
    ).json();
    const mail = await renderMessageMail(t.ctx, { message_id: id, order_id: order.id });
    expect(mail?.to).toBe('ann@example.org');
    expect(mail?.subject).toBe('Parking');
    expect(mail?.html).toContain('<strong>gate 3</strong>');
    expect(mail?.html).toContain('href="https://example.org/map"');
    expect(mail?.html).not.toContain('<script>');
    expect(mail?.html).toContain('MSG-1');
    expect(mail?.text).toContain('Use gate 3.');
    expect(mail?.text).toContain('/o/');
  });

  it('lists newest first and pages with next_after', async () => {
    const all = (await list()).json();
    expect(all.messages.length).toBeGreaterThan(3);
    const ids = all.messages.map((m: { id: number }) => m.id);
    expect([...ids].sort((x: number, y: number) => y - x)).toEqual(ids);
    const first = (await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/show/messages?limit=2' })).json();
    expect(first.messages).toHaveLength(2);
    const second = (
      await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/events/show/messages?limit=2&after=${first.next_after}` })
    ).json();
    expect(second.messages[0].id).toBe(ids[2]);
    expect((await list('quiet')).json()).toEqual({ messages: [], next_after: null });
  });
});

describe('the API document', () => {
  it('describes both operations', async () => {
    const doc = (await t.call(null, { method: 'GET', url: '/api/v1/openapi.json' })).json();
    const ops = doc.paths['/api/v1/events/{slug}/messages'];
    expect(Object.keys(ops).sort()).toEqual(['get', 'post']);
    expect(ops.post.responses['202']).toBeDefined();
  });
});
