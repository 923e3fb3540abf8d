import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { cspOf, expectHashedScripts } from '../../../test/csp.ts';

let t: TestApp;
let a: Awaited<ReturnType<typeof seedAccount>>;
let ids: Record<string, number>;
const base = () => `/e/${a.slug}/fest`;

beforeAll(async () => {
  t = await createTestApp({ now: '2026-11-22T12:00:00Z', config: { rateLimitPerMin: 1000 } });
  a = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'fest',
          name: 'Fest <script>alert(1)</script>',
          currency: 'eur',
          currencies: ['eur', 'gbp'],
          fx_rates: { gbp: 1.17 },
          ticket_types: [
            {
              key: 'ga',
              name: 'General',
              price: 2500,
              prices: { gbp: 2200 },
              capacity: 100,
              max_per_order: 6,
              tax_rate_bp: 700,
              includes: [{ good: 'band' }],
            },
            { key: 'gone', name: 'Gone', price: 1000, capacity: 0 },
            { key: 'crew', name: 'Crew pass', price: 0, audience: 'crew' },
            { key: 'ws', name: 'Workshop', price: 1500, requires_session: true },
          ],
          goods: [
            { key: 'band', name: 'Wristband', price: 0, capacity: 100 },
            { key: 'tote', name: 'Tote', price: 1200, prices: { gbp: 1000 }, capacity: 5, tax_rate_bp: 1900 },
          ],
          sessions: [{ key: 's1', name: 'Morning', starts_at: '2027-03-15T09:00:00Z', capacity: 10, ticket_types: ['ws'] }],
          donations: [{ key: 'fund', name: 'Fund' }],
          audiences: [{ key: 'crew', name: 'Crew' }],
          portals: [{ key: 'uni', name: 'University box office' }],
          discount_codes: [
            { code: 'TEN', percent_off: 10 },
            { code: 'ONCE', amount_off: 500, max_uses: 1 },
            { code: 'WSONLY', percent_off: 50, ticket_types: ['ws'] },
          ],
        }),
      ],
    }),
  );
  const tt = await t.ctx.db.selectFrom('ticket_types').select(['id', 'key']).execute();
  const gs = await t.ctx.db.selectFrom('goods').select(['id', 'key']).execute();
  const ds = await t.ctx.db.selectFrom('donations').select(['id', 'key']).execute();
  const ss = await t.ctx.db.selectFrom('sessions').select(['id', 'key']).execute();
  ids = Object.fromEntries([...tt, ...gs, ...ds, ...ss].map((r) => [r.key, r.id]));
  const event = await t.ctx.db
    .selectFrom('events')
    .select(['id', 'account_id'])
    .where('slug', '=', 'fest')
    .executeTakeFirstOrThrow();
  await t.ctx.db
    .insertInto('questions')
    .values([
      {
        account_id: event.account_id,
        event_id: event.id,
        key: 'source',
        label: 'How did you hear about us?',
        scope: 'order',
        required: true,
        position: 0,
      },
      {
        account_id: event.account_id,
        event_id: event.id,
        key: 'diet',
        label: 'Dietary needs',
        scope: 'attendee',
        required: false,
        position: 1,
      },
    ])
    .execute();
});
afterAll(() => t.close());

const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

async function submit(path: string, form: Record<string, string>, opts: { ip?: string } = {}) {
  const page = await t.app.inject({ method: 'GET', url: path });
  return t.app.inject({
    method: 'POST',
    url: `${path}/checkout`,
    payload: new URLSearchParams({ csrf: csrfOf(page.body), ...form }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    remoteAddress: opts.ip ?? '10.1.1.1',
  });
}

async function readOrder(location: string) {
  const secret = location.split('/').pop()!;
  const row = await t.ctx.db.selectFrom('orders').select('ref').where('access_secret', '=', secret).executeTakeFirstOrThrow();
  return (await t.call(a.tokens.all, { method: 'GET', url: `/api/v1/orders/${row.ref}` })).json();
}

describe('event page', () => {
  it('shows what is on sale, escapes organiser text, marks sold-out types, hides audience-only ones', async () => {
    const res = await t.app.inject({ method: 'GET', url: base() });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Fest &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.body).not.toContain('<script>alert(1)');
    expect(res.body).toContain('€25.00');
    expect(res.body).toMatch(/Gone<\/label\s*>[\s\S]{0,400}<span class="admit-soldout">Sold out/);
    expect(res.body).not.toContain('name="qty_' + ids.gone + '"');
    expect(res.body).not.toContain('Crew pass');
    expect(res.body).toContain('only 5 left');
    expect(res.body).toMatch(/<label for="f-email"\s*>\s*Email\s*<\/label\s*>/);
    const gbp = await t.app.inject({ method: 'GET', url: `${base()}?currency=gbp` });
    expect(gbp.body).toContain('£22.00');
    expect((await t.app.inject({ method: 'GET', url: `/e/${a.slug}/nope` })).statusCode).toBe(404);
    const crew = await t.app.inject({ method: 'GET', url: `${base()}/a/crew` });
    expect(crew.body).toContain('Crew pass');
  });

  it('runs its running total allowed by its hash, and every response is the same bytes', async () => {
    const one = await t.app.inject({ method: 'GET', url: base() });
    const two = await t.app.inject({ method: 'GET', url: base() });
    expect(expectHashedScripts(one).scripts).toBe(1);
    expect(one.body).toMatch(/<script>\(\(\)=>\{const f=document\.querySelector\('form\.admit-shop'\)/);
    // nothing in the page is the response's own: a nonce shared by every visitor would be no
    // secret, a hash is none to begin with
    expect(two.body).toBe(one.body);
    expect(two.headers['content-security-policy']).toBe(one.headers['content-security-policy']);
    expect(one.headers['cache-control']).toBe('no-store');
    // the form sent back with its errors runs the same script under the same hash
    const invalid = await submit(base(), { [`qty_${ids.ga}`]: 'many', name: '', email: '' });
    expect(invalid.statusCode).toBe(422);
    expect(expectHashedScripts(invalid).scripts).toBe(1);
    expect(invalid.headers['content-security-policy']).toBe(one.headers['content-security-policy']);
  });

  it('allows no inline script at all on a page that has none (sales closed)', async () => {
    const other = await seedAccount(
      t.ctx,
      makeAccountFile({ events: [makeEvent({ slug: 'ended', sales_end_at: '2026-11-01T00:00:00Z' })] }),
    );
    const closed = await t.app.inject({ method: 'GET', url: `/e/${other.slug}/ended` });
    expect(closed.statusCode).toBe(200);
    expect(expectHashedScripts(closed).scripts).toBe(0);
    expect(cspOf(closed).get('script-src')).toEqual(["'self'"]);
  });
});

describe('browser checkout', () => {
  it('buys tickets, a good, a donation with a code and answers; the order reads back through the API', async () => {
    const res = await submit(base(), {
      [`qty_${ids.ga}`]: '2',
      [`good_${ids.tote}`]: '1',
      [`donation_${ids.fund}`]: '5.50',
      code: 'TEN',
      name: 'Ada Lovelace',
      email: 'ada@example.org',
      q_source: 'A friend',
      [`a_${ids.ga}_1_diet`]: 'vegan',
    });
    expect(res.statusCode, res.body.slice(0, 500)).toBe(303);
    expect(res.headers.location).toMatch(/^\/pay\//);
    const o = await readOrder(String(res.headers.location));
    expect(o).toMatchObject({
      status: 'pending',
      currency: 'eur',
      audience: null,
      portal: null,
      name: 'Ada Lovelace',
      subtotal_cents: 5000 + 1200 + 550,
      discount_cents: 620,
      total_cents: 6750 - 620,
      discounts: [{ code: 'TEN', amount_cents: 620 }],
      answers: [{ question: 'How did you hear about us?', answer: 'A friend' }],
      item_answers: [{ ticket_type_id: ids.ga, position: 1, answers: [{ question: 'Dietary needs', answer: 'vegan' }] }],
    });
    expect(o.lines.map((l: { kind: string; name: string; quantity: number }) => [l.kind, l.name, l.quantity])).toEqual([
      ['tickets', 'General', 2],
      ['goods', 'Wristband', 2],
      ['goods', 'Tote', 1],
      ['donations', 'Fund', 1],
    ]);
    const hold = await t.ctx.db.selectFrom('orders').select('expires_at').where('ref', '=', o.ref).executeTakeFirstOrThrow();
    expect(hold.expires_at?.toISOString()).toBe('2026-11-22T12:35:00.000Z');
  });

  it('records currency and fx_rate, the audience and the portal', async () => {
    const gbp = await readOrder(
      String(
        (await submit(base(), { currency: 'gbp', [`qty_${ids.ga}`]: '1', name: 'G', email: 'g@example.org', q_source: 'x' }))
          .headers.location,
      ),
    );
    expect(gbp).toMatchObject({ currency: 'gbp', fx_rate: 1.17, total_cents: 2200 });
    const crew = await submit(`${base()}/a/crew`, { [`qty_${ids.crew}`]: '1', name: 'C', email: 'c@example.org', q_source: 'x' });
    expect(crew.headers.location).toMatch(/^\/o\//); // free: paid at once
    expect(await readOrder(String(crew.headers.location))).toMatchObject({ status: 'paid', audience: 'crew', portal: null });
    const uni = await readOrder(
      String(
        (await submit(`${base()}/p/uni`, { [`qty_${ids.ga}`]: '1', name: 'U', email: 'u@example.org', q_source: 'x' })).headers
          .location,
      ),
    );
    expect(uni).toMatchObject({ portal: 'uni', audience: null });
    const report = (
      await t.call(a.tokens.all, { method: 'GET', url: '/api/v1/events/fest/report?group=audience&range=all&on=started' })
    ).json();
    expect(report.rows.map((r: { key: string }) => r.key).sort()).toEqual(['-', 'crew']);
  });

  it('says why a code cannot be used, and refills the form', async () => {
    const ok = await submit(base(), { [`qty_${ids.ga}`]: '1', code: 'ONCE', name: 'O', email: 'o@example.org', q_source: 'x' });
    expect(ok.statusCode).toBe(303);
    const used = await submit(base(), {
      [`qty_${ids.ga}`]: '1',
      code: 'ONCE',
      name: 'Second',
      email: 's@example.org',
      q_source: 'x',
    });
    expect(used.statusCode).toBe(422);
    expect(used.body).toContain('has been used up');
    expect(used.body).toContain('value="Second"');
    const wrong = await submit(base(), {
      [`qty_${ids.ga}`]: '1',
      code: 'WSONLY',
      name: 'W',
      email: 'w@example.org',
      q_source: 'x',
    });
    expect(wrong.body).toContain('does not apply to anything in this basket');
    const none = await submit(base(), { [`qty_${ids.ga}`]: '1', code: 'NOPE', name: 'N', email: 'n@example.org', q_source: 'x' });
    expect(none.body).toContain('does not exist');
  });

  it('validates every field with inline messages and writes nothing', async () => {
    const before = await t.ctx.db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await submit(base(), {
      [`qty_${ids.ga}`]: 'many',
      [`donation_${ids.fund}`]: '1.234',
      email: 'nope',
      [`qty_${ids.ws}`]: '1',
    });
    expect(res.statusCode).toBe(422);
    for (const m of [
      'Enter a whole number',
      'Enter an amount',
      'This is not an email address',
      'Enter your name',
      'Choose a session',
      'Please answer this question',
    ]) {
      expect(res.body).toContain(m);
    }
    expect(res.body).toContain('aria-invalid="true"');
    expect(res.body).toContain('role="alert"');
    const soldOut = await submit(base(), { [`good_${ids.tote}`]: '9', name: 'T', email: 't@example.org', q_source: 'x' });
    expect(soldOut.statusCode).toBe(409);
    const after = await t.ctx.db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('checks out in German: field messages and refusals in German, the order remembers its language', async () => {
    const bad = await submit(base(), { [`qty_${ids.ga}`]: 'viele', email: 'nein', lang: 'de-DE' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('<html lang="de-DE">');
    for (const m of ['Bitte geben Sie eine ganze Zahl ein', 'Das ist keine E-Mail-Adresse', 'Bitte geben Sie Ihren Namen ein'])
      expect(bad.body).toContain(m);
    expect(bad.body).not.toContain('Enter your name');
    const soldOut = await submit(base(), {
      [`good_${ids.tote}`]: '9',
      name: 'T',
      email: 't@example.org',
      q_source: 'x',
      lang: 'de',
    });
    expect(soldOut.statusCode).toBe(409);
    expect(soldOut.body).toContain('Davon ist nicht mehr genug verfügbar.');
    const ok = await submit(base(), { [`qty_${ids.ga}`]: '1', name: 'D', email: 'd@example.org', q_source: 'x', lang: 'de-AT' });
    expect(ok.statusCode).toBe(303);
    const secret = ok.headers.location!.split('/').pop()!;
    const row = await t.ctx.db
      .selectFrom('orders')
      .select('locale')
      .where('access_secret', '=', secret)
      .executeTakeFirstOrThrow();
    expect(row.locale).toBe('de-AT');
    // its pay page speaks German to any browser, unless the buyer switches
    const pay = await t.app.inject({ method: 'GET', url: ok.headers.location!, headers: { 'accept-language': 'en' } });
    expect(pay.body).toContain('<html lang="de-AT">');
    // Austrian German puts the sign first
    expect(pay.body).toMatch(/<button type="submit">€\s25,00 bezahlen<\/button>/);
    expect(pay.body).toContain('Ihre Tickets sind reserviert bis');
    const switched = await t.app.inject({ method: 'GET', url: `${ok.headers.location!}?lang=en` });
    expect(switched.body).toContain('Pay €25.00');
  });

  it('refuses a post without a valid CSRF token or from another site', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${base()}/checkout`,
      payload: `qty_${ids.ga}=1&name=x&email=x@example.org`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });

  it('limits checkout starts per client address', async () => {
    let last = 0;
    for (let i = 0; i < 32; i++) last = (await submit(base(), { name: '', email: '' }, { ip: '10.9.9.9' })).statusCode;
    expect(last).toBe(429);
    expect((await submit(base(), { name: '', email: '' }, { ip: '10.9.9.8' })).statusCode).toBe(422);
  });
});
