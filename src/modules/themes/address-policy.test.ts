import { describe, expect, it } from 'vitest';
import { parseV6, refusedAddress } from '../../platform/net/address-policy.ts';
import { checkUrl, sniffImageType, vetHost } from './image-fetch.ts';

// Pure address checks: nothing here opens a connection.
describe('refusedAddress', () => {
  const refused: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/],
    ['127.255.1.2', /loopback/],
    ['10.0.0.1', /private/],
    ['10.255.255.255', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.254', /private/],
    ['192.168.1.1', /private/],
    ['100.64.0.1', /shared/],
    ['100.127.255.254', /shared/],
    ['169.254.169.254', /link-local/],
    ['169.254.0.1', /link-local/],
    ['0.0.0.0', /this network/],
    ['0.1.2.3', /this network/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /broadcast/],
    ['192.0.2.10', /documentation/],
    ['198.18.0.1', /benchmark/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['fe80::1', /link-local/],
    ['febf::1', /link-local/],
    ['fc00::1', /unique-local/],
    ['fd00:ec2::254', /unique-local/],
    ['fdff:ffff::1', /unique-local/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:7f00:1', /loopback/],
    ['::ffff:10.1.2.3', /private/],
    ['::ffff:169.254.169.254', /link-local/],
    ['::ffff:a9fe:a9fe', /link-local/],
    ['::ffff:192.168.0.1', /private/],
    ['::ffff:0.0.0.0', /this network/],
    ['::127.0.0.1', /loopback/],
    ['::8.8.8.8', /deprecated/],
    ['64:ff9b::a9fe:a9fe', /link-local/],
    ['64:ff9b::10.0.0.1', /private/],
    ['2002:c0a8:0101::1', /private/],
    ['2002:7f00:1::', /loopback/],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
    ['2001:db8::1', /documentation/],
    ['100::1', /discard/],
    ['fec0::1', /site-local/],
    ['4000::1', /reserved/],
    ['not-an-ip', /not an IP/],
  ];
  for (const [ip, why] of refused) {
    it(`refuses ${ip}`, () => {
      expect(refusedAddress(ip)).toMatch(why);
    });
  }

  for (const ip of [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '169.253.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ]) {
    it(`allows public ${ip}`, () => {
      expect(refusedAddress(ip)).toBeNull();
    });
  }

  it('the test override lets loopback through and nothing else', () => {
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) expect(refusedAddress(ip, { allowLoopback: true })).toBeNull();
    for (const ip of ['10.0.0.1', '169.254.169.254', 'fd00:ec2::254', '192.168.0.1', '::ffff:10.0.0.1', '0.0.0.0']) {
      expect(refusedAddress(ip, { allowLoopback: true })).not.toBeNull();
    }
  });

  it('parses IPv6 forms', () => {
    expect(parseV6('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(parseV6('::ffff:1.2.3.4').slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
    expect(parseV6('fe80::1%eth0').slice(0, 2)).toEqual([0xfe, 0x80]);
    expect(parseV6('1:2:3:4:5:6:7:8')).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
  });
});

describe('URL and host vetting (no connection)', () => {
  it('accepts only http(s) URLs without credentials', () => {
    for (const u of [
      'file:///etc/passwd',
      'ftp://example.org/a.png',
      'gopher://x/',
      'javascript:alert(1)',
      'data:image/png;base64,AA',
      'not a url',
    ]) {
      expect(() => checkUrl(u), u).toThrow();
    }
    expect(() => checkUrl('http://user:pw@example.org/a.png')).toThrow(/user name/);
    expect(checkUrl('https://example.org/a.png').hostname).toBe('example.org');
  });

  it('refuses literal and resolved private hosts before connecting', async () => {
    const saved = process.env.ADMIT_ALLOW_PRIVATE_FETCH;
    delete process.env.ADMIT_ALLOW_PRIVATE_FETCH;
    try {
      await expect(vetHost('169.254.169.254')).rejects.toThrow(/link-local/);
      await expect(vetHost('[::ffff:127.0.0.1]')).rejects.toThrow(/loopback/);
      await expect(vetHost('[fd00:ec2::254]')).rejects.toThrow(/unique-local/);
      // a name that resolves to loopback and one that does not resolve read alike: the answer
      // never tells how a name resolved
      await expect(vetHost('localhost')).rejects.toThrow('the host "localhost" is not a public internet address');
      await expect(vetHost('no-such-host.invalid')).rejects.toThrow(
        'the host "no-such-host.invalid" is not a public internet address',
      );
      process.env.ADMIT_ALLOW_PRIVATE_FETCH = '1';
      await expect(vetHost('127.0.0.1')).resolves.toEqual({ address: '127.0.0.1', family: 4 });
      await expect(vetHost('10.0.0.1')).rejects.toThrow(/private/);
    } finally {
      if (saved === undefined) delete process.env.ADMIT_ALLOW_PRIVATE_FETCH;
      else process.env.ADMIT_ALLOW_PRIVATE_FETCH = saved;
    }
  });
});

describe('sniffImageType', () => {
  it('knows png, jpeg, gif, webp by their magic bytes and nothing else', () => {
    expect(sniffImageType(Buffer.from('89504e470d0a1a0a0000', 'hex'))).toBe('image/png');
    expect(sniffImageType(Buffer.from('ffd8ffe000', 'hex'))).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('GIF89a....'))).toBe('image/gif');
    expect(sniffImageType(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'))).toBeNull();
    expect(sniffImageType(Buffer.from('<html>'))).toBeNull();
    expect(sniffImageType(Buffer.alloc(0))).toBeNull();
  });
});
