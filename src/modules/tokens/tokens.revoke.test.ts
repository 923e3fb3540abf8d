import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, seedAccount } from '../../../test/factories.ts';

// A token takes away only what it could have given: the rule for minting, applied to revoking.
let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;
const json = { 'content-type': 'application/json' };
const ALL = ['events.view', 'orders.view', 'orders.manage', 'refund', 'events.manage', 'tokens.manage', 'webhooks.manage'];

beforeAll(async () => {
  t = await createTestApp();
  acct = await seedAccount(
    t.ctx,
    makeAccountFile({ slug: 'rev', events: [makeEvent({ slug: 'rev-a' }), makeEvent({ slug: 'rev-b' })], limitedTo: ['rev-a'] }),
  );
});
afterAll(() => t.close());

const mint = async (body: Record<string, unknown>) => {
  const res = await t.call(acct.tokens.all, {
    method: 'POST',
    url: '/api/v1/tokens',
    headers: json,
    payload: JSON.stringify(body),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; secret: string };
};
const revoke = (token: string, id: number) => t.call(token, { method: 'DELETE', url: `/api/v1/tokens/${id}` });
const works = async (secret: string) => (await t.call(secret, { method: 'GET', url: '/api/v1/events' })).statusCode === 200;

describe('revoking tokens', () => {
  it('a token with fewer capabilities cannot revoke one with more (403), and the victim keeps working', async () => {
    const weak = await mint({ name: 'weak', capabilities: ['events.view', 'orders.view', 'tokens.manage'] });
    const strong = await mint({ name: 'strong', capabilities: ALL, scopes: ['invitations.view'] });
    const res = await revoke(weak.secret, strong.id);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden');
    expect(await works(strong.secret)).toBe(true);
  });

  it('a token without a scope cannot revoke one that has it', async () => {
    const noScope = await mint({ name: 'no-scope', capabilities: ALL });
    const scoped = await mint({ name: 'scoped', capabilities: ['events.view'], scopes: ['invitations.view'] });
    expect((await revoke(noScope.secret, scoped.id)).statusCode).toBe(403);
    expect(await works(scoped.secret)).toBe(true);
  });

  it('an event-limited token cannot revoke an all-events token, nor one limited to another event', async () => {
    const allEvents = await mint({ name: 'every event', capabilities: ['events.view'] });
    const otherEvent = await mint({ name: 'event b', capabilities: ['events.view'], events: ['rev-b'] });
    expect((await revoke(acct.tokens.limited, allEvents.id)).statusCode).toBe(403);
    expect((await revoke(acct.tokens.limited, otherEvent.id)).statusCode).toBe(403);
    expect(await works(allEvents.secret)).toBe(true);
    expect(await works(otherEvent.secret)).toBe(true);
  });

  it('revokes what it covers: fewer capabilities, its own events, itself', async () => {
    const sameEvent = await mint({ name: 'event a', capabilities: ['events.view'], events: ['rev-a'] });
    expect((await revoke(acct.tokens.limited, sameEvent.id)).statusCode).toBe(204);
    expect(await works(sameEvent.secret)).toBe(false);
    const weak = await mint({ name: 'weak2', capabilities: ['events.view', 'tokens.manage'] });
    const weaker = await mint({ name: 'weaker', capabilities: ['events.view'] });
    expect((await revoke(weak.secret, weaker.id)).statusCode).toBe(204);
    expect((await revoke(weak.secret, weak.id)).statusCode).toBe(204);
    expect(await works(weak.secret)).toBe(false);
  });

  it('an unknown id stays 404 (no hint of what another token holds)', async () => {
    expect((await revoke(acct.tokens.limited, 999_999)).statusCode).toBe(404);
  });

  it('an event-limited token lists only tokens limited to its own events', async () => {
    const listed = (await t.call(acct.tokens.limited, { method: 'GET', url: '/api/v1/tokens' })).json().tokens as Array<{
      events: string[] | null;
    }>;
    expect(listed.length).toBeGreaterThan(0);
    for (const tok of listed) expect(tok.events).toEqual(['rev-a']);
    const all = (await t.call(acct.tokens.all, { method: 'GET', url: '/api/v1/tokens' })).json().tokens as unknown[];
    expect(all.length).toBeGreaterThan(listed.length);
  });
});
