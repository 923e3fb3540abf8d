import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { renderTransferMail } from '../orders/transfer.mail.ts';
import { selfServiceCsrf } from './order-page.ts';

/**
 * Self-service on the order page (contract section 15): naming attendees, passing tickets on,
 * cancelling with the fee kept; the rules' deadlines; the attacks on every form.
 */
let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let ids: Record<string, number>;
let listId: number;

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'club',
      events: [
        makeEvent({
          slug: 'gala',
          starts_at: '2027-01-20T19:00:00Z',
          self_service: {
            edit_until: '2027-01-10T00:00:00Z',
            transfer: true,
            cancel_until: '2026-12-31T23:00:00Z',
            cancel_fee_percent: 10,
          },
          ticket_types: [
            { key: 'seat', name: 'Seat', price: 2000, capacity: 40 },
            { key: 'guest', name: 'Guest', price: 0, capacity: 10 },
          ],
          checkin_lists: [{ key: 'main', name: 'Main door' }],
        }),
        makeEvent({ slug: 'plain', ticket_types: [{ key: 'plain', name: 'Plain', price: 1500, capacity: 10 }] }),
      ],
    }),
  );
  const tt = await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).execute();
  ids = Object.fromEntries(tt.map((r) => [r.key, r.id]));
  listId = Number(
    (await t.ctx.db.selectFrom('checkin_lists').select('id').where('key', '=', 'main').executeTakeFirstOrThrow()).id,
  );
});
afterAll(() => t.close());

const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

async function paidOrder(event: string, key: string, quantity: number) {
  const res = await t.call(a.tokens.all, {
    method: 'POST',
    url: `/api/v1/events/${event}/orders`,
    payload: { items: [{ ticket_type_id: ids[key]!, quantity }], email: 'ada@example.org', name: 'Ada' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const { ref } = res.json() as { ref: string };
  const row = await t.ctx.db
    .selectFrom('orders')
    .select(['access_secret', 'id', 'status'])
    .where('ref', '=', ref)
    .executeTakeFirstOrThrow();
  if (row.status !== 'paid') {
    const pay = await t.app.inject({ method: 'GET', url: `/pay/${row.access_secret}` });
    const paid = await t.app.inject({ method: 'POST', url: `/pay/${row.access_secret}`, payload: { csrf: csrfOf(pay.body) } });
    expect(paid.statusCode).toBe(303);
  }
  return { ref, secret: row.access_secret, id: Number(row.id) };
}

const ticketsOf = (orderId: number) =>
  t.ctx.db
    .selectFrom('tickets')
    .select(['id', 'ref', 'status', 'attendee_name', 'attendee_email', 'qr_token', 'holder_secret'])
    .where('order_id', '=', orderId)
    .orderBy('position')
    .execute();
const logOf = async (orderId: number) =>
  (await t.ctx.db.selectFrom('order_log').select('action').where('order_id', '=', orderId).orderBy('id').execute()).map(
    (l) => l.action,
  );

async function post(secret: string, path: string, form: Record<string, unknown>, csrf?: string) {
  const token = csrf ?? csrfOf((await t.app.inject({ method: 'GET', url: `/o/${secret}` })).body);
  return t.app.inject({ method: 'POST', url: `/o/${secret}${path}`, payload: { csrf: token, ...form } });
}

describe('naming attendees', () => {
  it('names a ticket; a refused name keeps what was typed; German too', async () => {
    const o = await paidOrder('gala', 'seat', 2);
    const page = await t.app.inject({ method: 'GET', url: `/o/${o.secret}` });
    expect(page.body).toContain('Change the name');
    expect(page.body).toContain('Pass this ticket on');
    expect(page.body).toContain('Cancel tickets');
    const [first] = await ticketsOf(o.id);
    const bad = await post(o.secret, `/tickets/${first!.ref}/attendee`, { name: ' ', email: 'not-an-email' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('Enter a name');
    expect(bad.body).toContain('value="not-an-email"');
    expect((await ticketsOf(o.id))[0]!.attendee_name).toBeNull();

    const ok = await post(o.secret, `/tickets/${first!.ref}/attendee`, { name: 'Grace Hopper', email: 'grace@example.org' });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe(`/o/${o.secret}`);
    expect((await ticketsOf(o.id))[0]).toMatchObject({ attendee_name: 'Grace Hopper', attendee_email: 'grace@example.org' });
    expect(await logOf(o.id)).toContain('attendee_changed');
    const after = await t.app.inject({ method: 'GET', url: `/o/${o.secret}` });
    expect(after.body).toContain('Grace Hopper');
    const de = await t.app.inject({ method: 'GET', url: `/o/${o.secret}?lang=de` });
    expect(de.body).toContain('Namen ändern');
    expect(de.body).toContain('Ticket weitergeben');
    expect(de.body).toContain('Tickets stornieren');
  });
});

describe('passing a ticket on', () => {
  it('gives the holder a page, a mail and a new code; the old code is refused online and after the door sync', async () => {
    const o = await paidOrder('gala', 'seat', 2);
    const [before] = await ticketsOf(o.id);
    const res = await post(o.secret, `/tickets/${before!.ref}/transfer`, { name: 'Linus', email: 'linus@example.org' });
    expect(res.statusCode, res.body).toBe(303);
    const [after] = await ticketsOf(o.id);
    expect(after!.qr_token).not.toBe(before!.qr_token);
    expect(after).toMatchObject({ status: 'valid', attendee_name: 'Linus', attendee_email: 'linus@example.org' });
    expect(after!.holder_secret).toBeTruthy();
    expect(await logOf(o.id)).toContain('ticket_transferred');

    // the door: the old code is unknown at once, the sync hands out the new code's hash
    const door = `/club/gala/checkin_lists/${listId}`;
    const old = await t.call(a.tokens.all, { method: 'POST', url: `${door}/tickets/${before!.qr_token}/checkins` });
    expect(old.statusCode).toBe(404);
    const sync = (await t.call(a.tokens.all, { method: 'GET', url: `${door}/sync?limit=500` })).json() as {
      tickets: Array<{ id: number; qr_sha256: string }>;
    };
    const synced = sync.tickets.find((x) => x.id === Number(after!.id))!;
    expect(synced.qr_sha256).toBe(createHash('sha256').update(after!.qr_token).digest('hex'));

    // the buyer's page shows to whom, without the code; the buyer's PDF leaves it out
    const page = await t.app.inject({ method: 'GET', url: `/o/${o.secret}` });
    expect(page.body).toContain('Passed on to Linus');
    expect(page.body).not.toContain(after!.qr_token);
    expect((await t.app.inject({ method: 'GET', url: `/o/${o.secret}/tickets/${after!.ref}.pdf` })).statusCode).toBe(404);

    // the holder's page and mail
    const holder = await t.app.inject({ method: 'GET', url: `/ticket/${after!.holder_secret}` });
    expect(holder.statusCode).toBe(200);
    expect(holder.body).toContain('Passed on to you by Ada');
    expect(holder.body).toContain(after!.ref);
    expect(holder.body).not.toContain((await ticketsOf(o.id))[1]!.ref);
    const pdf = await t.app.inject({ method: 'GET', url: `/ticket/${after!.holder_secret}/ticket.pdf` });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const mail = await renderTransferMail(t.ctx, { ticket_id: Number(after!.id) });
    expect(mail).toMatchObject({ to: 'linus@example.org' });
    expect(mail!.text).toContain(`http://admit.test/ticket/${after!.holder_secret}`);
    expect(mail!.attachments!.map((x) => x.contentType)).toContain('application/pdf');
    const queued = await t.ctx.db.selectFrom('outbox').select('payload').where('kind', '=', 'mail.ticket_transferred').execute();
    expect(queued.map((q) => (q.payload as { ticket_id: number }).ticket_id)).toContain(Number(after!.id));

    // passed on again: the first holder's link and code stop working
    const again = await post(o.secret, `/tickets/${after!.ref}/transfer`, { name: 'Ken', email: 'ken@example.org' });
    expect(again.statusCode).toBe(303);
    expect((await t.app.inject({ method: 'GET', url: `/ticket/${after!.holder_secret}` })).statusCode).toBe(404);
    const [third] = await ticketsOf(o.id);
    expect(third!.qr_token).not.toBe(after!.qr_token);
    expect(await renderTransferMail(t.ctx, { ticket_id: Number(after!.id) })).toMatchObject({ to: 'ken@example.org' });
  });

  it('two transfers of one ticket at once make one holder', async () => {
    const o = await paidOrder('gala', 'seat', 1);
    const [tk] = await ticketsOf(o.id);
    const csrf = csrfOf((await t.app.inject({ method: 'GET', url: `/o/${o.secret}` })).body);
    const answers = await Promise.all(
      ['p', 'q', 'r', 's'].map((n) =>
        post(o.secret, `/tickets/${tk!.ref}/transfer`, { name: n, email: `${n}@example.org` }, csrf),
      ),
    );
    expect(answers.map((r) => r.statusCode)).toEqual([303, 303, 303, 303]);
    const [now] = await ticketsOf(o.id);
    const holders = await t.ctx.db.selectFrom('tickets').select('id').where('holder_secret', '=', now!.holder_secret).execute();
    expect(holders).toHaveLength(1);
    expect((await logOf(o.id)).filter((x) => x === 'ticket_transferred')).toHaveLength(4);
  });
});

describe('cancelling', () => {
  const taken = async () =>
    Number(
      (
        await t.ctx.db
          .selectFrom('inventory as i')
          .innerJoin('ticket_types as tt', 'tt.inventory_id', 'i.id')
          .select('i.taken')
          .where('tt.id', '=', ids.seat!)
          .executeTakeFirstOrThrow()
      ).taken,
    );

  it('refunds the chosen tickets less the fee, once, voids them and frees their places', async () => {
    const o = await paidOrder('gala', 'seat', 2);
    const [one, two] = await ticketsOf(o.id);
    const page = await t.app.inject({ method: 'GET', url: `/o/${o.secret}` });
    expect(page.body).toContain('€20.00, refund €18.00');
    const key = /name="key" value="([^"]+)"/.exec(page.body)![1]!;
    const csrf = csrfOf(page.body);
    // nothing chosen, or not confirmed: the form again, nothing changed
    const none = await post(o.secret, '/cancel', { key, confirm: 'yes' }, csrf);
    expect(none.statusCode).toBe(422);
    expect(none.body).toContain('Choose at least one ticket');
    const unconfirmed = await post(o.secret, '/cancel', { key, tickets: one!.ref }, csrf);
    expect(unconfirmed.statusCode).toBe(422);
    expect(unconfirmed.body).toContain('Tick the box to confirm');
    const takenBefore = await taken();

    // the same form sent three times at once: one refund
    const answers = await Promise.all(
      [1, 2, 3].map(() => post(o.secret, '/cancel', { key, tickets: [one!.ref], confirm: 'yes' }, csrf)),
    );
    expect(answers.map((r) => r.statusCode)).toEqual([303, 303, 303]);
    const refunds = await t.ctx.db
      .selectFrom('refunds')
      .select(['amount_cents', 'status'])
      .where('order_id', '=', o.id)
      .execute();
    expect(refunds).toEqual([{ amount_cents: 1800, status: 'succeeded' }]);
    const [oneAfter, twoAfter] = await ticketsOf(o.id);
    expect(oneAfter!.status).toBe('voided');
    expect(twoAfter!.status).toBe('valid');
    expect(await taken()).toBe(takenBefore - 1);
    const order = await t.ctx.db
      .selectFrom('orders')
      .select(['status', 'refunded_cents'])
      .where('id', '=', o.id)
      .executeTakeFirstOrThrow();
    expect(order).toMatchObject({ status: 'paid', refunded_cents: 1800 });
    expect(await logOf(o.id)).toEqual(expect.arrayContaining(['refunded', 'tickets_canceled']));
    // the voided ticket cannot be cancelled again
    const twice = await post(o.secret, '/cancel', { key: 'another-key-1', tickets: [one!.ref], confirm: 'yes' });
    expect(twice.statusCode).toBe(422);
    expect(two).toBeTruthy();
  });

  it('a free ticket is cancelled at once, without a refund', async () => {
    const o = await paidOrder('gala', 'guest', 1);
    const [tk] = await ticketsOf(o.id);
    const res = await post(o.secret, '/cancel', { key: 'free-cancel-1', tickets: tk!.ref, confirm: 'yes' });
    expect(res.statusCode, res.body).toBe(303);
    expect((await ticketsOf(o.id))[0]!.status).toBe('voided');
    expect(await t.ctx.db.selectFrom('refunds').select('id').where('order_id', '=', o.id).execute()).toEqual([]);
    expect(await logOf(o.id)).toContain('tickets_canceled');
  });
});

describe('the rules and the attacks', () => {
  it('an event without self-service offers nothing and refuses every form', async () => {
    const o = await paidOrder('plain', 'plain', 1);
    const page = await t.app.inject({ method: 'GET', url: `/o/${o.secret}` });
    expect(page.body).not.toContain('Change the name');
    expect(page.body).not.toContain('Cancel tickets');
    const [tk] = await ticketsOf(o.id);
    // a forged token is refused before anything else; a real one meets the closed rules
    const forged = await t.app.inject({
      method: 'POST',
      url: `/o/${o.secret}/tickets/${tk!.ref}/attendee`,
      payload: { csrf: 'x', name: 'Eve' },
    });
    expect(forged.statusCode).toBe(403);
    const csrf = await selfServiceCsrf(t.ctx, o.id);
    const res = await post(o.secret, `/tickets/${tk!.ref}/attendee`, { name: 'Eve' }, csrf);
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('This change is no longer possible');
    expect((await post(o.secret, '/cancel', { key: 'plain-cancel-1', tickets: tk!.ref, confirm: 'yes' }, csrf)).statusCode).toBe(
      422,
    );
    expect((await ticketsOf(o.id))[0]).toMatchObject({ attendee_name: null, status: 'valid' });
  });

  it('deadlines close each action; attacks change nothing', async () => {
    const o = await paidOrder('gala', 'seat', 1);
    const other = await paidOrder('gala', 'seat', 1);
    const [tk] = await ticketsOf(o.id);
    const [otherTk] = await ticketsOf(other.id);
    const csrf = csrfOf((await t.app.inject({ method: 'GET', url: `/o/${o.secret}` })).body);
    const otherCsrf = csrfOf((await t.app.inject({ method: 'GET', url: `/o/${other.secret}` })).body);
    const url = `/o/${o.secret}/tickets/${tk!.ref}/attendee`;
    // no token, another order's token, another order's ticket, an unknown link, an unknown field
    expect((await t.app.inject({ method: 'POST', url, payload: { name: 'Eve' } })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'POST', url, payload: { csrf: otherCsrf, name: 'Eve' } })).statusCode).toBe(403);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/o/${o.secret}/tickets/${otherTk!.ref}/attendee`,
          payload: { csrf, name: 'Eve' },
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/o/${'x'.repeat(40)}/tickets/${tk!.ref}/attendee`,
          payload: { csrf, name: 'Eve' },
        })
      ).statusCode,
    ).toBe(404);
    expect((await t.app.inject({ method: 'POST', url, payload: { csrf, name: 'Eve', status: 'voided' } })).statusCode).toBe(400);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/o/${o.secret}/cancel`,
          payload: { csrf, key: 'k', tickets: tk!.ref, confirm: 'yes' },
        })
      ).statusCode,
    ).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: `/ticket/${'y'.repeat(32)}` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/ticket/${o.secret}` })).statusCode).toBe(404);
    expect((await ticketsOf(o.id))[0]).toMatchObject({ attendee_name: null, status: 'valid' });
    expect((await ticketsOf(other.id))[0]).toMatchObject({ attendee_name: null, status: 'valid' });

    // after cancel_until: cancelling is gone from the page and refused with a notice; naming still open
    t.clock.set('2027-01-05T12:00:00Z');
    try {
      const page = await t.app.inject({ method: 'GET', url: `/o/${o.secret}` });
      expect(page.body).not.toContain('Cancel tickets');
      expect(page.body).toContain('Change the name');
      const late = await post(
        o.secret,
        '/cancel',
        { key: 'late-cancel-1', tickets: tk!.ref, confirm: 'yes' },
        await selfServiceCsrf(t.ctx, o.id),
      );
      expect(late.statusCode).toBe(422);
      expect(late.body).toContain('This change is no longer possible');
      // after edit_until: naming closes; transfers stay open until the event starts
      t.clock.set('2027-01-15T12:00:00Z');
      expect(
        (await post(o.secret, `/tickets/${tk!.ref}/attendee`, { name: 'Late' }, await selfServiceCsrf(t.ctx, o.id))).statusCode,
      ).toBe(422);
      expect(
        (
          await post(
            o.secret,
            `/tickets/${tk!.ref}/transfer`,
            { name: 'Late', email: 'late@example.org' },
            await selfServiceCsrf(t.ctx, o.id),
          )
        ).statusCode,
      ).toBe(303);
      t.clock.set('2027-01-20T19:00:01Z');
      expect(
        (
          await post(
            o.secret,
            `/tickets/${tk!.ref}/transfer`,
            { name: 'Later', email: 'l@example.org' },
            await selfServiceCsrf(t.ctx, o.id),
          )
        ).statusCode,
      ).toBe(422);
    } finally {
      t.clock.set('2026-11-22T12:00:00Z');
    }
    expect((await ticketsOf(o.id))[0]).toMatchObject({ attendee_name: 'Late', status: 'valid' });
  });
});
