import { configDefaults, defineConfig } from 'vitest/config';

/** Pure unit files: no origin, no server, nothing global changed for good; they share workers (no isolation). */
const UNIT = ['test/unit/**/*.test.ts'];

/** The black-box suites of the query endpoints, run a second time with the edge Worker in front (test/harness/origin.ts). */
const THROUGH_EDGE = ['test/query/**/*.test.ts', 'test/q/**/*.test.ts', 'test/discovery/catalog.test.ts', 'test/discovery/open-server.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: more workers only queue on the databases and slow each other.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT, pool: 'threads', isolate: false } },
      { extends: true, test: { name: 'origin', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...UNIT] } },
      { extends: true, test: { name: 'through-edge', include: THROUGH_EDGE, env: { SLUICE_TEST_THROUGH_EDGE: '1' } } },
    ],
  },
});
