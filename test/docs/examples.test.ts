import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, examples, relativeLinks, unmarkedCalls } from './examples.ts';
import { ACCESS_PAGES, ROOT, pages, runPage } from './run-page.ts';

/**
 * The pages of README.md and docs/: every example they mark runs and gives
 * the answer shown (run-page.ts), the access-control reference pages' in
 * access-examples.test.ts; and every call of the origin is marked, every
 * relative link leads somewhere.
 */

const marked = pages().map((path) => ({ path, steps: examples(readFileSync(join(ROOT, path), 'utf8')) }));

describe('documentation examples', () => {
  it('every page that calls the origin marks its examples, and the guide its first keyed answer', () => {
    const unmarked = marked.flatMap(({ path }) => unmarkedCalls(readFileSync(join(ROOT, path), 'utf8')).map((line) => `${path}:${line}`));
    expect(unmarked, 'sh blocks that call the origin but are not marked as examples').toEqual([]);
    const guide = marked.find(({ path }) => path === 'docs/getting-started.md')!;
    expect(guide.steps.length).toBeGreaterThanOrEqual(10);
    expect(guide.steps.filter((step) => step.words.includes('first-answer'))).toHaveLength(1);
  });

  it('every relative link of a page reaches a file, and its anchor a heading there', () => {
    const broken = marked.flatMap(({ path }) =>
      relativeLinks(readFileSync(join(ROOT, path), 'utf8')).flatMap((link) => {
        const [file, anchor] = link.split('#');
        const target = file === '' ? join(ROOT, path) : join(ROOT, dirname(path), decodeURI(file));
        if (!existsSync(target)) return [`${path}: ${link} (no such file)`];
        if (anchor === undefined || statSync(target).isDirectory()) return [];
        return anchors(readFileSync(target, 'utf8')).has(anchor) ? [] : [`${path}: ${link} (no such heading)`];
      }),
    );
    expect(broken).toEqual([]);
  });

  for (const { path, steps } of marked.filter(({ path, steps }) => steps.length > 0 && !ACCESS_PAGES.has(path))) {
    it(`${path} runs every example in order and gets the answers it shows`, () => runPage(path, steps), 180_000);
  }
});
