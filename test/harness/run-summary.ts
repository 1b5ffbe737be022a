/**
 * What a test run holds, counted honestly (docs/testing.md): per project
 * (`origin`, and `through-edge`, the query suites run again behind the
 * edge), how many tests came from `test.each` tables, and every test that
 * did not pass. A skipped test counts as a failure unless test/allowed-skips.json
 * lists it with its reason; a test skipped because its file's or suite's
 * setup failed counts as a failure; so does a file that failed outside any
 * test, and an unhandled error. summary-reporter.ts writes the record;
 * `.ci/summary.ts` prints these lines at the end of `bash .ci/run`.
 */

export type TestState = 'passed' | 'failed' | 'skipped' | 'pending';

export interface TestRecord {
  project: string;
  /** Relative to the repository, with `/`. */
  file: string;
  /** The describe titles and the test's, joined by ` > `. */
  name: string;
  state: TestState;
  /** Made by `test.each` / `describe.each`. */
  each: boolean;
  /** An enclosing suite or the file failed (a `beforeAll` threw): a skip here is a failure. */
  suiteFailed: boolean;
}

export interface ModuleRecord {
  project: string;
  file: string;
  /** The file failed: a test, a hook, or its import. */
  failed: boolean;
}

export interface RunRecord {
  modules: ModuleRecord[];
  tests: TestRecord[];
  unhandledErrors: number;
}

/** An entry of test/allowed-skips.json: a file (every test in it) or one test, and why it may be skipped. */
export interface AllowedSkip {
  file: string;
  test?: string;
  reason: string;
}

export interface ProjectCounts {
  name: string;
  files: number;
  passed: number;
  failed: number;
  /** Skips test/allowed-skips.json lists. */
  skipped: number;
  /** Of all its tests, those made by `.each` tables. */
  tableCases: number;
}

export interface Summary {
  projects: ProjectCounts[];
  /** Skipped with no entry in test/allowed-skips.json: each counts as failed. */
  unlistedSkips: TestRecord[];
  /** Files that failed with no failed test of their own (an import or a hook): each counts as one failure. */
  failedOutsideTests: ModuleRecord[];
  unhandledErrors: number;
  passed: number;
  failed: number;
}

const isAllowed = (test: TestRecord, allowed: AllowedSkip[]) =>
  allowed.some((entry) => entry.file === test.file && (entry.test === undefined || entry.test === test.name));

/** What a test counts as: a skip only when listed, and never when its setup failed. */
function counted(test: TestRecord, allowed: AllowedSkip[]): 'passed' | 'skipped' | 'failed' {
  if (test.state === 'passed') return 'passed';
  if (test.state === 'skipped' && !test.suiteFailed && isAllowed(test, allowed)) return 'skipped';
  return 'failed';
}

export function summarize(run: RunRecord, allowed: AllowedSkip[]): Summary {
  const byProject = new Map<string, ProjectCounts>();
  const project = (name: string) => {
    let counts = byProject.get(name);
    if (!counts) byProject.set(name, (counts = { name, files: 0, passed: 0, failed: 0, skipped: 0, tableCases: 0 }));
    return counts;
  };
  for (const module of run.modules) project(module.project).files++;
  const unlistedSkips: TestRecord[] = [];
  const filesWithFailures = new Set<string>();
  for (const test of run.tests) {
    const counts = project(test.project);
    if (test.each) counts.tableCases++;
    const as = counted(test, allowed);
    counts[as]++;
    if (as !== 'failed') continue;
    filesWithFailures.add(`${test.project}\0${test.file}`);
    if (test.state === 'skipped' && !test.suiteFailed) unlistedSkips.push(test);
  }
  const failedOutsideTests = run.modules.filter((m) => m.failed && !filesWithFailures.has(`${m.project}\0${m.file}`));
  const projects = [...byProject.values()];
  const passed = projects.reduce((sum, p) => sum + p.passed, 0);
  const failed = projects.reduce((sum, p) => sum + p.failed, 0) + failedOutsideTests.length + run.unhandledErrors;
  return { projects, unlistedSkips, failedOutsideTests, unhandledErrors: run.unhandledErrors, passed, failed };
}

const PROJECT_NOTES: Record<string, string> = {
  'through-edge': 'the query suites run again behind the edge Worker',
};

/**
 * The closing lines: why any test counted as failed without failing, one
 * line per project, and last the plain `N passed, N failed`. `vitestFailed`:
 * vitest exited non-zero (the whole-run secret scan in its teardown fails it
 * after the tests); `otherFailures`: checks outside vitest that failed
 * (`npm run typecheck`), by name.
 */
export function summaryLines(summary: Summary, vitestFailed: boolean, otherFailures: string[] = []): string[] {
  const lines: string[] = [];
  for (const test of summary.unlistedSkips) lines.push(`skipped, and not in test/allowed-skips.json (counted as failed): [${test.project}] ${test.file} > ${test.name}`);
  for (const module of summary.failedOutsideTests) lines.push(`failed outside its tests (an import or a hook; counted as one failure): [${module.project}] ${module.file}`);
  if (summary.unhandledErrors > 0) lines.push(`${summary.unhandledErrors} unhandled error(s), each counted as a failure`);
  let failed = summary.failed;
  for (const check of otherFailures) {
    lines.push(`${check} failed (counted as one failure)`);
    failed++;
  }
  if (vitestFailed && failed === 0) {
    lines.push('the run failed after its tests (see the secret scan above; counted as one failure)');
    failed = 1;
  }
  for (const p of summary.projects) {
    const note = PROJECT_NOTES[p.name] ? `, ${PROJECT_NOTES[p.name]}` : '';
    const skipped = p.skipped > 0 ? `, ${p.skipped} skipped as listed in test/allowed-skips.json` : '';
    lines.push(`${p.name}: ${p.passed} passed, ${p.failed} failed${skipped} (${p.files} files, ${p.tableCases} of the tests from test.each tables${note})`);
  }
  lines.push(`${summary.passed} passed, ${failed} failed`);
  return lines;
}
