import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { startFakeSmtp, type FakeSmtp } from '../../../test/fakes/fake-smtp.ts';
import { backoffMs, dispatchOutbox } from './outbox-dispatcher.ts';
import { enqueue } from './outbox.ts';
import { simpleParser } from 'mailparser';

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

  it('carries the tickets: HTML and text, inline QR codes the HTML shows, the PDF and the calendar entry attached', async () => {
    const before = smtp.messages.length;
    const o = (await freeOrder('lin@example.org')).json();
    await t.jobs.runAll();
    expect(smtp.messages.length).toBe(before + 1);
    const mail = await simpleParser(smtp.messages.at(-1)!.data, { skipImageLinks: true });
    expect(mail.from?.value[0]).toMatchObject({ name: `Open Day (Account ${a.slug})`, address: 'tickets@admit.test' });
    expect(mail.subject).toBe(`Your tickets for Open Day (${o.ref})`);
    expect(mail.text).toContain('/o/');
    expect(mail.html).toContain('Your tickets for Open Day');
    // a table-safe layout with every style inline: a 600 px card, a system font, the link as a button
    const html = String(mail.html);
    expect(html).not.toContain('<style');
    expect(html).toMatch(/<table role="presentation" width="600"[^>]*max-width:600px/);
    expect(html).toMatch(/<td style="padding:12px 28px 24px;font-family:-apple-system[^"]*;font-size:16px/);
    expect(html).toMatch(
      /<td style="background:#2d4fd6;border-radius:8px"><a href="http:\/\/admit.test\/o\/[^"]+" style="[^"]*color:#ffffff/,
    );
    const inline = mail.attachments.filter((x) => x.contentType === 'image/png');
    expect(inline).toHaveLength(2);
    for (const img of inline) {
      expect(img.cid).toMatch(/^qr-.+@admit$/);
      expect(mail.html).toContain(`cid:${img.cid}`);
      expect(img.content.subarray(1, 4).toString()).toBe('PNG');
    }
    const pdf = mail.attachments.find((x) => x.contentType === 'application/pdf');
    expect(pdf?.filename).toBe(`tickets-${o.ref}.pdf`);
    expect(pdf?.content.subarray(0, 5).toString()).toBe('%PDF-');
    const ics = mail.attachments.find((x) => x.contentType.startsWith('text/calendar'));
    expect(ics?.filename).toBe('free.ics');
    expect(ics?.content.toString()).toContain('SUMMARY:Open Day');
  });

  it("speaks the event's language when the order has none of its own: German subject, text, HTML and dates", async () => {
    await t.ctx.db.updateTable('events').set({ locale: 'de' }).where('slug', '=', 'free').execute();
    try {
      const o = (await freeOrder('jan@example.org')).json();
      await t.jobs.runAll();
      const mail = await simpleParser(smtp.messages.at(-1)!.data, { skipImageLinks: true });
      expect(mail.subject).toBe(`Ihre Tickets für Open Day (${o.ref})`);
      expect(mail.text).toContain(`Vielen Dank für Ihre Bestellung ${o.ref} für Open Day`);
      expect(mail.text).toContain('Bezahlt: 0,00\u00a0€.');
      expect(mail.text).toContain('Ihre Bestellseite: http://admit.test/o/');
      expect(mail.html).toContain('<html lang="de">');
      expect(mail.html).toContain('Tickets öffnen');
      expect(mail.html).toContain('alt="QR-Code für Ticket');
      expect(mail.attachments.some((x) => x.contentType === 'application/pdf')).toBe(true);
    } finally {
      await t.ctx.db.updateTable('events').set({ locale: 'en' }).where('slug', '=', 'free').execute();
    }
  });

  it("wraps the HTML in the account's email layout when its theme names one", async () => {
    const account = await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', a.slug).executeTakeFirstOrThrow();
    const tpl = await t.ctx.db
      .insertInto('html_templates')
      .values({
        account_id: account.id,
        key: 'mail-frame',
        name: 'Mail frame',
        kind: 'layout',
        channel: 'email',
        body: '<div class="frame"><p>{{account_name}} news</p>{{{content}}}<p>See you there</p><script>x()</script></div>',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const theme = await t.ctx.db
      .insertInto('themes')
      .values({
        account_id: account.id,
        name: 'Mail',
        is_default: true,
        settings: JSON.stringify({ default_email_html_template_id: Number(tpl.id) }),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    try {
      await freeOrder('frame@example.org');
      await t.jobs.runAll();
      const mail = await simpleParser(smtp.messages.at(-1)!.data, { skipImageLinks: true });
      const body = String(mail.html);
      expect(body).toMatch(/<div class="frame"><p>Account [^<]+ news<\/p><h1[^>]*>Your tickets for Open Day<\/h1>/);
      // inside the service's frame, never instead of it
      expect(body.indexOf('max-width:600px')).toBeLessThan(body.indexOf('<div class="frame">'));
      expect(body).toContain('<p>See you there</p>');
      expect(body).toContain('cid:qr-');
      expect(body).not.toContain('<script');
    } finally {
      await t.ctx.db.deleteFrom('themes').where('id', '=', theme.id).execute();
    }
  });

  it('cuts off work that hangs past its deadline, and hands back what its claim has no time left for', async () => {
    await t.ctx.db.updateTable('outbox').set({ status: 'sent' }).where('status', '=', 'pending').execute();
    const ids: number[] = [];
    for (const n of [1, 2, 3]) {
      await t.ctx.db.transaction().execute(async (trx) => {
        await enqueue(trx, { accountId: null, kind: 'test.slow', payload: { n } });
      });
      ids.push((await t.ctx.db.selectFrom('outbox').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()).id as number);
    }
    const started: number[] = [];
    const handlers = {
      'test.slow': {
        type: 'action' as const,
        async run(_ctx: unknown, payload: Record<string, unknown>) {
          started.push(payload.n as number);
          await new Promise((r) => setTimeout(r, 400));
        },
      },
    };
    // a 500 ms claim, 200 ms per message: the first hangs and is cut off at 200 ms, the second
    // starts with 300 ms left and is cut off too, the third would end past the lease: handed back
    const done = await dispatchOutbox(t.ctx, handlers, { leaseMs: 500, workMs: 200 });
    expect(started).toEqual([1, 2]);
    expect(done).toBe(2);
    const rows = await t.ctx.db
      .selectFrom('outbox')
      .select(['id', 'status', 'attempts', 'last_error', 'next_attempt_at'])
      .where('id', 'in', ids)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ['pending', 1],
      ['pending', 1],
      ['pending', 0],
    ]);
    expect(rows[0]!.last_error).toContain('gave up after 200 ms');
    expect(rows[2]!.last_error).toBeNull();
    expect(rows[2]!.next_attempt_at!.getTime()).toBeLessThanOrEqual(t.clock.now().getTime());
    await t.ctx.db.updateTable('outbox').set({ status: 'sent' }).where('id', 'in', ids).execute();
  });

  it('backs off exponentially up to an hour', () => {
    expect([1, 2, 3, 4].map(backoffMs)).toEqual([5000, 10000, 20000, 40000]);
    expect(backoffMs(30)).toBe(3_600_000);
  });
});
