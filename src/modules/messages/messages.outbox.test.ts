import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';
import { startFakeSmtp, type FakeSmtp } from '../../../test/fakes/fake-smtp.ts';
import { dispatchOutbox } from '../../platform/jobs/outbox-dispatcher.ts';
import { outboxHandlers } from '../../outbox-handlers.ts';
import { sendDueMessages } from './messages.service.ts';

/**
 * Messages through the outbox: each order's mail goes once however often the outbox hands it over,
 * a failure is counted, a scheduled message goes once when its time comes, and a message to
 * 10,000 orders is queued whole, one outbox row and one delivery per order. (How fast is a
 * benchmark's question, not a test's: a timed assertion here failed on a busy machine.)
 */
let t: TestApp;
let smtp: FakeSmtp;
let a: Awaited<ReturnType<typeof seedAccount>>;
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  smtp = await startFakeSmtp();
  t = await createTestApp({ config: { smtpUrl: smtp.url } });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'msg-out',
      events: [
        makeEvent({
          slug: 'small',
          orders: [
            makeOrder({ ref: 'SM-1', email: 'one@example.org' }),
            makeOrder({ ref: 'SM-2', email: 'two@example.org' }),
            makeOrder({ ref: 'SM-3', email: 'three@example.org' }),
          ],
        }),
        makeEvent({ slug: 'big', ticket_types: [{ key: 'ga', name: 'GA', price: 2500 }] }),
      ],
    }),
  );
}, 60_000);
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const post = (body: unknown, slug = 'small') =>
  t.call(a.tokens.all, { method: 'POST', url: `/api/v1/events/${slug}/messages`, headers: json, payload: JSON.stringify(body) });
const dispatchAll = async () => {
  while ((await dispatchOutbox(t.ctx, outboxHandlers)) > 0);
};
const messageRow = (id: number) => t.ctx.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const outboxRows = (id: number) =>
  t.ctx.db
    .selectFrom('outbox')
    .select(['id', 'status'])
    .where('kind', '=', 'mail.message')
    .where(sql<string>`payload->>'message_id'`, '=', String(id))
    .execute();
const loggedFor = async (id: number) =>
  (await t.ctx.db.selectFrom('order_log').select('data').where('action', '=', 'message_sent').execute()).filter(
    (l) => l.data.message_id === id,
  ).length;
const mailsWith = (subject: string) => smtp.messages.filter((m) => m.data.includes(subject));

describe('one mail per order, exactly once', () => {
  it('sends each order one mail even when the outbox hands every message over twice', async () => {
    const { id, recipients } = (await post({ subject: 'Twice handed', body: 'Hello **there**' })).json();
    expect(recipients).toBe(3);
    await dispatchAll();
    expect(mailsWith('Twice handed')).toHaveLength(3);
    // the outbox's at-least-once: every row handed over again (a crash after the send, a lease that ran out)
    await t.ctx.db
      .updateTable('outbox')
      .set({ status: 'pending', attempts: 0, sent_at: null })
      .where(
        'id',
        'in',
        (await outboxRows(id)).map((r) => r.id),
      )
      .execute();
    await dispatchAll();
    expect(mailsWith('Twice handed')).toHaveLength(3);
    expect(
      mailsWith('Twice handed')
        .map((m) => m.to.join())
        .sort(),
    ).toEqual(['RCPT TO:<one@example.org>', 'RCPT TO:<three@example.org>', 'RCPT TO:<two@example.org>']);
    expect(await messageRow(id)).toMatchObject({ recipients: 3, sent_count: 3, failed_count: 0, state: 'sent' });
    expect(await loggedFor(id)).toBe(3);
    expect((await outboxRows(id)).every((r) => r.status === 'sent')).toBe(true);
  });

  it('each mail has a text and an HTML part', async () => {
    const mail = mailsWith('Twice handed')[0]!.data;
    expect(mail).toContain('text/plain');
    expect(mail).toContain('text/html');
  });

  it('retries a refused send, then sends once; a send the outbox gives up on counts as failed', async () => {
    smtp.mode = 'refuse';
    const { id } = (await post({ subject: 'Refused first', body: 'x' })).json();
    await dispatchOutbox(t.ctx, outboxHandlers);
    expect(mailsWith('Refused first')).toHaveLength(0);
    expect(await messageRow(id)).toMatchObject({ sent_count: 0, failed_count: 0, state: 'sending' });
    // one of them has used up its attempts: the next refusal is final
    const rows = await outboxRows(id);
    await t.ctx.db.updateTable('outbox').set({ attempts: 9 }).where('id', '=', rows[0]!.id).execute();
    t.clock.advance(2 * 60 * 60_000);
    await dispatchOutbox(t.ctx, outboxHandlers);
    expect(await messageRow(id)).toMatchObject({ sent_count: 0, failed_count: 1 });
    smtp.mode = 'ok';
    t.clock.advance(2 * 60 * 60_000);
    await dispatchAll();
    expect(mailsWith('Refused first')).toHaveLength(2);
    expect(await messageRow(id)).toMatchObject({ recipients: 3, sent_count: 2, failed_count: 1, state: 'sent' });
    expect(await loggedFor(id)).toBe(2);
  });
});

describe('a buyer without an address', () => {
  it('counts a delivery whose order lost its email address after queueing as failed', async () => {
    const { id } = (await post({ subject: 'Address gone', body: 'x' })).json();
    await t.ctx.db.updateTable('orders').set({ email: null }).where('ref', '=', 'SM-2').execute();
    try {
      await dispatchAll();
    } finally {
      await t.ctx.db.updateTable('orders').set({ email: 'two@example.org' }).where('ref', '=', 'SM-2').execute();
    }
    expect(mailsWith('Address gone')).toHaveLength(2);
    expect(await messageRow(id)).toMatchObject({ recipients: 3, sent_count: 2, failed_count: 1, state: 'sent' });
  });
});

describe('scheduled messages', () => {
  it('waits for send_at, then queues once, whoever runs the job', async () => {
    const at = new Date(t.clock.now().getTime() + 60 * 60_000).toISOString();
    const res = await post({ subject: 'Later on', body: 'Tomorrow!', send_at: at });
    expect(res.statusCode).toBe(202);
    const { id, recipients } = res.json();
    expect(recipients).toBe(3);
    expect(await messageRow(id)).toMatchObject({ state: 'scheduled' });
    expect(await sendDueMessages(t.ctx)).toBe(0);
    expect(await outboxRows(id)).toHaveLength(0);

    t.clock.advance(60 * 60_000);
    const runs = await Promise.all([sendDueMessages(t.ctx), sendDueMessages(t.ctx)]);
    expect(runs.reduce((x, y) => x + y, 0)).toBe(1);
    expect(await sendDueMessages(t.ctx)).toBe(0);
    expect(await outboxRows(id)).toHaveLength(3);
    expect(await messageRow(id)).toMatchObject({ state: 'sending', recipients: 3 });
    await t.jobs.runAll();
    await dispatchAll();
    expect(mailsWith('Later on')).toHaveLength(3);
    expect(await messageRow(id)).toMatchObject({ state: 'sent', sent_count: 3 });
  });

  it('a send_at in the past sends now', async () => {
    const res = await post({ subject: 'Past', body: 'x', send_at: '2020-01-01T00:00:00Z' });
    expect(await messageRow(res.json().id)).toMatchObject({ state: 'sending', recipients: 3 });
  });
});

describe('a message to 10,000 orders', () => {
  it('is queued whole: one outbox row and one delivery per order', async () => {
    const event = await t.ctx.db
      .selectFrom('events as e')
      .innerJoin('ticket_types as tt', 'tt.event_id', 'e.id')
      .select(['e.id', 'e.account_id', 'tt.id as type_id'])
      .where('e.slug', '=', 'big')
      .executeTakeFirstOrThrow();
    // plain SQL: 10,000 paid orders with one ticket line each, loaded as bench/seed.ts loads them
    // (without the report counters' triggers, which this test does not read)
    await t.ctx.db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`insert into orders (account_id, event_id, ref, status, currency, subtotal_cents, total_cents, email,
        access_secret, qr_token, created_at, paid_at)
      select ${event.account_id}, ${event.id}, 'BIG-' || g, 'paid', 'eur', 2500, 2500, 'buyer' || g || '@example.org',
        md5('a' || g), md5('q' || g), now(), now()
      from generate_series(1, 10000) g`.execute(trx);
      await sql`insert into order_lines (account_id, order_id, event_id, kind, ticket_type_id, name, quantity, unit_price_cents, total_cents)
      select o.account_id, o.id, o.event_id, 'tickets', ${event.type_id}, 'GA', 1, 2500, 2500 from orders o where o.event_id = ${event.id}`.execute(
        trx,
      );
    });
    const res = await post({ subject: 'To everyone', body: 'Hello all', to: { ticket_types: ['ga'] } }, 'big');
    expect(res.statusCode).toBe(202);
    expect(res.json().recipients).toBe(10_000);
    const id = res.json().id;
    expect(await outboxRows(id)).toHaveLength(10_000);
    const deliveries = await t.ctx.db
      .selectFrom('message_deliveries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('message_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(Number(deliveries.n)).toBe(10_000);
  }, 60_000);
});
