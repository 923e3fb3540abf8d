import { createHash } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { refusedAddress } from '../../platform/net/address-policy.ts';

/**
 * Fetches a theme image from a public http(s) URL, once, defending against SSRF:
 * - the host name is resolved here and every address it resolves to is vetted; the socket then
 *   connects to the vetted address through a fixed `lookup`, so there is no second lookup a
 *   rebinding DNS server could answer differently;
 * - every redirect hop (at most 3) is vetted the same way;
 * - the whole fetch has a deadline and a byte cap; the bytes must be PNG, JPEG, GIF or WebP by
 *   their magic numbers (never SVG, which can carry script).
 * Test override: ADMIT_ALLOW_PRIVATE_FETCH=1, read at call time and ignored when
 * NODE_ENV=production, lets loopback addresses through (and nothing else), so tests can use a
 * local image server.
 */
export class ImageFetchError extends Error {}

export interface FetchedImage {
  bytes: Buffer;
  contentType: string;
  sha256: string;
}

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

export const DEFAULT_LIMITS: FetchLimits = { maxBytes: 5 * 1024 * 1024, timeoutMs: 10_000, maxRedirects: 3 };

function allowLoopback(): boolean {
  return process.env.ADMIT_ALLOW_PRIVATE_FETCH === '1' && process.env.NODE_ENV !== 'production';
}

export function sniffImageType(b: Buffer): string | null {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return 'image/png';
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') {
    return 'image/webp';
  }
  return null;
}

interface Vetted {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves the host and refuses when any address it resolves to is not public. A host name that
 * does not resolve and one that resolves to a private address get the same answer: saying how a
 * name resolved would let anyone map the server's internal network through this form.
 */
export async function vetHost(hostname: string): Promise<Vetted> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const loopback = allowLoopback();
  const literal = net.isIP(host);
  const unreachable = () => new ImageFetchError(`the host "${host}" is not a public internet address`);
  let addrs: dns.LookupAddress[];
  if (literal) addrs = [{ address: host, family: literal }];
  else {
    try {
      addrs = await dns.promises.lookup(host, { all: true, verbatim: true });
    } catch {
      throw unreachable();
    }
  }
  if (addrs.length === 0) throw unreachable();
  for (const a of addrs) {
    const why = refusedAddress(a.address, { allowLoopback: loopback });
    // an address typed as such may be named back; a name's addresses are not
    if (why) throw literal ? new ImageFetchError(`"${host}" is ${why}, which is not allowed`) : unreachable();
  }
  return { address: addrs[0]!.address, family: addrs[0]!.family === 6 ? 6 : 4 };
}

export function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ImageFetchError('is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ImageFetchError('must be an http or https URL');
  if (url.username || url.password) throw new ImageFetchError('must not carry a user name or password');
  return url;
}

interface Hop {
  status: number;
  location?: string;
  body?: Buffer;
}

function requestOnce(url: URL, vetted: Vetted, limits: FetchLimits, signal: AbortSignal): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(
      url,
      {
        method: 'GET',
        signal,
        headers: { accept: 'image/png,image/jpeg,image/gif,image/webp', 'user-agent': 'admit-image-fetch/1' },
        // Connect to the address vetted above; never resolve the name again.
        lookup: (_hostname, options, cb) => {
          if ((options as { all?: boolean }).all) {
            (cb as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [vetted]);
          } else cb(null, vetted.address, vetted.family);
        },
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          resolve({ status, location: res.headers.location });
          return;
        }
        if (status !== 200) {
          res.resume();
          resolve({ status });
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > limits.maxBytes) {
          res.destroy();
          reject(new ImageFetchError(`the image is larger than ${limits.maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > limits.maxBytes) {
            res.destroy();
            reject(new ImageFetchError(`the image is larger than ${limits.maxBytes} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export async function fetchImage(raw: string, limits: FetchLimits = DEFAULT_LIMITS): Promise<FetchedImage> {
  let url = checkUrl(raw);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  try {
    for (let hop = 0; ; hop++) {
      // DNS lookups cannot be aborted; race them against the same deadline.
      const vetted = await Promise.race([
        vetHost(url.hostname),
        new Promise<never>((_, reject) => {
          if (controller.signal.aborted) reject(new ImageFetchError('the image server did not answer in time'));
          controller.signal.addEventListener('abort', () =>
            reject(new ImageFetchError('the image server did not answer in time')),
          );
        }),
      ]);
      if (controller.signal.aborted) throw new ImageFetchError('the image server did not answer in time');
      const res = await requestOnce(url, vetted, limits, controller.signal);
      if (res.location !== undefined) {
        if (hop >= limits.maxRedirects) throw new ImageFetchError(`more than ${limits.maxRedirects} redirects`);
        url = checkUrl(new URL(res.location, url).toString());
        continue;
      }
      if (!res.body) throw new ImageFetchError(`the image server answered ${res.status}`);
      const contentType = sniffImageType(res.body);
      if (!contentType) throw new ImageFetchError('is not a PNG, JPEG, GIF or WebP image');
      return { bytes: res.body, contentType, sha256: createHash('sha256').update(res.body).digest('hex') };
    }
  } catch (err) {
    if (err instanceof ImageFetchError) throw err;
    if (controller.signal.aborted) throw new ImageFetchError('the image server did not answer in time');
    throw new ImageFetchError(`could not be fetched (${(err as Error).message})`);
  } finally {
    clearTimeout(timer);
  }
}
