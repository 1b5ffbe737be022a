import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type AllowedSkip, type RunRecord, type TestRecord, summarize, summaryLines } from '../harness/run-summary.ts';

const test = (fields: Partial<TestRecord>): TestRecord => ({
  project: 'origin',
  file: 'test/a.test.ts',
  name: 'a > works',
  state: 'passed',
  each: false,
  suiteFailed: false,
  ...fields,
});

/** The record of a run of `tests`; `failedFiles` (of project origin) failed, with or without a failed test. */
const run = (tests: TestRecord[], failedFiles: string[] = [], unhandledErrors = 0): RunRecord => ({
  modules: [...new Set([...tests.map((t) => `${t.project}\0${t.file}`), ...failedFiles.map((f) => `origin\0${f}`)])].map((key) => {
    const [project, file] = key.split('\0') as [string, string];
    return { project, file, failed: failedFiles.includes(file) || tests.some((t) => t.file === file && t.project === project && t.state === 'failed') };
  }),
  tests,
  unhandledErrors,
});

describe('the closing counts', () => {
  it('count per project, name the table cases, and end with the plain line', () => {
    const summary = summarize(
      run([
        test({}),
        test({ name: 'a > case 1', each: true }),
        test({ name: 'a > case 2', each: true, state: 'failed' }),
        test({ project: 'through-edge' }),
      ]),
      [],
    );
    expect(summaryLines(summary, true)).toEqual([
      'origin: 2 passed, 1 failed (1 files, 2 of the tests from test.each tables)',
      'through-edge: 1 passed, 0 failed (1 files, 0 of the tests from test.each tables, the query suites run again behind the edge Worker)',
      '3 passed, 1 failed',
    ]);
  });

  it('count a skip as a failure unless test/allowed-skips.json lists it, by test or by file', () => {
    const skipped = [
      test({ name: 'a > listed', state: 'skipped' }),
      test({ file: 'test/b.test.ts', name: 'b > any', state: 'skipped' }),
      test({ file: 'test/c.test.ts', name: 'c > unlisted', state: 'skipped' }),
    ];
    const summary = summarize(run(skipped), [
      { file: 'test/a.test.ts', test: 'a > listed', reason: 'r' },
      { file: 'test/b.test.ts', reason: 'r' },
      { file: 'test/c.test.ts', test: 'c > another', reason: 'r' },
    ]);
    expect(summary.unlistedSkips.map((t) => t.name)).toEqual(['c > unlisted']);
    expect(summaryLines(summary, false)).toEqual([
      'skipped, and not in test/allowed-skips.json (counted as failed): [origin] test/c.test.ts > c > unlisted',
      'origin: 0 passed, 1 failed, 2 skipped as listed in test/allowed-skips.json (3 files, 0 of the tests from test.each tables)',
      '0 passed, 1 failed',
    ]);
  });

  it('count the tests a failed setup skipped as failed, even when listed, and a file failing outside its tests once', () => {
    const tests = [test({ name: 'a > needs a server', state: 'skipped', suiteFailed: true }), test({ file: 'test/b.test.ts' })];
    const summary = summarize(run(tests, ['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts']), [{ file: 'test/a.test.ts', reason: 'r' }]);
    expect(summary.unlistedSkips).toEqual([]);
    expect(summary.failedOutsideTests.map((m) => m.file)).toEqual(['test/b.test.ts', 'test/c.test.ts']);
    expect(summary).toMatchObject({ passed: 1, failed: 3 });
  });

  it('count unhandled errors, failed checks outside vitest, and a run that failed only after its tests', () => {
    expect(summaryLines(summarize(run([test({})], [], 2), []), true).at(-1)).toBe('1 passed, 2 failed');
    expect(summaryLines(summarize(run([test({})]), []), false, ['npm run typecheck']).slice(-3)).toEqual([
      'npm run typecheck failed (counted as one failure)',
      'origin: 1 passed, 0 failed (1 files, 0 of the tests from test.each tables)',
      '1 passed, 1 failed',
    ]);
    const afterTests = summaryLines(summarize(run([test({})]), []), true);
    expect(afterTests[0]).toMatch(/^the run failed after its tests/);
    expect(afterTests.at(-1)).toBe('1 passed, 1 failed');
    expect(summaryLines(summarize(run([test({})]), []), false).at(-1)).toBe('1 passed, 0 failed');
  });
});

describe('test/allowed-skips.json', () => {
  it('names existing test files, each skip with its reason', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const allowed = JSON.parse(readFileSync(`${root}test/allowed-skips.json`, 'utf8')) as AllowedSkip[];
    for (const entry of allowed) {
      expect(Object.keys(entry).sort()).toEqual(entry.test === undefined ? ['file', 'reason'] : ['file', 'reason', 'test']);
      expect(existsSync(`${root}${entry.file}`), entry.file).toBe(true);
      expect(entry.reason.length, entry.file).toBeGreaterThan(20);
    }
  });
});
