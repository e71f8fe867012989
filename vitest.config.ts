import { defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';

export default defineConfig({
  plugins: [vue()],
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Real databases and servers: give them time, and keep the two cores for the tests themselves.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/support/globalSetup.ts'],
  },
});
