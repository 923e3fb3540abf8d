import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/fuzz/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 20 * 60_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test' },
  },
});
