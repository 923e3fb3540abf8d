import { describe, expect, it } from 'vitest';
import { indexedSecret, randomRef, randomSecret } from './secrets.ts';

describe('random secrets from the pool', () => {
  it('never hands out the same bytes twice, across many refills of the pool', () => {
    // 24-byte secrets do not divide 4096: the refills fall in the middle of the sequence
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(randomSecret());
    expect(seen.size).toBe(20_000);
    // and no two secrets share bytes (a slice handed out again, or overlapping the one before)
    let before = Buffer.from(randomSecret(), 'base64url');
    for (let i = 0; i < 1_000; i++) {
      const next = Buffer.from(randomSecret(), 'base64url');
      for (let k = 4; k <= 24; k += 4) expect(next.subarray(0, 4).equals(before.subarray(k - 4, k))).toBe(false);
      before = next;
    }
  });

  it('has the length asked for, also beyond the pool and right at its size', () => {
    expect(Buffer.from(randomSecret(), 'base64url')).toHaveLength(24);
    expect(Buffer.from(randomSecret(4096), 'base64url')).toHaveLength(4096);
    expect(Buffer.from(randomSecret(10_000), 'base64url')).toHaveLength(10_000);
    expect(randomSecret()).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('spreads its bytes over every value (not a constant or a counter)', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 2_000; i++) for (const byte of Buffer.from(randomSecret(32), 'base64url')) counts[byte]!++;
    // 64,000 bytes: 250 expected per value; a byte value missing or ten times too common is not random
    expect(Math.min(...counts)).toBeGreaterThan(150);
    expect(Math.max(...counts)).toBeLessThan(400);
  });

  it('makes references of the documented shape', () => {
    expect(randomRef()).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
  });

  describe('secrets kept under an index', () => {
    it('have the shape of any secret, and 144 random bits after the time', () => {
      const seen = new Set<string>();
      const tails = new Set<string>();
      const at = Date.UTC(2026, 11, 7, 12);
      for (let i = 0; i < 20_000; i++) {
        const s = indexedSecret(at);
        expect(s).toMatch(/^[A-Za-z0-9_-]{32}$/);
        seen.add(s);
        tails.add(s.slice(8));
      }
      // one millisecond for all of them: the tail alone tells them apart
      expect(seen.size).toBe(20_000);
      expect(tails.size).toBe(20_000);
      const counts = new Array<number>(256).fill(0);
      for (let i = 0; i < 3_000; i++) for (const byte of Buffer.from(indexedSecret(at), 'base64url').subarray(6)) counts[byte]!++;
      // 54,000 bytes: about 211 per value
      expect(Math.min(...counts)).toBeGreaterThan(120);
      expect(Math.max(...counts)).toBeLessThan(330);
    });

    it('start with the time, so secrets of the same seconds share their first characters', () => {
      const at = Date.UTC(2026, 11, 7, 12);
      const a = indexedSecret(at);
      const b = indexedSecret(at + 1_000);
      expect(Buffer.from(a, 'base64url').readUIntBE(0, 6)).toBe(at);
      expect(Buffer.from(b, 'base64url').readUIntBE(0, 6)).toBe(at + 1_000);
      // 4,096 ms share the first 6 characters (36 bits of the time)
      expect(a.slice(0, 6)).toBe(indexedSecret(at + 5).slice(0, 6));
      expect(a.slice(0, 8)).not.toBe(b.slice(0, 8));
      // a clock before 1970 or past 2^48 ms does not throw
      expect(indexedSecret(-5)).toMatch(/^AAAAAAAA/);
      expect(indexedSecret(2 ** 50)).toMatch(/^________/);
    });
  });
});
