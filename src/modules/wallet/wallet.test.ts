import { createPublicKey, createVerify, generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { applePass } from './apple-pass.ts';
import { googleSaveUrl, GOOGLE_SAVE_URL } from './google-save.ts';
import type { PassTicket } from './pass-content.ts';
import { appleKeyProblems, googleKeyProblems } from './wallet-keys.ts';
import {
  makeAppleCredentials,
  makeGoogleKey,
  sha1,
  unzip,
  verifyDetachedSignature,
  type TestAppleCredentials,
} from './wallet.fixture.ts';

let apple: TestAppleCredentials;
let google: ReturnType<typeof makeGoogleKey>;
beforeAll(() => {
  apple = makeAppleCredentials();
  google = makeGoogleKey();
});

const ticket = (over: Partial<PassTicket> = {}): PassTicket => ({
  accountName: 'Harbour Hall',
  accountSlug: 'harbour-hall',
  eventSlug: 'gig',
  eventName: 'Winter Gig',
  startsAt: new Date('2026-12-01T19:00:00Z'),
  endsAt: new Date('2026-12-01T22:00:00Z'),
  timezone: 'Europe/Berlin',
  venue: { name: 'Klub', address: 'Straße 1', latitude: 52.52, longitude: 13.405 },
  attendee: 'Ada Lovelace',
  seat: 'Stalls · Row F, Seat 12',
  typeName: 'Standing',
  orderRef: 'K7QX-M2PA',
  ticketRef: 'K7QX-M2PA-1',
  qr: 'qr-token-123',
  voided: false,
  lang: 'en',
  ...over,
});

const appleKeys = () => ({
  pass_type_id: apple.passTypeId,
  team_id: apple.teamId,
  certificate_pem: apple.certificatePem,
  key_pem: apple.keyPem,
  wwdr_pem: apple.wwdrPem,
});

describe('Apple pass', () => {
  it('is a zip whose manifest hashes every file and whose signature verifies against the test CA', () => {
    const files = unzip(applePass(appleKeys(), ticket()));
    expect([...files.keys()].sort()).toEqual(
      ['icon.png', 'icon@2x.png', 'logo.png', 'logo@2x.png', 'manifest.json', 'pass.json', 'signature'].sort(),
    );
    const manifest = JSON.parse(files.get('manifest.json')!.toString()) as Record<string, string>;
    const hashed = [...files.keys()].filter((n) => n !== 'manifest.json' && n !== 'signature').sort();
    expect(Object.keys(manifest).sort()).toEqual(hashed);
    for (const name of hashed) expect(manifest[name]).toBe(sha1(files.get(name)!));
    const signed = verifyDetachedSignature(files.get('signature')!, files.get('manifest.json')!, apple.caPem);
    expect(signed.uid).toBe(apple.passTypeId);
    // a changed manifest no longer matches the signature
    expect(() => verifyDetachedSignature(files.get('signature')!, Buffer.from('{}'), apple.caPem)).toThrow(/digest/);
    // nor does another root
    expect(() =>
      verifyDetachedSignature(files.get('signature')!, files.get('manifest.json')!, makeAppleCredentials().caPem),
    ).toThrow(/chain/);
    expect(files.get('icon.png')!.subarray(1, 4).toString()).toBe('PNG');
  });

  it('says event, date, venue with location, attendee, seat, type and order; the QR token is the barcode', () => {
    const pass = JSON.parse(unzip(applePass(appleKeys(), ticket())).get('pass.json')!.toString());
    expect(pass).toMatchObject({
      formatVersion: 1,
      passTypeIdentifier: 'pass.test.admit',
      teamIdentifier: 'ADMIT12345',
      serialNumber: 'K7QX-M2PA-1',
      organizationName: 'Harbour Hall',
      barcodes: [{ format: 'PKBarcodeFormatQR', message: 'qr-token-123' }],
      locations: [{ latitude: 52.52, longitude: 13.405 }],
    });
    expect(new Date(pass.relevantDate).toISOString()).toBe('2026-12-01T19:00:00.000Z');
    expect(pass.voided).toBeUndefined();
    const fields = Object.fromEntries(
      ['headerFields', 'primaryFields', 'secondaryFields', 'auxiliaryFields', 'backFields'].flatMap((k) =>
        (pass.eventTicket[k] as Array<{ key: string; value: string }>).map((f) => [f.key, f.value]),
      ),
    );
    expect(fields).toMatchObject({
      event: 'Winter Gig',
      when: '2026-12-01T20:00:00+01:00',
      venue: 'Klub',
      attendee: 'Ada Lovelace',
      seat: 'Stalls · Row F, Seat 12',
      type: 'Standing',
      order: 'K7QX-M2PA',
      ticket: 'K7QX-M2PA-1',
    });
  });

  it('leaves out what the ticket has not (no coordinates, no seat) and marks a voided ticket VOID', () => {
    const pass = JSON.parse(
      unzip(applePass(appleKeys(), ticket({ venue: { name: 'Klub' }, seat: null, voided: true, lang: 'de' })))
        .get('pass.json')!
        .toString(),
    );
    expect(pass.locations).toBeUndefined();
    expect(pass.voided).toBe(true);
    expect(pass.eventTicket.headerFields[0]).toMatchObject({ key: 'status', value: 'UNGÜLTIG' });
    expect(JSON.stringify(pass.eventTicket)).not.toContain('"seat"');
  });
});

describe('Google save link', () => {
  const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString());
  const keys = () => ({
    issuer_id: '3388000000012345678',
    service_account_email: 'wallet@admit-test.iam.gserviceaccount.com',
    private_key_pem: google.privatePem,
  });

  it('is an RS256 JWT that verifies with the public key and carries the ticket', () => {
    const url = googleSaveUrl(keys(), ticket(), 'https://admit.test', new Date('2026-11-22T12:00:00Z'));
    expect(url.startsWith(GOOGLE_SAVE_URL)).toBe(true);
    const jwt = url.slice(GOOGLE_SAVE_URL.length);
    const [head, body, sig] = jwt.split('.') as [string, string, string];
    expect(decode(head)).toEqual({ alg: 'RS256', typ: 'JWT' });
    const ok = createVerify('RSA-SHA256')
      .update(`${head}.${body}`)
      .verify(createPublicKey(google.publicPem), Buffer.from(sig, 'base64url'));
    expect(ok).toBe(true);
    const claims = decode(body);
    expect(claims).toMatchObject({
      iss: 'wallet@admit-test.iam.gserviceaccount.com',
      aud: 'google',
      typ: 'savetowallet',
      origins: ['https://admit.test'],
    });
    const object = claims.payload.eventTicketObjects[0];
    expect(object).toMatchObject({
      barcode: { type: 'QR_CODE', value: 'qr-token-123' },
      state: 'ACTIVE',
      ticketHolderName: 'Ada Lovelace',
      seatInfo: { seat: { defaultValue: { value: 'Stalls · Row F, Seat 12' } } },
      classId: claims.payload.eventTicketClasses[0].id,
    });
    expect(object.id).toMatch(/^3388000000012345678\.[A-Za-z0-9._-]+$/);
    expect(claims.payload.eventTicketClasses[0]).toMatchObject({
      eventName: { defaultValue: { value: 'Winter Gig' } },
      venue: { name: { defaultValue: { value: 'Klub' } } },
    });
    // another key does not verify it
    const other = makeGoogleKey();
    expect(
      createVerify('RSA-SHA256')
        .update(`${head}.${body}`)
        .verify(createPublicKey(other.publicPem), Buffer.from(sig, 'base64url')),
    ).toBe(false);
  });

  it('saves a voided ticket as INACTIVE', () => {
    const url = googleSaveUrl(keys(), ticket({ voided: true }), 'https://admit.test', new Date());
    const claims = decode(url.slice(GOOGLE_SAVE_URL.length).split('.')[1]!);
    expect(claims.payload.eventTicketObjects[0].state).toBe('INACTIVE');
  });
});

describe('key checks', () => {
  it('refuses a certificate with another key, a pass type the certificate does not name, and a non-RSA Google key', () => {
    expect(appleKeyProblems(appleKeys())).toEqual({});
    expect(appleKeyProblems({ ...appleKeys(), key_pem: apple.otherKeyPem })).toEqual({ key_pem: 'key_does_not_match' });
    expect(appleKeyProblems({ ...appleKeys(), pass_type_id: 'pass.other' })).toEqual({ pass_type_id: 'pass_type_id_mismatch' });
    expect(appleKeyProblems({ ...appleKeys(), certificate_pem: 'junk', wwdr_pem: '' })).toEqual({
      certificate_pem: 'not_a_certificate',
      wwdr_pem: 'missing',
    });
    const g = { issuer_id: '123', service_account_email: 'a@b.c' };
    expect(googleKeyProblems({ ...g, private_key_pem: google.privatePem })).toEqual({});
    expect(googleKeyProblems({ ...g, private_key_pem: 'nope' })).toEqual({ private_key_pem: 'not_a_private_key' });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(googleKeyProblems({ ...g, private_key_pem: ec })).toEqual({ private_key_pem: 'not_rsa' });
  });
});
