import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp } from '../app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../factories.ts';
import { BOUNDARY_NUMBERS, fromSchema, numberText, toJson, withNumbers } from './arbitraries.ts';
import { checksum as checksumOf } from './checksum.ts';

/**
 * Bad input, everywhere: for every operation in the OpenAPI document, generated malformed
 * path segments, query strings, headers and bodies must never produce a 500, must answer in
 * the documented error shape, and a refused request must change no row. Half the requests are
 * well formed (a token that may, JSON, the real event) with a body generated from the
 * operation's own schema, every numeric field in it, at any depth, drawn from boundary numbers
 * (2^31, 2^53 + 2, 1e21, 1.5, numbers as strings...), so those numbers get past the schema's
 * type checks to the code behind them.
 *
 * FUZZ_RUNS (default 2000) requests per operation; FUZZ_SEED fixes the generator (default 4242).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 4242);

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
interface Operation {
  method: string;
  path: string;
  hasBody: boolean;
  /** the JSON request body's schema, when the document gives one */
  schema?: Record<string, unknown>;
}
let operations: Operation[];
let components: Record<string, Record<string, unknown>>;
/** the fuzz event's configuration document, a template whose numbers are replaced */
let configTemplate: unknown;
/** ids of the fuzz event's rows, for path segments and id fields of well-formed requests */
let knownIds: number[];
let typeIds: number[];
/** the fuzz event's check-in lists and the QR tokens of its order and tickets, for the check-in paths */
let listIds: number[];
let qrTokens: string[];

const checksum = () => checksumOf(t.ctx.db);

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'fuzz',
      events: [
        makeEvent({
          slug: 'fuzz-event',
          currencies: ['eur', 'gbp'],
          fx_rates: { gbp: 1.17 },
          ticket_types: [
            { key: 'ga', name: 'GA', price: 2500, capacity: 5, tax_rate_bp: 700 },
            {
              key: 'vip',
              name: 'VIP',
              price: 6000,
              prices: { gbp: 5200 },
              capacity: 3,
              max_per_order: 2,
              tax_rate_bp: 1900,
              group_discounts: [{ min_quantity: 2, percent_off: 10 }],
              includes: [{ good: 'tote', quantity: 2 }],
            },
            { key: 'open', name: 'Open', price: 1000 },
          ],
          goods: [{ key: 'tote', name: 'Tote', price: 500, capacity: 10, tax_rate_bp: 1900 }],
          discount_codes: [{ code: 'FUZZ', percent_off: 10, max_uses: 5 }],
          checkin_lists: [{ key: 'main', name: 'Main' }],
          orders: [makeOrder({ ref: 'FUZZ-0001' })],
        }),
      ],
    }),
  );
  const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> } }>>;
    components?: { schemas?: Record<string, Record<string, unknown>> };
  };
  components = doc.components?.schemas ?? {};
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([m]) => ['get', 'post', 'patch', 'put', 'delete'].includes(m))
      .map(([m, op]) => ({
        method: m.toUpperCase(),
        path,
        hasBody: Boolean(op.requestBody) || m !== 'get',
        schema: op.requestBody?.content?.['application/json']?.schema,
      })),
  );
  configTemplate = (await t.call(acct.tokens.all, { method: 'GET', url: '/api/v1/events/fuzz-event/config' })).json();
  const ids = async (table: 'ticket_types' | 'checkin_lists' | 'goods' | 'tickets') =>
    (await t.ctx.db.selectFrom(table).select('id').execute()).map((r) => r.id);
  typeIds = await ids('ticket_types');
  knownIds = [...new Set([...typeIds, ...(await ids('checkin_lists')), ...(await ids('goods')), ...(await ids('tickets'))])];
  listIds = await ids('checkin_lists');
  qrTokens = [
    ...(await t.ctx.db.selectFrom('orders').select('qr_token').execute()).map((r) => r.qr_token),
    ...(await t.ctx.db.selectFrom('tickets').select('qr_token').execute()).map((r) => r.qr_token),
  ];
});
afterAll(() => t.close());

const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    '..',
    '%00',
    '%FF%FE',
    '-1',
    '0',
    '1.5',
    '1e309',
    '9007199254740993',
    '2147483648',
    '4294967296',
    '9007199254740992',
    '9007199254740994',
    '-9007199254740992',
    '9223372036854775808',
    '1e21',
    'null',
    'true',
    '[]',
    '{}',
    "'; drop table orders;--",
    '<script>alert(1)</script>',
    'a'.repeat(5000),
  ),
  fc.integer().map(String),
);

/**
 * Sent verbatim, not percent-encoded again: NUL, bytes that are not UTF-8 (a lone continuation
 * byte, an encoded surrogate half, a truncated sequence), stray percents, very long values.
 */
const rawNasty = fc.constantFrom(
  '%00',
  'a%00b',
  '%00%00',
  '%FF',
  '%FF%FE',
  '%C3',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%zz',
  '%',
  '100%',
  '%C0%AF',
  'A'.repeat(1006),
  'B'.repeat(8000),
);
const segment = fc.oneof(
  nasty.map((s) => encodeURIComponent(s).slice(0, 2000)),
  rawNasty,
);

/** Strings PostgreSQL cannot store: NUL and lone UTF-16 surrogates, alone or inside text. */
const unstorableString = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\uD800', 'x\uDC00', '\uDBFF\uDBFF', 'ok\uDFFFok'),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

const jsonValue = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record(
    {
      items: fc.oneof(
        fc.array(
          fc.record(
            {
              ticket_type_id: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)),
              quantity: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double(), fc.constant(2 ** 60), fc.constant(null)),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 4 },
        ),
        fc.anything(),
      ),
      email: fc.oneof(fc.string(), unstorableString, fc.constant(null), fc.integer()),
      name: fc.oneof(fc.string(), unstorableString, fc.constant(null), fc.constant('')),
      revoke_link: fc.oneof(fc.boolean(), fc.string(), fc.constant(null)),
      url: fc.oneof(
        fc.constantFrom(
          'https://hooks.example.test/admit',
          'http://127.0.0.1:9/x',
          'http://[::ffff:169.254.169.254]/',
          'javascript:alert(1)',
          '',
        ),
        unstorableString,
        fc.string(),
      ),
      events: fc.oneof(fc.array(fc.constantFrom('order.paid', 'checkin.created', 'nope', '*'), { maxLength: 3 }), fc.anything()),
      enabled: fc.oneof(fc.boolean(), fc.string(), fc.constant(null)),
      since: fc.oneof(fc.constantFrom('2026-01-01T00:00:00Z', 'yesterday'), unstorableString),
      settings: fc.oneof(
        fc.dictionary(
          fc.oneof(fc.string({ maxLength: 30 }), unstorableString),
          fc.oneof(fc.jsonValue({ maxDepth: 2 }), unstorableString),
        ),
        fc.constant(null),
      ),
    },
    { requiredKeys: [] },
  ),
);

const rawBody = fc.oneof(
  jsonValue.map((v) => JSON.stringify(v)),
  fc.constantFrom(
    '{',
    '{"items": [',
    'null',
    '"',
    '{"items":[{"ticket_type_id":1,"quantity":99999999999999999999999}]}',
    '['.repeat(5000),
    '{"a":'.repeat(2000),
  ),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('latin1')),
);

type Auth = 'all' | 'view' | 'limited' | 'none' | 'bad' | 'missing';

/** Columns of the configuration document that are null for "no limit" and otherwise numbers. */
const NULLABLE_NUMBERS = new Set(['capacity', 'max_per_order', 'max_uses', 'percent_off', 'amount_off']);

/**
 * A body in the operation's own shape with boundary numbers in its numeric fields: from the
 * schema, or for the configuration document (whose schema only says "an object") the fuzz
 * event's own document with some of its numbers replaced.
 */
function bodyFor(op: Operation): fc.Arbitrary<unknown> {
  if (op.method === 'PUT' && op.path.endsWith('/config')) return withNumbers(configTemplate, NULLABLE_NUMBERS);
  const hints = {
    ticket_type_id: fc.constantFrom(...typeIds),
    ticket_types: fc.array(fc.constantFrom(...typeIds), { maxLength: 3 }),
    ticket_id: fc.constantFrom(...knownIds),
    code: fc.constantFrom('FUZZ', 'NEW1'),
    slug: fc.constantFrom('fuzz-copy', 'fuzz-event'),
    email: fc.constantFrom('buyer@example.org', 'not-an-email'),
    ga: fc.constantFrom(...BOUNDARY_NUMBERS),
  };
  return op.schema ? fromSchema(op.schema, { components, hints }) : fc.constant({});
}

/** A path segment for a well-formed request: a real id, or a number at an edge (2^53 + 1, 1e21, -1). */
const idSegment = fc.oneof(
  fc.constant(null).chain(() => fc.constantFrom(...knownIds.map(String))),
  numberText.map((s) => encodeURIComponent(s)),
);
/** A QR token segment: a real one (the check-in paths), or a number at an edge. */
const qrSegment = fc.oneof(
  fc.constant(null).chain(() => fc.constantFrom(...qrTokens)),
  numberText.map((s) => encodeURIComponent(s)),
);

/** What a client that means it sends: a token that may, JSON, the real event, a body in the operation's shape. */
const wellFormed = (op: Operation) =>
  fc.record({
    segments: fc.array(idSegment, { minLength: 4, maxLength: 4 }),
    named: fc.record({
      checkin_list_id: fc.oneof(
        idSegment,
        fc.constant(null).chain(() => fc.constantFrom(...listIds.map(String))),
      ),
      order_qr_token: qrSegment,
      ticket_qr_token: qrSegment,
    }),
    query: fc.dictionary(
      fc.constantFrom('limit', 'after', 'page', 'per_page', 'range', 'from', 'to', 'currency', 'paid'),
      numberText.map((s) => encodeURIComponent(s)),
      { maxKeys: 3 },
    ),
    auth: fc.constant<Auth>('all'),
    contentType: fc.constant<string | undefined>('application/json'),
    idem: fc.constant<string | undefined>(undefined),
    body: op.hasBody ? bodyFor(op).map(toJson) : fc.constant(undefined),
    realSlug: fc.constant(true),
  });

/** Revoking a token by a real id would revoke the fuzzer's own, and every later request would stop at 401. */
const revokesTokens = (op: Operation) => op.method === 'DELETE' && op.path.startsWith('/api/v1/tokens/');

const request = (op: Operation) => (revokesTokens(op) ? malformed(op) : fc.oneof(malformed(op), wellFormed(op)));

const malformed = (op: Operation) =>
  fc.record({
    segments: fc.array(segment, { minLength: 4, maxLength: 4 }),
    named: fc.constant<Record<string, string>>({}),
    query: fc.dictionary(
      fc.constantFrom(
        'limit',
        'after',
        'range',
        'from',
        'to',
        'group',
        'status',
        'code',
        'currency',
        'page',
        'per_page',
        'q',
        'source',
        'on',
        'paid',
        'x',
      ),
      segment,
      { maxKeys: 4 },
    ),
    auth: fc.constantFrom<Auth>('all', 'view', 'limited', 'none', 'bad', 'missing'),
    contentType: fc.constantFrom<string | undefined>(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      undefined,
    ),
    idem: fc.option(fc.oneof(fc.string({ maxLength: 20 }), fc.constant('k'.repeat(201)), fc.constant('k'.repeat(5000))), {
      nil: undefined,
    }),
    body: op.hasBody ? fc.option(fc.oneof(rawBody, bodyFor(op).map(toJson)), { nil: undefined }) : fc.constant(undefined),
    realSlug: fc.boolean(),
  });

function fillPath(path: string, segments: string[], realSlug: boolean, named: Record<string, string> = {}): string {
  let i = 0;
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const seg = named[name] ?? segments[i++ % segments.length]!;
    if (realSlug && name === 'account') return 'fuzz';
    if (realSlug && (name === 'slug' || name === 'event')) return 'fuzz-event';
    if (realSlug && name === 'ref') return 'FUZZ-0001';
    return seg;
  });
}

describe('fuzzing every operation', () => {
  it('the fingerprint notices any write', async () => {
    const before = await checksum();
    await t.ctx.db.updateTable('orders').set({ name: 'changed' }).where('ref', '=', 'FUZZ-0001').execute();
    const after = await checksum();
    expect(after).not.toBe(before);
  });

  it('never 500s, always the documented shape, and refusals change nothing', async () => {
    expect(operations.length).toBeGreaterThanOrEqual(5);
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(request(op), async (r) => {
          const headers: Record<string, string> = {};
          if (r.auth !== 'missing')
            headers.authorization = r.auth === 'bad' ? 'Bearer adm_nope' : `Bearer ${acct.tokens[r.auth]}`;
          if (r.contentType && r.body !== undefined) headers['content-type'] = r.contentType;
          if (r.idem !== undefined) headers['idempotency-key'] = r.idem;
          // values already encoded (or raw on purpose): joined as they are
          const qs = Object.entries(r.query)
            .map(([k, v]) => `${k}=${v}`)
            .join('&');
          const url = fillPath(op.path, r.segments, r.realSlug, r.named) + (qs ? `?${qs}` : '');
          const write = op.method !== 'GET';
          const before = write ? await checksum() : '';
          const res = await t.app.inject({
            method: op.method as InjectOptions['method'],
            url,
            headers,
            ...(r.body !== undefined ? { payload: r.body } : {}),
          });
          const where = `${op.method} ${url} ${String(r.body).slice(0, 300)} -> ${res.statusCode}: ${res.body.slice(0, 300)}`;
          expect(res.statusCode, where).not.toBe(500);
          // text PostgreSQL cannot store is settled at the boundary, not by the database's refusal
          expect(res.body, where).not.toContain('cannot be stored');
          expect(res.statusCode, where).toBeLessThan(500 + (op.path.includes('refund') || op.path.includes('cancel') ? 4 : 0));
          if (res.statusCode >= 400) {
            if (String(res.headers['content-type']).startsWith('application/json')) {
              const body = res.json();
              expect(typeof body.error?.code, where).toBe('string');
              expect(body.error.code, where).toMatch(/^[a-z_]+$/);
              expect(typeof body.error.message, where).toBe('string');
            } else {
              expect(String(res.headers['content-type']), where).toMatch(/^text\/html/);
            }
            if (write) expect(await checksum(), where).toBe(before);
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }
  });
});
