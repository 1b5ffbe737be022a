import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examples } from './examples.ts';
import { ACCESS_PAGES, ROOT, runPage } from './run-page.ts';

/** The access-control reference pages: every example runs and gives the answer shown (run-page.ts). */

describe('documentation examples: access control', () => {
  for (const path of ACCESS_PAGES) {
    it(`${path} runs every example in order and gets the answers it shows`, () => {
      const steps = examples(readFileSync(join(ROOT, path), 'utf8'));
      expect(steps.length).toBeGreaterThan(0);
      return runPage(path, steps);
    }, 180_000);
  }
});
