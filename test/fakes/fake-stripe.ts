import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the Stripe API (PaymentIntents, Refunds, balance transactions), enough
 * for the calls admit makes. Tests flip `fail` to make the next calls answer 500, set fees, and
 * count the calls it saw. Listens on 127.0.0.1 only.
 */
export interface FakeStripe {
  url: string;
  calls: Array<{ method: string; path: string; body: Record<string, string>; idempotencyKey: string | undefined }>;
  intents: Map<string, { id: string; amount: number; currency: string; status: string; fee: number | null; feeCurrency: string }>;
  refunds: Map<string, { id: string; payment_intent: string; amount: number }>;
  fail: { refunds: boolean; refundsDeclined: boolean; intents: boolean; cancel: boolean };
  /** refunds: answer after a delay, or make the refund and then drop the connection without answering */
  refundMode: 'ok' | 'slow' | 'drop';
  succeed(intentId: string): void;
  close(): Promise<void>;
}

export async function startFakeStripe(): Promise<FakeStripe> {
  let n = 0;
  const idem = new Map<string, { status: number; body: unknown }>();
  const fake: FakeStripe = {
    url: '',
    calls: [],
    intents: new Map(),
    refunds: new Map(),
    fail: { refunds: false, refundsDeclined: false, intents: false, cancel: false },
    refundMode: 'ok',
    succeed(id) {
      const pi = fake.intents.get(id);
      if (pi) pi.status = 'succeeded';
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const intentJson = (pi: NonNullable<ReturnType<FakeStripe['intents']['get']>>, expand: boolean) => ({
    id: pi.id,
    object: 'payment_intent',
    amount: pi.amount,
    currency: pi.currency,
    status: pi.status,
    client_secret: `${pi.id}_secret_x`,
    latest_charge:
      pi.status === 'succeeded'
        ? expand
          ? {
              id: `ch_${pi.id}`,
              object: 'charge',
              balance_transaction:
                pi.fee === null
                  ? null
                  : { id: `txn_${pi.id}`, object: 'balance_transaction', fee: pi.fee, currency: pi.feeCurrency },
            }
          : `ch_${pi.id}`
        : null,
  });
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = Object.fromEntries(new URLSearchParams(raw));
      const key = req.headers['idempotency-key'] as string | undefined;
      fake.calls.push({ method: req.method ?? '', path: url.pathname, body, idempotencyKey: key });
      const send = (status: number, json: unknown) => {
        if (key && req.method === 'POST') idem.set(key, { status, body: json });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (key && req.method === 'POST' && idem.has(key)) {
        const prev = idem.get(key)!;
        res.writeHead(prev.status, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(prev.body));
      }
      const err = (status: number, message: string) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', message } }));
      };
      const m = /^\/v1\/payment_intents(?:\/([^/]+))?(?:\/(cancel))?$/.exec(url.pathname);
      if (m) {
        if (fake.fail.intents) return err(500, 'intents down');
        if (req.method === 'POST' && !m[1]) {
          const id = `pi_fake_${++n}`;
          fake.intents.set(id, {
            id,
            amount: Number(body.amount),
            currency: body.currency ?? 'eur',
            status: 'requires_payment_method',
            fee: null,
            feeCurrency: body.currency ?? 'eur',
          });
          return send(200, intentJson(fake.intents.get(id)!, false));
        }
        const pi = fake.intents.get(m[1] ?? '');
        if (!pi) return err(404, 'no such intent');
        if (m[2] === 'cancel') {
          if (fake.fail.cancel) return err(500, 'cancel failed');
          pi.status = 'canceled';
          return send(200, intentJson(pi, false));
        }
        return send(
          200,
          intentJson(pi, url.searchParams.getAll('expand[]').length > 0 || url.searchParams.toString().includes('expand')),
        );
      }
      if (url.pathname === '/v1/refunds' && req.method === 'POST') {
        if (fake.fail.refunds) return err(500, 'refunds down');
        if (fake.fail.refundsDeclined) return err(402, 'charge already disputed');
        const id = `re_fake_${++n}`;
        fake.refunds.set(id, { id, payment_intent: body.payment_intent ?? '', amount: Number(body.amount) });
        const json = {
          id,
          object: 'refund',
          status: 'succeeded',
          amount: Number(body.amount),
          payment_intent: body.payment_intent,
        };
        if (fake.refundMode === 'drop') {
          // the refund happened, but the answer never arrives
          if (key) idem.set(key, { status: 200, body: json });
          return req.socket.destroy();
        }
        if (fake.refundMode === 'slow') return void setTimeout(() => send(200, json), 1500);
        return send(200, json);
      }
      return err(404, `unknown path ${url.pathname}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
