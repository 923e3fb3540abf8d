import { createPublicKey, createVerify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { exportAccount } from '../export/account-export.service.ts';
import { importAccount } from '../import/import.service.ts';
import { transferTicket } from '../orders/attendees.service.ts';
import { theatrePlan } from '../events/seating.fixture.ts';
import { GOOGLE_SAVE_URL } from '../wallet/google-save.ts';
import {
  makeAppleCredentials,
  makeGoogleKey,
  unzip,
  verifyDetachedSignature,
  type TestAppleCredentials,
} from '../wallet/wallet.fixture.ts';

/** Wallet passes under the order's capability URL (contract section 15), keys given in the account file. */

let t: TestApp;
let apple: TestAppleCredentials;
let google: ReturnType<typeof makeGoogleKey>;
let withKeys: Awaited<ReturnType<typeof seedAccount>>;
let without: Awaited<ReturnType<typeof seedAccount>>;

const event = () =>
  makeEvent({
    slug: 'gig',
    name: 'Winter Gig',
    venue: { name: 'Klub', address: 'Straße 1' },
    ticket_types: [{ key: 'free', name: 'Free entry', price: 0, capacity: 50 }],
  });

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  apple = makeAppleCredentials();
  google = makeGoogleKey();
  withKeys = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'keyed',
      events: [
        event(),
        makeEvent({
          slug: 'play',
          name: 'The Play',
          ticket_types: [{ key: 'seat', name: 'Stalls seat', price: 0 }],
          seating: { plan: theatrePlan(), categories: { Stalls: 'seat' } },
        }),
      ],
      account: {
        slug: 'keyed',
        name: 'Keyed Hall',
        payments: { mode: 'sandbox' },
        wallet: {
          apple: {
            pass_type_id: apple.passTypeId,
            team_id: apple.teamId,
            certificate_pem: apple.certificatePem,
            key_pem: apple.keyPem,
            wwdr_pem: apple.wwdrPem,
          },
          google: {
            issuer_id: '3388000000012345678',
            service_account_email: 'wallet@keyed.iam.gserviceaccount.com',
            private_key_pem: google.privatePem,
          },
        },
      },
    }),
  );
  without = await seedAccount(t.ctx, makeAccountFile({ slug: 'plain', events: [event()] }));
});
afterAll(() => t.close());

async function order(tokens: { all: string }, quantity: number) {
  const typeId = (
    await t.ctx.db
      .selectFrom('ticket_types as tt')
      .innerJoin('events as e', 'e.id', 'tt.event_id')
      .innerJoin('accounts as a', 'a.id', 'e.account_id')
      .select('tt.id')
      .where('a.slug', '=', tokens === withKeys.tokens ? 'keyed' : 'plain')
      .executeTakeFirstOrThrow()
  ).id;
  const res = await t.call(tokens.all, {
    method: 'POST',
    url: '/api/v1/events/gig/orders',
    payload: { items: [{ ticket_type_id: Number(typeId), quantity }], email: 'ada@example.org', name: 'Ada Lovelace' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const ref = res.json().ref as string;
  const row = await t.ctx.db
    .selectFrom('orders')
    .select(['id', 'access_secret'])
    .where('ref', '=', ref)
    .executeTakeFirstOrThrow();
  const tickets = await t.ctx.db
    .selectFrom('tickets')
    .select(['ref', 'qr_token'])
    .where('order_id', '=', row.id)
    .orderBy('position')
    .execute();
  return { ref, secret: row.access_secret, tickets };
}

const get = (url: string) => t.app.inject({ method: 'GET', url });

describe('wallet passes', () => {
  it('links both wallets per ticket on the order page, in English and German', async () => {
    const o = await order(withKeys.tokens, 2);
    const page = await get(`/o/${o.secret}`);
    for (const tk of o.tickets) {
      expect(page.body).toContain(`href="/o/${o.secret}/tickets/${tk.ref}.pkpass"`);
      expect(page.body).toContain(`href="/o/${o.secret}/tickets/${tk.ref}/google"`);
    }
    expect(page.body).toContain('Add to Apple Wallet');
    expect(page.body).toContain('Save to Google Wallet');
    const de = await get(`/o/${o.secret}?lang=de`);
    expect(de.body).toContain('Zu Apple Wallet hinzufügen');
    expect(de.body).toContain('In Google Wallet speichern');
  });

  it('serves a signed .pkpass whose barcode is the ticket QR token', async () => {
    const o = await order(withKeys.tokens, 1);
    const tk = o.tickets[0]!;
    const res = await get(`/o/${o.secret}/tickets/${tk.ref}.pkpass`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.apple.pkpass');
    expect(res.headers['cache-control']).toBe('private, no-store');
    const files = unzip(res.rawPayload);
    expect(verifyDetachedSignature(files.get('signature')!, files.get('manifest.json')!, apple.caPem).uid).toBe(apple.passTypeId);
    const pass = JSON.parse(files.get('pass.json')!.toString());
    expect(pass.barcodes[0]).toMatchObject({ format: 'PKBarcodeFormatQR', message: tk.qr_token });
    expect(pass).toMatchObject({ serialNumber: tk.ref, organizationName: 'Keyed Hall' });
    expect(pass.eventTicket.primaryFields[0].value).toBe('Winter Gig');
    expect(pass.eventTicket.auxiliaryFields.find((f: { key: string }) => f.key === 'attendee').value).toBe('Ada Lovelace');
    expect(pass.voided).toBeUndefined();
  });

  it('redirects to Google with a JWT that verifies and carries the QR token', async () => {
    const o = await order(withKeys.tokens, 1);
    const tk = o.tickets[0]!;
    const res = await get(`/o/${o.secret}/tickets/${tk.ref}/google`);
    expect(res.statusCode).toBe(303);
    const location = String(res.headers.location);
    expect(location.startsWith(GOOGLE_SAVE_URL)).toBe(true);
    const [head, body, sig] = location.slice(GOOGLE_SAVE_URL.length).split('.') as [string, string, string];
    expect(
      createVerify('RSA-SHA256')
        .update(`${head}.${body}`)
        .verify(createPublicKey(google.publicPem), Buffer.from(sig, 'base64url')),
    ).toBe(true);
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    expect(claims).toMatchObject({
      iss: 'wallet@keyed.iam.gserviceaccount.com',
      aud: 'google',
      typ: 'savetowallet',
      origins: ['http://admit.test'],
    });
    expect(claims.payload.eventTicketObjects[0].barcode.value).toBe(tk.qr_token);
  });

  it('puts the seat of a seated ticket on the pass and the Google object', async () => {
    const typeId = (await t.ctx.db.selectFrom('ticket_types').select('id').where('key', '=', 'seat').executeTakeFirstOrThrow())
      .id;
    const res = await t.call(withKeys.tokens.all, {
      method: 'POST',
      url: '/api/v1/events/play/orders',
      payload: {
        items: [{ ticket_type_id: Number(typeId), quantity: 1, seats: ['stalls-B-2'] }],
        email: 'b@example.org',
        name: 'Bo',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const o = await t.ctx.db
      .selectFrom('orders')
      .select(['id', 'access_secret'])
      .where('ref', '=', res.json().ref)
      .executeTakeFirstOrThrow();
    const tk = await t.ctx.db.selectFrom('tickets').select('ref').where('order_id', '=', o.id).executeTakeFirstOrThrow();
    const pass = JSON.parse(
      unzip((await get(`/o/${o.access_secret}/tickets/${tk.ref}.pkpass`)).rawPayload)
        .get('pass.json')!
        .toString(),
    );
    const seat = pass.eventTicket.auxiliaryFields.find((f: { key: string }) => f.key === 'seat');
    expect(seat.value).toMatch(/B/);
    const g = await get(`/o/${o.access_secret}/tickets/${tk.ref}/google`);
    const claims = JSON.parse(
      Buffer.from(String(g.headers.location).slice(GOOGLE_SAVE_URL.length).split('.')[1]!, 'base64url').toString(),
    );
    expect(claims.payload.eventTicketObjects[0].seatInfo.seat.defaultValue.value).toBe(seat.value);
  });

  it('gives a ticket passed on to its holder only: the buyer’s links and routes refuse it', async () => {
    const o = await order(withKeys.tokens, 2);
    const [passed, kept] = o.tickets as [(typeof o.tickets)[0], (typeof o.tickets)[0]];
    const row = await t.ctx.db
      .selectFrom('orders')
      .select(['id', 'account_id'])
      .where('ref', '=', o.ref)
      .executeTakeFirstOrThrow();
    await transferTicket(
      t.ctx,
      { id: Number(row.id), account_id: Number(row.account_id) },
      passed.ref,
      { name: 'Linus', email: 'linus@example.org' },
      { kind: 'staff', email: 'staff@example.org' },
    );
    const page = await get(`/o/${o.secret}`);
    expect(page.body).not.toContain(`/tickets/${passed.ref}.pkpass`);
    expect(page.body).toContain(`/tickets/${kept.ref}.pkpass`);
    expect((await get(`/o/${o.secret}/tickets/${passed.ref}.pkpass`)).statusCode).toBe(404);
    expect((await get(`/o/${o.secret}/tickets/${passed.ref}/google`)).statusCode).toBe(404);

    const tk = await t.ctx.db
      .selectFrom('tickets')
      .select(['holder_secret', 'qr_token'])
      .where('ref', '=', passed.ref)
      .executeTakeFirstOrThrow();
    const holder = await get(`/ticket/${tk.holder_secret}`);
    expect(holder.statusCode).toBe(200);
    expect(holder.body).toContain(`href="/ticket/${tk.holder_secret}/ticket.pkpass"`);
    expect(holder.body).toContain(`href="/ticket/${tk.holder_secret}/ticket/google"`);
    const pass = JSON.parse(
      unzip((await get(`/ticket/${tk.holder_secret}/ticket.pkpass`)).rawPayload)
        .get('pass.json')!
        .toString(),
    );
    expect(pass.barcodes[0].message).toBe(tk.qr_token);
    expect(tk.qr_token).not.toBe(passed.qr_token);
    expect(pass.eventTicket.auxiliaryFields.find((f: { key: string }) => f.key === 'attendee').value).toBe('Linus');
    const g = await get(`/ticket/${tk.holder_secret}/ticket/google`);
    expect(g.statusCode).toBe(303);
    expect((await get(`/ticket/${'y'.repeat(32)}/ticket.pkpass`)).statusCode).toBe(404);
  });

  it('marks a voided ticket void on its pass and leaves it off the page', async () => {
    const o = await order(withKeys.tokens, 2);
    const [gone, kept] = o.tickets as [(typeof o.tickets)[0], (typeof o.tickets)[0]];
    await t.ctx.db.updateTable('tickets').set({ status: 'voided' }).where('ref', '=', gone.ref).execute();
    const page = await get(`/o/${o.secret}`);
    expect(page.body).not.toContain(`/tickets/${gone.ref}.pkpass`);
    expect(page.body).toContain(`/tickets/${kept.ref}.pkpass`);
    const pass = JSON.parse(
      unzip((await get(`/o/${o.secret}/tickets/${gone.ref}.pkpass`)).rawPayload)
        .get('pass.json')!
        .toString(),
    );
    expect(pass.voided).toBe(true);
    expect(pass.eventTicket.headerFields[0].value).toBe('VOID');
    const g = await get(`/o/${o.secret}/tickets/${gone.ref}/google`);
    const claims = JSON.parse(
      Buffer.from(String(g.headers.location).slice(GOOGLE_SAVE_URL.length).split('.')[1]!, 'base64url').toString(),
    );
    expect(claims.payload.eventTicketObjects[0].state).toBe('INACTIVE');
  });

  it('answers 404 for another order’s ticket, an unknown secret or ticket, and an account without keys', async () => {
    const mine = await order(withKeys.tokens, 1);
    const other = await order(withKeys.tokens, 1);
    const theirs = other.tickets[0]!.ref;
    for (const suffix of ['.pkpass', '/google']) {
      expect((await get(`/o/${mine.secret}/tickets/${theirs}${suffix}`)).statusCode).toBe(404);
      expect((await get(`/o/${mine.secret}/tickets/NOPE-NOPE-1${suffix}`)).statusCode).toBe(404);
      expect((await get(`/o/${'x'.repeat(32)}/tickets/${theirs}${suffix}`)).statusCode).toBe(404);
    }
    const plain = await order(without.tokens, 1);
    const page = await get(`/o/${plain.secret}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('Wallet');
    expect((await get(`/o/${plain.secret}/tickets/${plain.tickets[0]!.ref}.pkpass`)).statusCode).toBe(404);
    expect((await get(`/o/${plain.secret}/tickets/${plain.tickets[0]!.ref}/google`)).statusCode).toBe(404);
  });

  it('stores the keys sealed and never exports them', async () => {
    const rows = await t.ctx.db.selectFrom('wallet_keys').selectAll().execute();
    expect(rows.map((r) => r.platform).sort()).toEqual(['apple', 'google']);
    const body = (pem: string) => pem.split('\n')[1]!;
    const stored = JSON.stringify(rows);
    for (const pem of [apple.keyPem, apple.certificatePem, apple.wwdrPem, google.privatePem])
      expect(stored).not.toContain(body(pem));
    let out = '';
    await exportAccount(t.ctx, 'keyed', (chunk) => {
      out += chunk;
    });
    expect(out).toContain('Keyed Hall');
    for (const pem of [apple.keyPem, apple.certificatePem, apple.wwdrPem, google.privatePem])
      expect(out).not.toContain(body(pem));
    expect(out).not.toContain('PRIVATE KEY');
    expect(out).not.toContain('"wallet"');
  });

  it('refuses an account file whose certificate and key do not belong together, writing nothing', async () => {
    const file = makeAccountFile({ slug: 'mismatch', events: [event()] });
    file.account.wallet = {
      apple: {
        pass_type_id: apple.passTypeId,
        team_id: apple.teamId,
        certificate_pem: apple.certificatePem,
        key_pem: apple.otherKeyPem,
        wwdr_pem: apple.wwdrPem,
      },
    };
    await expect(importAccount(t.ctx, file)).rejects.toMatchObject({
      code: 'invalid_account_file',
      message: expect.stringContaining('key_does_not_match'),
    });
    expect(await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', 'mismatch').executeTakeFirst()).toBeUndefined();
  });
});
