import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { startFakeSmtp, type FakeSmtp } from '../../../test/fakes/fake-smtp.ts';
import { backoffMs } from './outbox-dispatcher.ts';

let t: TestApp;
let smtp: FakeSmtp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let freeId: number;

beforeAll(async () => {
  smtp = await startFakeSmtp();
  t = await createTestApp({ config: { smtpUrl: smtp.url, mailFrom: 'tickets@admit.test' } });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [makeEvent({ slug: 'free', name: 'Open Day', ticket_types: [{ key: 'free', name: 'Free entry', price: 0 }] })],
    }),
  );
  freeId = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'free').executeTakeFirstOrThrow()).id;
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const freeOrder = (email: string) =>
  t.call(a.tokens.all, {
    method: 'POST',
    url: '/api/v1/events/free/orders',
    payload: { items: [{ ticket_type_id: freeId, quantity: 2 }], email },
  });

describe('outbox dispatch over SMTP', () => {
  it('sends the ticket mail once, with text and HTML parts and a Message-ID from the outbox id', async () => {
    const o = (await freeOrder('ada@example.org')).json();
    await t.jobs.runAll();
    expect(smtp.messages.length).toBe(1);
    const m = smtp.messages[0]!;
    expect(m.to.join()).toContain('ada@example.org');
    expect(m.data).toMatch(/^Message-ID: <outbox-\d+@admit>/im);
    expect(m.data).toContain(`Subject: Your tickets for Open Day (${o.ref})`);
    expect(m.data).toContain('text/plain');
    expect(m.data).toContain('text/html');
    expect(m.data).toContain('http://admit.test/o/');
    await t.jobs.runAll();
    expect(smtp.messages.length).toBe(1);
    const row = await t.ctx.db
      .selectFrom('outbox')
      .select(['status', 'attempts'])
      .where('kind', '=', 'mail.tickets')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'sent', attempts: 1 });
  });

  it('retries with backoff when the server refuses, and never loses the mail', async () => {
    smtp.mode = 'refuse';
    await freeOrder('grace@example.org');
    await t.jobs.runAll();
    expect(smtp.messages.length).toBe(1);
    let row = await t.ctx.db
      .selectFrom('outbox')
      .select(['status', 'attempts', 'last_error', 'next_attempt_at'])
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('pending');
    expect(row.attempts).toBe(1);
    expect(row.last_error).toContain('554');
    smtp.mode = 'ok';
    await t.jobs.runAll(); // not due yet
    expect(smtp.messages.length).toBe(1);
    t.clock.advance(backoffMs(1) + 1000);
    await t.jobs.runAll();
    expect(smtp.messages.length).toBe(2);
    row = await t.ctx.db
      .selectFrom('outbox')
      .select(['status', 'attempts', 'last_error', 'next_attempt_at'])
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
  });

  it('backs off exponentially up to an hour', () => {
    expect([1, 2, 3, 4].map(backoffMs)).toEqual([5000, 10000, 20000, 40000]);
    expect(backoffMs(30)).toBe(3_600_000);
  });
});
