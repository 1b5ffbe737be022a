import type { Vitest } from 'vitest/node';

/**
 * Whether this run ran the whole suite: no test-name, project or shard
 * filter, and every test file of every project collected. `npm test` and
 * `bash .ci/run` are full runs; `npx vitest run test/some/file.test.ts`,
 * `-t name` or `--project origin` are not. Read at the end of the run, in
 * the global teardown (test/global-setup.ts).
 */
export async function isFullRun(vitest: Vitest): Promise<boolean> {
  const { testNamePattern, project, shard } = vitest.config;
  if (testNamePattern || project.length > 0 || shard) return false;
  const ran = new Set(vitest.state.getTestModules().map((module) => `${module.project.name}\0${module.moduleId}`));
  for (const each of vitest.projects) {
    const { testFiles } = await each.globTestFiles();
    if (testFiles.some((file) => !ran.has(`${each.name}\0${file}`))) return false;
  }
  return true;
}
