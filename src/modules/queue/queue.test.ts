import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';
import { csrfToken } from '../../platform/http/csrf.ts';
import { arrive } from './queue.repo.ts';
import { admittedUpTo, runningQueue, waitSeconds } from './queue-rules.ts';

/**
 * The on-sale queue (contract section 13): the waiting room, the lottery among early arrivals
 * (a chi-square test over many draws), admission at the configured rate, the signed pass the
 * checkout requires, and the attacks on it.
 */
let t: TestApp;
let eventId: number;
let typeId: number;
const START = '2026-12-01T09:00:00Z';
const at = (offsetMs: number) => new Date(new Date(START).getTime() + offsetMs);

beforeAll(async () => {
  t = await createTestApp({ now: '2026-12-01T08:00:00Z' });
  await seedAccount(
    t.ctx,
    makeAccountFile({
      slug: 'arena',
      events: [
        makeEvent({
          slug: 'tour',
          starts_at: '2027-05-01T19:00:00Z',
          sales_start_at: START,
          queue: { enabled: true, admit_per_minute: 60 },
          ticket_types: [{ key: 'ga', name: 'Standing', price: 5000, capacity: 1000 }],
        }),
        makeEvent({ slug: 'fair', starts_at: '2027-05-01T19:00:00Z', sales_start_at: START }),
      ],
    }),
  );
  const e = await t.ctx.db.selectFrom('events').select('id').where('slug', '=', 'tour').executeTakeFirstOrThrow();
  eventId = Number(e.id);
  typeId = Number(
    (await t.ctx.db.selectFrom('ticket_types').select('id').where('event_id', '=', eventId).executeTakeFirstOrThrow()).id,
  );
});
afterAll(() => t.close());

describe('the rules', () => {
  it('runs from 30 minutes before the start to the sales end; admits rate places a minute', () => {
    const e = {
      queue: { enabled: true, admit_per_minute: 50 },
      sales_start_at: START,
      sales_end_at: null,
      starts_at: '2027-01-01T00:00:00Z',
    };
    expect(runningQueue(e, at(-31 * 60_000))).toBeNull();
    expect(runningQueue(e, at(-30 * 60_000))).toMatchObject({ rate: 50 });
    expect(runningQueue({ ...e, queue: { enabled: false } }, at(0))).toBeNull();
    expect(runningQueue({ ...e, sales_start_at: null }, at(0))).toBeNull();
    expect(runningQueue(e, new Date('2027-01-01T00:00:00Z'))).toBeNull();
    const start = new Date(START);
    expect(admittedUpTo(start, 50, at(-1))).toBe(0);
    expect(admittedUpTo(start, 50, at(0))).toBe(1);
    expect(admittedUpTo(start, 50, at(1_199))).toBe(1);
    expect(admittedUpTo(start, 50, at(1_200))).toBe(2);
    expect(admittedUpTo(start, 50, at(60_000))).toBe(51);
    // exactly the rate over any stretch, to one place
    expect(admittedUpTo(start, 50, at(10 * 60_000 + 700)) - admittedUpTo(start, 50, at(700))).toBe(500);
    expect(waitSeconds(1, start, 50, at(0))).toBe(0);
    expect(waitSeconds(2, start, 50, at(0))).toBe(2);
    expect(waitSeconds(151, start, 50, at(30_000))).toBe(150);
  });
});

/** A browser: its cookies for this site, kept between requests. */
class Browser {
  jar = new Map<string, string>();
  take(res: LightMyRequestResponse) {
    const set = res.headers['set-cookie'];
    for (const c of [set ?? []].flat()) {
      const [pair] = String(c).split(';');
      const i = pair!.indexOf('=');
      this.jar.set(pair!.slice(0, i), decodeURIComponent(pair!.slice(i + 1)));
    }
    return res;
  }
  get cookie() {
    return [...this.jar].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
  }
  async open(url = '/e/arena/tour') {
    return this.take(await t.app.inject({ method: 'GET', url, headers: { cookie: this.cookie } }));
  }
  async status() {
    return this.take(
      await t.app.inject({ method: 'GET', url: '/e/arena/tour/queue.json', headers: { cookie: this.cookie } }),
    ).json() as {
      state: string;
      place?: number;
      ahead?: number;
      wait_seconds?: number;
    };
  }
  async checkout() {
    const csrf = await csrfToken(t.ctx, `checkout:${eventId}`);
    return t.app.inject({
      method: 'POST',
      url: '/e/arena/tour/checkout',
      headers: { cookie: this.cookie },
      payload: { csrf, [`qty_${typeId}`]: '1', email: 'fan@example.org', name: 'Fan' },
    });
  }
}

describe('the queue in front of the event page', () => {
  it('waiting room, lottery, admission at the rate, the pass the checkout needs', async () => {
    t.clock.set(at(-10 * 60_000));
    const early = Array.from({ length: 5 }, () => new Browser());
    for (const b of early) {
      const page = await b.open();
      expect(page.statusCode).toBe(200);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.body).toContain('You are in the waiting room');
      expect(page.body).toContain('<meta http-equiv="refresh" content="10" />');
      expect(await b.status()).toMatchObject({ state: 'before_start', wait_seconds: 600 });
    }
    // no pass, no checkout
    const refused = await early[0]!.checkout();
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('The sale runs through a queue');
    // another event without a queue is not affected
    expect((await t.app.inject({ method: 'GET', url: '/e/arena/fair' })).body).not.toContain('waiting room');

    // the start: the early ones get places 1..5 in a random order; one a second is let in
    t.clock.set(at(1_000));
    const answers = [];
    for (const b of early) answers.push(await b.open());
    const places = await t.ctx.db
      .selectFrom('queue_visitors')
      .select('place')
      .where('event_id', '=', eventId)
      .orderBy('place')
      .execute();
    expect(places.map((p) => Number(p.place))).toEqual([1, 2, 3, 4, 5]);
    const admitted = early.filter((b) => b.jar.has(`admit_qp${eventId}`));
    expect(admitted).toHaveLength(2);
    const waiting = early.filter((b) => !b.jar.has(`admit_qp${eventId}`));
    for (const b of waiting) expect(await b.status()).toMatchObject({ state: 'waiting' });
    expect(answers.filter((a) => a.body.includes('Your place in the queue'))).toHaveLength(3);

    // a latecomer queues behind everyone who came before the start
    const late = new Browser();
    await late.open();
    expect(await late.status()).toMatchObject({ state: 'waiting', place: 6, ahead: 3, wait_seconds: 4 });
    // the poll signs the place into a cookie (later polls read no database); a forged or borrowed one is ignored
    const placeToken = late.jar.get(`admit_qs${eventId}`)!;
    expect(placeToken).toMatch(/^6\./);
    late.jar.set(`admit_qs${eventId}`, `1.${placeToken.split('.')[1]}`);
    expect(await late.status()).toMatchObject({ state: 'waiting', place: 6 });
    const borrower = new Browser();
    borrower.jar = new Map(waiting[0]!.jar);
    borrower.jar.set(`admit_qs${eventId}`, placeToken);
    expect((await borrower.status()).place).not.toBe(6);

    // the admitted buy; a forged pass, a pass with another browser's visitor cookie, or none are refused
    const buyer = admitted[0]!;
    const ok = await buyer.checkout();
    expect(ok.statusCode, ok.body).toBe(303);
    const forged = new Browser();
    forged.jar = new Map(buyer.jar);
    const pass = forged.jar.get(`admit_qp${eventId}`)!;
    forged.jar.set(`admit_qp${eventId}`, `${Number(pass.split('.')[0]) + 3_600_000}.${pass.split('.')[1]}`);
    expect((await forged.checkout()).statusCode).toBe(403);
    const shared = new Browser();
    shared.jar = new Map(waiting[0]!.jar);
    shared.jar.set(`admit_qp${eventId}`, pass);
    expect((await shared.checkout()).statusCode).toBe(403);
    expect((await late.checkout()).statusCode).toBe(403);

    // two seconds later the next two are in, nobody twice
    t.clock.set(at(3_000));
    for (const b of waiting) await b.open();
    expect(waiting.filter((b) => b.jar.has(`admit_qp${eventId}`))).toHaveLength(2);
    const stamps = await t.ctx.db
      .selectFrom('queue_visitors')
      .select(['place', 'admitted_at'])
      .where('event_id', '=', eventId)
      .where('admitted_at', 'is not', null)
      .execute();
    expect(stamps.map((s) => Number(s.place)).sort()).toEqual([1, 2, 3, 4]);

    // an admission unused for 15 minutes goes to the back of the line
    t.clock.set(at(17 * 60_000));
    const unused = admitted[1]!;
    unused.jar.delete(`admit_qp${eventId}`);
    await unused.open();
    const again = await unused.status();
    expect(again.place).toBeGreaterThan(6);
  });

  it('the lottery is a uniform permutation of the early arrivals (chi-square over 600 draws)', async () => {
    const n = 6;
    const draws = 600;
    const counts = Array.from({ length: n }, () => Array<number>(n).fill(0));
    const start = new Date('2027-02-01T09:00:00Z');
    for (let d = 0; d < draws; d++) {
      await t.ctx.db.deleteFrom('queue_visitors').where('event_id', '=', eventId).execute();
      await t.ctx.db.deleteFrom('event_queues').where('event_id', '=', eventId).execute();
      for (let i = 0; i < n; i++) await arrive(t.ctx.db, eventId, `v${i}`, start, new Date(start.getTime() - (n - i) * 1000));
      await arrive(t.ctx.db, eventId, 'late', start, new Date(start.getTime() + 1000));
      const rows = await t.ctx.db
        .selectFrom('queue_visitors')
        .select(['visitor_hash', 'place'])
        .where('event_id', '=', eventId)
        .execute();
      for (const r of rows) {
        if (r.visitor_hash === 'late') expect(Number(r.place)).toBe(n + 1);
        else counts[Number(r.visitor_hash.slice(1))]![Number(r.place) - 1]!++;
      }
    }
    const expected = draws / n;
    const chi = counts.flat().reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
    // 25 degrees of freedom: P(chi² > 70) ≈ 4e-6 for a fair draw; arrival order would give thousands
    expect(chi).toBeLessThan(70);
    // every draw a permutation: each arrival once per draw, each place once per draw
    for (let i = 0; i < n; i++) {
      expect(counts[i]!.reduce((a, b) => a + b, 0)).toBe(draws);
      expect(counts.reduce((a, row) => a + row[i]!, 0)).toBe(draws);
    }
  });

  it('many browsers arriving at the start at once: one lottery, places 1..n each once', async () => {
    await t.ctx.db.deleteFrom('queue_visitors').where('event_id', '=', eventId).execute();
    await t.ctx.db.deleteFrom('event_queues').where('event_id', '=', eventId).execute();
    const start = new Date('2027-03-01T09:00:00Z');
    for (let i = 0; i < 10; i++) await arrive(t.ctx.db, eventId, `early${i}`, start, new Date(start.getTime() - 5_000));
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        arrive(t.ctx.db, eventId, i < 10 ? `early${i}` : `late${i}`, start, new Date(start.getTime() + 1 + i)),
      ),
    );
    const rows = await t.ctx.db
      .selectFrom('queue_visitors')
      .select(['visitor_hash', 'place'])
      .where('event_id', '=', eventId)
      .execute();
    expect(rows.map((r) => Number(r.place)).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    // the early ones hold the first ten places, whatever order the requests came in
    expect(rows.filter((r) => r.visitor_hash.startsWith('early')).every((r) => Number(r.place) <= 10)).toBe(true);
  });
});
