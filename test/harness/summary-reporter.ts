import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { RunRecord, TestRecord } from './run-summary.ts';

/**
 * A vitest reporter that writes, at the end of the run, every test with its
 * project, file, state and whether a `.each` table made it (run-summary.ts
 * counts them) to the file SLUICE_TEST_SUMMARY names. `.ci/run` adds it:
 * `--reporter=./test/harness/summary-reporter.ts`.
 */

const root = new URL('../..', import.meta.url).pathname;

/** Whether a suite around `test`, or its file, failed (a `beforeAll` that threw skips the tests under it). */
function suiteFailed(test: TestCase): boolean {
  for (let parent = test.parent; ; parent = parent.parent) {
    if (parent.type === 'module') return parent.state() === 'failed' && parent.errors().length > 0;
    if (parent.state() === 'failed' && parent.errors().length > 0) return true;
  }
}

function testName(test: TestCase): string {
  const names = [test.name];
  for (let parent = test.parent; parent.type === 'suite'; parent = parent.parent) names.unshift(parent.name);
  return names.join(' > ');
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const out = process.env.SLUICE_TEST_SUMMARY;
    if (!out) return;
    const record: RunRecord = { modules: [], tests: [], unhandledErrors: unhandledErrors.length };
    for (const module of modules) {
      const file = relative(root, module.moduleId).split('\\').join('/');
      const project = module.project.name;
      record.modules.push({ project, file, failed: module.state() === 'failed' });
      for (const test of module.children.allTests()) {
        const entry: TestRecord = { project, file, name: testName(test), state: test.result().state, each: test.options.each === true, suiteFailed: false };
        if (entry.state === 'skipped') entry.suiteFailed = suiteFailed(test);
        record.tests.push(entry);
      }
    }
    writeFileSync(out, JSON.stringify(record));
  }
}
