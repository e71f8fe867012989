import { configDefaults, defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';

/**
 * Two suites. `main` (`npm test`) needs nothing from apt. `clickhouse` (`npm run test:clickhouse`)
 * holds the tests that start their own ClickHouse servers on loopback ports, which need Debian 12's
 * clickhouse-server and openssl (.ci/run installs them); their files end in `.clickhouse.test.ts`.
 */
const CLICKHOUSE_TESTS = 'test/**/*.clickhouse.test.ts';

export default defineConfig({
  plugins: [vue()],
  test: {
    // Real databases and servers: give them time, and keep the two cores for the tests themselves.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/support/globalSetup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'main', include: ['test/**/*.test.ts', 'src/**/*.test.ts'], exclude: [...configDefaults.exclude, CLICKHOUSE_TESTS] },
      },
      // One file at a time: each starts its own servers (the replicated cluster four and a ZooKeeper),
      // and beside another file's servers and loads on two cores, a cluster's first load once waited
      // past its five minutes (a replica's quorum or an ON CLUSTER statement starved of CPU).
      { extends: true, test: { name: 'clickhouse', include: [CLICKHOUSE_TESTS], fileParallelism: false } },
    ],
  },
});
