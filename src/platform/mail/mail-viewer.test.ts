import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';

// /_mail shows reset and invitation links: whoever reads it can take over accounts.
const apps: TestApp[] = [];
afterAll(async () => {
  for (const t of apps) await t.close();
});

describe('/_mail', () => {
  it('is served where only the developer reaches it (devMail: loopback, not production, no SMTP)', async () => {
    const t = await createTestApp({ config: { devMail: true } });
    apps.push(t);
    const res = await t.app.inject({ method: 'GET', url: '/_mail' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('does not exist otherwise: a server on 0.0.0.0 without SMTP hands out no links', async () => {
    const t = await createTestApp({ config: { devMail: false, host: '0.0.0.0' } });
    apps.push(t);
    for (const url of ['/_mail', '/_mail?format=json']) expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
  });
});
