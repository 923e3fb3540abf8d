import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { refusedAddress } from '../../platform/net/address-policy.ts';

// One webhook attempt on the wire: the receiver's address vetted once, the POST on a kept
// connection, and when to try again. No database here; delivery.service.ts claims and records.

/** How much of a receiver's answer is kept for the delivery log. */
const RESPONSE_CAP = 1024;

export interface AttemptResult {
  status: number | null;
  error: string | null;
  body: string;
  retryAfterMs: number | null;
  durationMs: number;
}

/**
 * The address to connect to: resolved once, refused unless public (or private receivers are
 * allowed). The delivery log is shown to the organiser: it never says how a name resolved (a
 * name that does not resolve and one that resolves to a private address read the same).
 */
async function vet(host: string, allowPrivate: boolean): Promise<{ address: string; family: 4 | 6 }> {
  const bare = host.replace(/^\[|\]$/g, '');
  const literal = net.isIP(bare);
  const unreachable = () => new Error(`refused: ${bare} is not a public internet address`);
  const addrs = literal
    ? [{ address: bare, family: literal }]
    : await dns.promises.lookup(bare, { all: true, verbatim: true }).catch(() => {
        throw unreachable();
      });
  if (!addrs.length) throw unreachable();
  if (!allowPrivate) {
    for (const a of addrs) {
      const why = refusedAddress(a.address);
      if (why) throw literal ? new Error(`refused: ${bare} is ${why}`) : unreachable();
    }
  }
  return { address: addrs[0]!.address, family: addrs[0]!.family === 6 ? 6 : 4 };
}

/**
 * Connections are kept alive between attempts to the same receiver (a busy endpoint is one
 * connection per slot, not one per event); an idle one is closed after 4 s, below the usual 5 s of
 * servers, and a request on a kept connection the receiver closed meanwhile is sent again once on
 * a new one. A kept connection goes to an address vetted when it was opened.
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 4_000, maxFreeSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 4_000, maxFreeSockets: 64 }),
};

export async function post(
  target: string,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (r: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({
    ...r,
    durationMs: Math.round(performance.now() - started),
  });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return done({ status: null, error: 'the URL is not valid', body: '', retryAfterMs: null });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return done({ status: null, error: 'the URL is not http(s)', body: '', retryAfterMs: null });
  let vetted: { address: string; family: 4 | 6 };
  try {
    vetted = await vet(url.hostname, opts.allowPrivate);
  } catch (err) {
    return done({ status: null, error: (err as Error).message, body: '', retryAfterMs: null });
  }
  const once = (retry: boolean): Promise<AttemptResult> =>
    new Promise((resolve) => {
      const mod = url.protocol === 'https:' ? https : http;
      const req = mod.request(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          agent: agents[url.protocol as 'http:' | 'https:'],
          // connect to the address vetted above: no second lookup a rebinding DNS could answer differently
          lookup: (_hostname, options, cb) => {
            if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [vetted]);
            else cb(null, vetted.address, vetted.family);
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            if (size < RESPONSE_CAP * 4) chunks.push(c);
            size += c.length;
          });
          res.on('end', () => {
            clearTimeout(timer);
            const raw = res.headers['retry-after'];
            let retryAfterMs: number | null = null;
            if (typeof raw === 'string') {
              if (/^\d+$/.test(raw.trim())) retryAfterMs = Number(raw.trim()) * 1000;
              else if (!Number.isNaN(Date.parse(raw))) retryAfterMs = Math.max(0, Date.parse(raw) - Date.now());
            }
            resolve(
              done({
                status: res.statusCode ?? null,
                error: null,
                body: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_CAP),
                retryAfterMs,
              }),
            );
          });
          res.on('error', (err) =>
            resolve(done({ status: res.statusCode ?? null, error: err.message, body: '', retryAfterMs: null })),
          );
        },
      );
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${opts.timeoutMs / 1000} s`)), opts.timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (retry && req.reusedSocket && err.code === 'ECONNRESET') resolve(once(false));
        else resolve(done({ status: null, error: err.message, body: '', retryAfterMs: null }));
      });
      req.end(body);
    });
  return once(true);
}

/** When the next attempt is due after failure number `attempts` (1-based), or null: give up. */
export function nextAttemptDelay(
  schedule: number[],
  attempts: number,
  retryAfterMs: number | null,
  random = Math.random,
): number | null {
  if (attempts > schedule.length) return null;
  if (retryAfterMs !== null) return Math.min(Math.max(retryAfterMs, 1000), 24 * 60 * 60 * 1000);
  const base = schedule[attempts - 1]! * 1000;
  return Math.round(base * (0.9 + 0.2 * random()));
}
