import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { seal, unseal } from './sealed-box.ts';

/** Sealed secrets open only with the same key and purpose, and never show their plain text. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('sealed box', () => {
  it('opens what it sealed, for the same purpose only', async () => {
    const plain = '-----BEGIN PRIVATE KEY-----\nsecret\n-----END PRIVATE KEY-----';
    const box = await seal(t.ctx, 'wallet:apple:1', plain);
    expect(box).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(box).not.toContain('secret');
    expect(await seal(t.ctx, 'wallet:apple:1', plain)).not.toBe(box); // a fresh IV each time
    expect(await unseal(t.ctx, 'wallet:apple:1', box)).toBe(plain);
    expect(await unseal(t.ctx, 'wallet:apple:2', box)).toBeNull();
    const parts = box.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0]! ^= 1;
    expect(await unseal(t.ctx, 'wallet:apple:1', [...parts.slice(0, 3), flipped.toString('base64url')].join('.'))).toBeNull();
    expect(await unseal(t.ctx, 'wallet:apple:1', 'garbage')).toBeNull();
  });

  it('uses ADMIT_SECRETS_KEY when set: a box from the database key does not open with it', async () => {
    const box = await seal(t.ctx, 'p', 'x');
    const withKey = { ...t.ctx, config: { ...t.ctx.config, secretsKey: 'an operator key' } };
    expect(await unseal(withKey, 'p', box)).toBeNull();
    expect(await unseal(withKey, 'p', await seal(withKey, 'p', 'x'))).toBe('x');
  });
});
