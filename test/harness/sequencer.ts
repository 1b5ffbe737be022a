import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * How long each file took in a full run (`project:path` -> seconds), for a
 * checkout that has no results of its own yet: a fresh clone, CI. Written by
 * `node test/harness/record-durations.mjs` after a full run; a stale or
 * missing entry only makes the order worse, never a result different.
 */
const RECORDED: Record<string, number> = JSON.parse(readFileSync(new URL('../durations.json', import.meta.url), 'utf8'));

/**
 * vitest's order (projects by name, isolated files first, then the longest
 * first by this checkout's own results), with the recorded durations where
 * the checkout has none: vitest would fall back to file size there, and a
 * short file that runs a minute (the documentation pages) would start last
 * and leave one worker alone at the end.
 */
export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = new Map<TestSpecification, number>();
    for (const spec of files) {
      const key = `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
      const own = this.ctx.cache.getFileTestResults(key)?.duration;
      seconds.set(spec, own === undefined ? (RECORDED[key] ?? 0) : own / 1000);
    }
    return [...files].sort((a, b) => {
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      if (a.project.config.isolate !== b.project.config.isolate) return a.project.config.isolate ? -1 : 1;
      return seconds.get(b)! - seconds.get(a)!;
    });
  }
}
