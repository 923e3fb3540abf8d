import { describe, expect, it } from 'vitest';
import { Batcher } from './batch.ts';

/** A batcher over a fake statement that answers when told to; the statements it was asked for. */
function probe(concurrency = 1, maxBatch = 256) {
  const statements: Array<{ keys: number[]; answer: (fail?: Error) => void }> = [];
  const batcher = new Batcher<number, string>(
    (keys) =>
      new Promise((resolve, reject) => {
        statements.push({ keys, answer: (fail) => (fail ? reject(fail) : resolve(keys.map((k) => `v${k}`))) });
      }),
    concurrency,
    maxBatch,
  );
  const tick = () => new Promise((r) => setImmediate(r));
  return { batcher, statements, tick };
}

describe('Batcher', () => {
  it('sends a lone load at once, and the loads asked for while it runs together in one statement', async () => {
    const { batcher, statements, tick } = probe();
    const first = batcher.load(1);
    await tick();
    expect(statements.map((s) => s.keys)).toEqual([[1]]);
    const later = [batcher.load(2), batcher.load(3), batcher.load(2)];
    await tick();
    expect(statements).toHaveLength(1);
    statements[0]!.answer();
    expect(await first).toBe('v1');
    await tick();
    expect(statements.map((s) => s.keys)).toEqual([[1], [2, 3, 2]]);
    statements[1]!.answer();
    expect(await Promise.all(later)).toEqual(['v2', 'v3', 'v2']);
  });

  it('runs up to its concurrency at once and splits batches at their bound', async () => {
    const { batcher, statements, tick } = probe(2, 2);
    const loads = [1, 2, 3, 4, 5].map((k) => batcher.load(k));
    await tick();
    expect(statements.map((s) => s.keys)).toEqual([[1], [2]]);
    statements[1]!.answer();
    await tick();
    expect(statements.map((s) => s.keys)).toEqual([[1], [2], [3, 4]]);
    statements[0]!.answer();
    await tick();
    expect(statements.map((s) => s.keys)).toEqual([[1], [2], [3, 4], [5]]);
    statements[2]!.answer();
    statements[3]!.answer();
    expect(await Promise.all(loads)).toEqual(['v1', 'v2', 'v3', 'v4', 'v5']);
  });

  it('fails every load of a failed statement, and goes on with the next', async () => {
    const { batcher, statements, tick } = probe();
    const first = batcher.load(1);
    const [a, b] = [batcher.load(2), batcher.load(3)];
    await tick();
    statements[0]!.answer();
    await tick();
    statements[1]!.answer(new Error('connection lost'));
    await expect(a).rejects.toThrow('connection lost');
    await expect(b).rejects.toThrow('connection lost');
    expect(await first).toBe('v1');
    const after = batcher.load(4);
    await tick();
    statements[2]!.answer();
    expect(await after).toBe('v4');
  });

  it("refuses an answer that does not match its keys, rather than giving a key another key's value", async () => {
    const batcher = new Batcher<number, number>(async (keys) => keys.slice(1));
    await expect(batcher.load(1)).rejects.toThrow('1 keys got 0 values');
  });
});
