import net from 'node:net';

/**
 * Which IP addresses the image fetcher may connect to. Everything that is not plainly public
 * is refused: loopback, private, shared (CGNAT), link-local (cloud metadata lives there),
 * unique-local, multicast, reserved and documentation ranges, and any IPv6 form that embeds
 * an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) is judged by the address inside.
 */
type Range = [bytes: number[], prefix: number, reason: string];

const V4: Range[] = [
  [[0, 0, 0, 0], 8, 'a "this network" address'],
  [[10, 0, 0, 0], 8, 'a private address'],
  [[100, 64, 0, 0], 10, 'a shared (carrier-grade NAT) address'],
  [[127, 0, 0, 0], 8, 'a loopback address'],
  [[169, 254, 0, 0], 16, 'a link-local address'],
  [[172, 16, 0, 0], 12, 'a private address'],
  [[192, 0, 0, 0], 24, 'a reserved address'],
  [[192, 0, 2, 0], 24, 'a documentation address'],
  [[192, 88, 99, 0], 24, 'a reserved address'],
  [[192, 168, 0, 0], 16, 'a private address'],
  [[198, 18, 0, 0], 15, 'a benchmarking address'],
  [[198, 51, 100, 0], 24, 'a documentation address'],
  [[203, 0, 113, 0], 24, 'a documentation address'],
  [[224, 0, 0, 0], 4, 'a multicast address'],
  [[240, 0, 0, 0], 4, 'a reserved address'],
];

const V6: Range[] = [
  [[0xfe, 0x80], 10, 'a link-local address'],
  [[0xfe, 0xc0], 10, 'a site-local address'],
  [[0xfc, 0], 7, 'a unique-local address'],
  [[0xff, 0], 8, 'a multicast address'],
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'a documentation address'],
  [[0x01, 0, 0, 0, 0, 0, 0, 0], 64, 'a discard address'],
];

function inRange(addr: number[], [net_, prefix]: Range): boolean {
  for (let bit = 0; bit < prefix; bit++) {
    const i = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((addr[i]! & mask) !== ((net_[i] ?? 0) & mask)) return false;
  }
  return true;
}

function parseV4(ip: string): number[] {
  return ip.split('.').map(Number);
}

/** 16 bytes of an IPv6 address (net.isIPv6 has already accepted it). */
export function parseV6(ip: string): number[] {
  let s = ip.split('%')[0]!.toLowerCase();
  let tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const b = parseV4(v4[1]!);
    tail = [(b[0]! << 8) | b[1]!, (b[2]! << 8) | b[3]!];
    s = s.slice(0, -v4[1]!.length) + '0:0';
  }
  const [head, rest] = s.includes('::') ? s.split('::') : [s, null];
  const h = head ? head.split(':').filter((x) => x !== '') : [];
  const r = rest ? rest.split(':').filter((x) => x !== '') : [];
  const groups = rest === null ? h : [...h, ...Array(8 - h.length - r.length).fill('0'), ...r];
  const words = groups.map((g) => parseInt(g, 16));
  if (tail.length) words.splice(6, 2, ...tail);
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

function v4Reason(b: number[]): string | null {
  if (b.every((x) => x === 255)) return 'a broadcast address';
  for (const r of V4) if (inRange(b, r)) return r[2];
  return null;
}

/**
 * Null when the fetcher may connect to `ip`, otherwise why not. `allowLoopback` exists only
 * for tests (a local image server); it lets loopback through and nothing else.
 */
export function refusedAddress(ip: string, opts: { allowLoopback?: boolean } = {}): string | null {
  const family = net.isIP(ip);
  if (family === 4) {
    const b = parseV4(ip);
    if (opts.allowLoopback && b[0] === 127) return null;
    return v4Reason(b);
  }
  if (family !== 6) return 'not an IP address';
  const b = parseV6(ip);
  const zeros = (n: number) => b.slice(0, n).every((x) => x === 0);
  if (zeros(15) && b[15] === 1) return opts.allowLoopback ? null : 'a loopback address';
  if (zeros(16)) return 'an unspecified address';
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64): judge the IPv4 inside.
  const mapped = zeros(10) && b[10] === 0xff && b[11] === 0xff;
  const compatible = zeros(12);
  const nat64 = b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b.slice(4, 12).every((x) => x === 0);
  if (mapped || compatible || nat64) {
    const inner = b.slice(12);
    if (opts.allowLoopback && inner[0] === 127) return null;
    return v4Reason(inner) ?? (compatible ? 'a deprecated IPv4-compatible address' : null);
  }
  // 6to4 (2002::/16) embeds an IPv4 address; Teredo (2001::/32) tunnels to arbitrary ones.
  if (b[0] === 0x20 && b[1] === 0x02) return v4Reason(b.slice(2, 6)) ?? null;
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) return 'a Teredo tunnel address';
  for (const r of V6) if (inRange(b, r)) return r[2];
  // Only global unicast (2000::/3) is public.
  if ((b[0]! & 0xe0) !== 0x20) return 'a reserved address';
  return null;
}
