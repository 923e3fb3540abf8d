import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, seedAccount } from '../../../test/factories.ts';
import { isReservedAccountSlug, RESERVED_ACCOUNT_SLUGS } from './reserved-slugs.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('reserved account slugs', () => {
  it('covers the service paths', () => {
    for (const s of ['api', 'docs', '_mail', '_img', 'o', 'pay', 'e', 't', 'healthz', 'readyz', 'static', 'assets', 'admin']) {
      expect(RESERVED_ACCOUNT_SLUGS, s).toContain(s);
    }
    expect(isReservedAccountSlug('API')).toBe(true);
    expect(isReservedAccountSlug('apiary')).toBe(false);
  });

  it('the importer refuses them and writes nothing', async () => {
    for (const slug of ['api', 'pay', 'docs']) {
      await expect(seedAccount(t.ctx, makeAccountFile({ slug }))).rejects.toThrow(`$.account.slug: "${slug}" is reserved`);
      const row = await t.ctx.db.selectFrom('accounts').select('id').where('slug', '=', slug).executeTakeFirst();
      expect(row).toBeUndefined();
    }
    await expect(seedAccount(t.ctx, makeAccountFile({ slug: 'apiary' }))).resolves.toBeTruthy();
  });
});
