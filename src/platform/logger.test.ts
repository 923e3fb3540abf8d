import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createLogger, requestLogger } from './logger.ts';

function sinkLogger(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      cb();
    },
  });
  return { log: createLogger(level, sink), lines };
}

type Emitting = Record<'info' | 'warn' | 'error' | 'debug', (...a: unknown[]) => void> & { level: string };

describe("a request's logger", () => {
  it('is made only when something at or above the level is logged, and then carries the bindings', () => {
    const { log, lines } = sinkLogger('warn');
    const child = vi.spyOn(log, 'child');
    const r = requestLogger(log, { reqId: 'req-1' }, {}) as Emitting;
    r.info('not written');
    r.debug({ a: 1 }, 'not written either');
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    expect(r.level).toBe('warn');
    r.error({ headers: { authorization: 'Bearer adm_secret' } }, 'written');
    expect(child).toHaveBeenCalledTimes(1);
    r.warn('also written');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => [l.reqId, l.msg])).toEqual([
      ['req-1', 'written'],
      ['req-1', 'also written'],
    ]);
    // the server logger's redaction still applies to what a request logs
    expect(JSON.stringify(lines[0])).not.toContain('adm_secret');
  });

  it('gives a route with a level of its own its child at once', () => {
    const { log, lines } = sinkLogger('warn');
    const r = requestLogger(log, { reqId: 'req-2' }, { level: 'debug' }) as Emitting;
    r.debug('written at the route level');
    expect(lines.map((l) => l.msg)).toEqual(['written at the route level']);
  });
});
