import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/scale/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 180_000,
    env: { NODE_ENV: 'test' },
  },
});
