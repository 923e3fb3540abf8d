import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from './platform/config.ts';
import { createRuntime, serve, type RunningServer } from './server.ts';
import { freePort } from '../test/net.ts';

/** The drain on SIGTERM that a rolling restart behind a balancer relies on. */
describe('stopping a serving instance', () => {
  let server: RunningServer | null = null;
  afterEach(async () => {
    await server?.stop({ drainMs: 0 });
    server = null;
  });

  it('drains first: not ready, still serving with Connection: close, then stops listening', async () => {
    const port = await freePort();
    const runtime = await createRuntime({
      config: { ...loadConfig({ NODE_ENV: 'test', PORT: String(port) }), drainMs: 400 },
      inMemory: true,
    });
    server = await serve(runtime);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    const stopped = server.stop();
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('connection')).toBe('close');
    // the health check of a balancer still gets an answer, and so does a request already routed here
    const live = await fetch(`${base}/healthz`);
    expect(live.status).toBe(200);
    expect(live.headers.get('connection')).toBe('close');

    await stopped;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});
