import { describe, expect, it } from 'vitest';
import { TtlCache } from './cache.ts';

describe('TtlCache', () => {
  it('shares one load between concurrent misses and reuses it within the TTL', async () => {
    const cache = new TtlCache<number>(60_000);
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 5));
      return 42;
    };
    expect(await Promise.all([cache.get('k', load), cache.get('k', load), cache.get('k', load)])).toEqual([42, 42, 42]);
    expect(await cache.get('k', load)).toBe(42);
    expect(loads).toBe(1);
    cache.clear();
    await cache.get('k', load);
    expect(loads).toBe(2);
  });

  it('loads again once the TTL has passed, and every time with a TTL of 0', async () => {
    let loads = 0;
    const short = new TtlCache<number>(5);
    await short.get('k', async () => ++loads);
    await new Promise((r) => setTimeout(r, 15));
    await short.get('k', async () => ++loads);
    expect(loads).toBe(2);
    const off = new TtlCache<number>(0);
    await off.get('k', async () => ++loads);
    await off.get('k', async () => ++loads);
    expect(loads).toBe(4);
  });

  it('does not keep a failed load', async () => {
    const cache = new TtlCache<number>(60_000);
    await expect(cache.get('k', () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await cache.get('k', async () => 7)).toBe(7);
  });
});

describe('TtlCache bounded by bytes', () => {
  it('keeps the most recently used values within its budget, whatever the number of keys', async () => {
    const cache = new TtlCache<Buffer>(60_000, 100_000);
    for (let i = 0; i < 1_000; i++) await cache.get(`page ${i}`, async () => Buffer.alloc(8_000));
    const { entries, bytes } = cache.held;
    expect(bytes).toBeLessThanOrEqual(100_000);
    expect(entries).toBeGreaterThanOrEqual(10);
    expect(entries).toBeLessThanOrEqual(12);
    // the latest ones are there, the first ones are gone
    let loads = 0;
    await cache.get('page 999', async () => (loads++, Buffer.alloc(1)));
    await cache.get('page 0', async () => (loads++, Buffer.alloc(1)));
    expect(loads).toBe(1);
  });

  it('does not keep a value bigger than its whole budget', async () => {
    const cache = new TtlCache<string>(60_000, 1_000);
    let loads = 0;
    const big = async () => (loads++, 'z'.repeat(5_000));
    expect(await cache.get('k', big)).toHaveLength(5_000);
    await cache.get('k', big);
    expect(loads).toBe(2);
    expect(cache.held.entries).toBe(0);
  });
});
