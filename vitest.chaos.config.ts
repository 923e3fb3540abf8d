import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 5 * 60_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test' },
  },
});
