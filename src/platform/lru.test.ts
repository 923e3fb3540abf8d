import { describe, expect, it } from 'vitest';
import { approximateBytes, LruCache } from './lru.ts';

describe('LruCache', () => {
  it('drops the least recently used entries once the bytes pass the budget', () => {
    const lru = new LruCache<string, string>(100);
    lru.set('a', 'A', 40);
    lru.set('b', 'B', 40);
    expect(lru.get('a')).toBe('A'); // a is now the most recently used
    lru.set('c', 'C', 40);
    expect([lru.has('a'), lru.has('b'), lru.has('c')]).toEqual([true, false, true]);
    expect(lru.bytes).toBe(80);
    // peek reads without moving: a stays the oldest
    expect(lru.peek('a')).toBe('A');
    lru.set('d', 'D', 30);
    expect([lru.has('a'), lru.has('c'), lru.has('d')]).toEqual([false, true, true]);
    expect(lru.size).toBe(2);
    expect(lru.bytes).toBe(70);
  });

  it('replaces a key, keeps nothing bigger than the budget, and never passes it', () => {
    const lru = new LruCache<number, string>(1_000);
    for (let i = 0; i < 10_000; i++) {
      lru.set(i % 700, `v${i}`, 1 + (i % 37));
      expect(lru.bytes).toBeLessThanOrEqual(1_000);
    }
    lru.set(1, 'x', 10);
    lru.set(1, 'y', 20);
    expect(lru.get(1)).toBe('y');
    lru.set(1, 'huge', 1_001);
    expect(lru.has(1)).toBe(false);
    let sum = 0;
    for (let k = 0; k < 700; k++) if (lru.has(k)) sum++;
    expect(sum).toBe(lru.size);
  });

  it('sizes an entry later, evicting others but not the entry itself', () => {
    const lru = new LruCache<string, number>(100);
    lru.set('old', 1, 50);
    lru.set('new', 2, 1);
    lru.resize('new', 90);
    expect([lru.has('old'), lru.has('new')]).toEqual([false, true]);
    expect(lru.bytes).toBe(90);
    lru.resize('new', 500);
    expect(lru.has('new')).toBe(false);
    expect(lru.bytes).toBe(0);
    lru.resize('gone', 5); // unknown keys are ignored
    expect(lru.size).toBe(0);
  });

  it('forgets everything on clear and one key on delete', () => {
    const lru = new LruCache<string, number>(100);
    lru.set('a', 1, 10);
    lru.set('b', 2, 10);
    expect(lru.delete('a')).toBe(true);
    expect(lru.delete('a')).toBe(false);
    expect(lru.bytes).toBe(10);
    lru.clear();
    expect([lru.size, lru.bytes]).toEqual([0, 0]);
  });
});

describe('approximateBytes', () => {
  it('grows with what a value holds', () => {
    const row = { id: 1, name: 'General admission', price_cents: 2500, prices: { gbp: 2100 }, on_sale: true };
    const one = approximateBytes(row);
    expect(one).toBeGreaterThan(100);
    expect(one).toBeLessThan(1_000);
    const many = approximateBytes(Array.from({ length: 100 }, (_, i) => ({ ...row, id: i, prices: { gbp: i } })));
    expect(many).toBeGreaterThan(90 * one);
    expect(many).toBeLessThan(110 * one);
  });

  it('counts buffers by their length, text by its characters, and a shared object once', () => {
    expect(approximateBytes(Buffer.alloc(8_000))).toBeGreaterThanOrEqual(8_000);
    expect(approximateBytes(Buffer.alloc(8_000))).toBeLessThan(8_200);
    expect(approximateBytes('x'.repeat(10_000))).toBeGreaterThanOrEqual(10_000);
    expect(approximateBytes('€'.repeat(10_000))).toBeGreaterThanOrEqual(20_000);
    const shared = { text: 'y'.repeat(10_000) };
    const twice = approximateBytes([shared, shared]);
    expect(twice).toBeLessThan(approximateBytes(shared) + 100);
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = loop;
    expect(approximateBytes(loop)).toBeLessThan(200);
    expect(approximateBytes(new Map([['k', 'v'.repeat(1_000)]]))).toBeGreaterThan(1_000);
    expect(approximateBytes(null) + approximateBytes(undefined) + approximateBytes(true)).toBe(0);
  });
});
