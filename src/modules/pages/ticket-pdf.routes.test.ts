import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';

/** Tickets to keep: the order's PDFs (their text is read back with pdftotext in the browser test). */

let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let ids: Record<string, number>;

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'gig',
          name: 'Gig',
          venue: { name: 'Klub', address: 'Straße 1' },
          ticket_types: [
            { key: 'free', name: 'Free entry', price: 0, capacity: 50 },
            { key: 'paid', name: 'Paid entry', price: 2000, capacity: 50 },
          ],
        }),
      ],
    }),
  );
  ids = Object.fromEntries(
    (await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).execute()).map((r) => [r.key, Number(r.id)]),
  );
});
afterAll(() => t.close());

async function order(key: string, quantity: number, name = 'Ada Lovelace') {
  const res = await t.call(a.tokens.all, {
    method: 'POST',
    url: '/api/v1/events/gig/orders',
    payload: { items: [{ ticket_type_id: ids[key], quantity }], email: 'ada@example.org', name },
  });
  expect(res.statusCode).toBe(201);
  const o = res.json();
  const secret = (await t.ctx.db.selectFrom('orders').select('access_secret').where('ref', '=', o.ref).executeTakeFirstOrThrow())
    .access_secret;
  return { ref: o.ref as string, secret };
}

const pages = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;

describe('ticket PDFs', () => {
  it('gives a paid order one page per ticket, and each ticket its own PDF; the order page links them', async () => {
    const o = await order('free', 3, 'Zoë Ωmega Дмитрий');
    const all = await t.app.inject({ method: 'GET', url: `/o/${o.secret}/tickets.pdf` });
    expect(all.statusCode).toBe(200);
    expect(all.headers['content-type']).toBe('application/pdf');
    expect(all.headers['content-disposition']).toBe(`inline; filename="tickets-${o.ref}.pdf"`);
    expect(all.headers['cache-control']).toBe('private, no-store');
    expect(all.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pages(all.rawPayload)).toBe(3);

    const page = await t.app.inject({ method: 'GET', url: `/o/${o.secret}` });
    expect(page.body).toContain(`href="/o/${o.secret}/tickets.pdf"`);
    const refs = [...page.body.matchAll(/href="\/o\/[^/]+\/tickets\/([^"]+)\.pdf"/g)].map((m) => m[1]!);
    expect(refs).toHaveLength(3);
    const one = await t.app.inject({ method: 'GET', url: `/o/${o.secret}/tickets/${refs[1]}.pdf` });
    expect(one.statusCode).toBe(200);
    expect(pages(one.rawPayload)).toBe(1);
  });

  it('has nothing to print for an unpaid order, another order’s ticket or a voided ticket', async () => {
    const pending = await order('paid', 1);
    expect((await t.app.inject({ method: 'GET', url: `/o/${pending.secret}/tickets.pdf` })).statusCode).toBe(404);
    const page = await t.app.inject({ method: 'GET', url: `/o/${pending.secret}` });
    expect(page.body).not.toContain('tickets.pdf');

    const mine = await order('free', 1);
    const other = await order('free', 1);
    const otherRef = (
      await t.ctx.db
        .selectFrom('tickets as tk')
        .innerJoin('orders as o', 'o.id', 'tk.order_id')
        .select('tk.ref')
        .where('o.ref', '=', other.ref)
        .executeTakeFirstOrThrow()
    ).ref;
    expect((await t.app.inject({ method: 'GET', url: `/o/${mine.secret}/tickets/${otherRef}.pdf` })).statusCode).toBe(404);
    await t.ctx.db.updateTable('tickets').set({ status: 'voided' }).where('ref', '=', otherRef).execute();
    expect((await t.app.inject({ method: 'GET', url: `/o/${other.secret}/tickets/${otherRef}.pdf` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/o/no-such-secret/tickets.pdf` })).statusCode).toBe(404);
  });
});
