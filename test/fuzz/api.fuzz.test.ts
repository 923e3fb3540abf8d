import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp } from '../app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../factories.ts';

/**
 * Bad input, everywhere: for every operation in the OpenAPI document, generated malformed
 * path segments, query strings, headers and bodies must never produce a 500, must answer in
 * the documented error shape, and a refused request must change no row.
 *
 * FUZZ_RUNS (default 2000) requests per operation; FUZZ_SEED fixes the generator (default 4242).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 4242);

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let operations: Array<{ method: string; path: string; hasBody: boolean }>;

const WATCHED = [
  'orders',
  'order_lines',
  'payments',
  'refunds',
  'tickets',
  'checkins',
  'inventory',
  'themes',
  'idempotency_keys',
  'outbox',
  'events',
  'ticket_types',
  'discount_codes',
  'webhook_endpoints',
  'webhook_deliveries',
];

/**
 * A cheap fingerprint of the watched tables: row counts plus the sum of the rows' xmin (the
 * transaction that last wrote each row), so any insert, update or delete changes it.
 */
async function checksum(): Promise<string> {
  const parts = WATCHED.map(
    (table) =>
      sql`select ${table}::text as t, count(*)::text as n, coalesce(sum((x.xmin::text)::bigint), 0)::text as h from ${sql.table(table)} as x`,
  );
  // tokens: every field but last_used_at, which authentication keeps even for a refused request
  parts.push(
    sql`select 'api_tokens' as t, count(*)::text as n, coalesce(md5(string_agg(concat_ws(':', x.id, x.name, x.token_hash, x.capabilities::text, x.scopes::text, x.event_slugs::text), ',' order by x.id)), '') as h from api_tokens as x`,
  );
  const r = await sql<{ t: string; n: string; h: string }>`${sql.join(parts, sql` union all `)}`.execute(t.ctx.db);
  return r.rows.map((row) => `${row.t}:${row.n}:${row.h}`).join('|');
}

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'fuzz',
      events: [
        makeEvent({
          slug: 'fuzz-event',
          ticket_types: [{ key: 'ga', name: 'GA', price: 2500, capacity: 5, tax_rate_bp: 700 }],
          checkin_lists: [{ key: 'main', name: 'Main' }],
          orders: [makeOrder({ ref: 'FUZZ-0001' })],
        }),
      ],
    }),
  );
  const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
    paths: Record<string, Record<string, { requestBody?: unknown }>>;
  };
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([m]) => ['get', 'post', 'patch', 'put', 'delete'].includes(m))
      .map(([m, op]) => ({ method: m.toUpperCase(), path, hasBody: Boolean(op.requestBody) || m !== 'get' })),
  );
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

const request = (op: { method: string; path: string; hasBody: boolean }) =>
  fc.record({
    segments: fc.array(segment, { minLength: 4, maxLength: 4 }),
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
    auth: fc.constantFrom('all', 'view', 'limited', 'none', 'bad', 'missing'),
    contentType: fc.constantFrom(
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
    body: op.hasBody ? fc.option(rawBody, { nil: undefined }) : fc.constant(undefined),
    realSlug: fc.boolean(),
  });

function fillPath(path: string, segments: string[], realSlug: boolean): string {
  let i = 0;
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const seg = segments[i++ % segments.length]!;
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
          const url = fillPath(op.path, r.segments, r.realSlug) + (qs ? `?${qs}` : '');
          const write = op.method !== 'GET';
          const before = write ? await checksum() : '';
          const res = await t.app.inject({
            method: op.method as InjectOptions['method'],
            url,
            headers,
            ...(r.body !== undefined ? { payload: r.body } : {}),
          });
          const where = `${op.method} ${op.path} -> ${res.statusCode}: ${res.body.slice(0, 300)}`;
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
