import { configDefaults, defineConfig } from 'vitest/config';
import { DurationSequencer } from './test/harness/sequencer.ts';

/** Pure unit files: no origin, no server, nothing global changed for good; they share workers (no isolation). */
const UNIT = ['test/unit/**/*.test.ts'];

/**
 * Black-box files that need only origins any file may share: one per worker
 * and environment (harness/shared-origin.ts), so their project runs without isolation.
 */
const SHARED_ORIGIN = [
  'test/api/bad-input.test.ts',
  'test/api/connections.test.ts',
  'test/api/deep-bodies.test.ts',
  'test/api/queries-validate-flow.test.ts',
  'test/api/queries-versions.test.ts',
  'test/api/queries.test.ts',
  'test/api/request-body.test.ts',
  'test/cache/freshness.test.ts',
  'test/q/bad-values.test.ts',
  'test/q/run.test.ts',
  'test/q/versions-parameters.test.ts',
  'test/query/values.test.ts',
  'test/query/errors.test.ts',
  'test/query/markers.test.ts',
  'test/discovery/open-server.test.ts',
  'test/query/detail.test.ts',
  'test/query/guard.test.ts',
  'test/query/side-effects.test.ts',
  'test/query/paging.test.ts',
  'test/query/timeout.test.ts',
  'test/formats/common.test.ts',
  'test/formats/file-formats.test.ts',
  'test/formats/text-formats.test.ts',
  'test/streaming/mid-stream-failure.test.ts',
  'test/streaming/refusals.test.ts',
  'test/streaming/formats.test.ts',
  'test/mongo/streams.test.ts',
  'test/mongo/limits.test.ts',
];

/** The black-box suites of the query endpoints, run a second time with the edge Worker in front (test/harness/origin.ts). */
const THROUGH_EDGE = ['test/query/**/*.test.ts', 'test/q/**/*.test.ts', 'test/discovery/catalog.test.ts', 'test/discovery/open-server.test.ts'];
/** Files among them that start no origin (units on a store): an edge in front would change nothing. */
const NO_ORIGIN = ['test/q/recorder.test.ts'];

// Whether THROUGH_EDGE names a file: its globs are whole folders of test files, or single files.
const throughEdge = (file: string) => THROUGH_EDGE.some((glob) => (glob.endsWith('/**/*.test.ts') ? file.startsWith(glob.slice(0, -'**/*.test.ts'.length)) : file === glob));

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: more workers only queue on the databases and slow each other.
    maxWorkers: 2,
    // The longest files first, also in a checkout that has not run them yet (test/durations.json).
    sequence: { sequencer: DurationSequencer },
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT, pool: 'threads', isolate: false } },
      { extends: true, test: { name: 'origin', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...UNIT, ...SHARED_ORIGIN] } },
      { extends: true, test: { name: 'shared-origin', include: SHARED_ORIGIN, isolate: false } },
      { extends: true, test: { name: 'through-edge', include: THROUGH_EDGE, exclude: [...configDefaults.exclude, ...SHARED_ORIGIN, ...NO_ORIGIN], env: { SLUICE_TEST_THROUGH_EDGE: '1' } } },
      {
        extends: true,
        test: { name: 'through-edge-shared', include: SHARED_ORIGIN.filter(throughEdge), isolate: false, env: { SLUICE_TEST_THROUGH_EDGE: '1' } },
      },
    ],
  },
});
