import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';

/**
 * docs/getting-started.md, run as a reader would: every block marked
 * `<!-- example -->` runs in bash, in order, against one fresh origin, each
 * seeing the variables the ones before exported; the block marked
 * `<!-- expect: json|text -->` after it is the answer it must give. In JSON,
 * "..." stands for any value and objects may hold more fields than shown;
 * in text, every line shown must be among the lines printed.
 */

const run = promisify(execFile);
const GUIDE = new URL('../../docs/getting-started.md', import.meta.url);
const ADMIN_KEY = 'change-me-admin-key-0001';

interface Example {
  code: string;
  label: string | null;
  expect: { kind: 'json' | 'text'; body: string } | null;
}

/** The marked examples of a page, in order. */
function examples(page: string): Example[] {
  const found: Example[] = [];
  const lines = page.split('\n');
  const fenceAfter = (i: number): { body: string; end: number } => {
    let start = i + 1;
    while (lines[start] !== undefined && !lines[start].startsWith('```')) start++;
    let end = start + 1;
    while (lines[end] !== undefined && lines[end] !== '```') end++;
    return { body: lines.slice(start + 1, end).join('\n'), end };
  };
  for (let i = 0; i < lines.length; i++) {
    const example = /^<!-- example(?:: ([\w-]+))? -->$/.exec(lines[i]);
    if (example) {
      const { body, end } = fenceAfter(i);
      found.push({ code: body, label: example[1] ?? null, expect: null });
      i = end;
      continue;
    }
    const expected = /^<!-- expect: (json|text) -->$/.exec(lines[i]);
    if (expected) {
      const { body, end } = fenceAfter(i);
      found[found.length - 1].expect = { kind: expected[1] as 'json' | 'text', body };
      i = end;
    }
  }
  return found;
}

/** Whether `actual` matches `shown`: "..." matches anything, objects may hold more fields. */
function matches(shown: unknown, actual: unknown): boolean {
  if (shown === '...') return true;
  if (Array.isArray(shown)) return Array.isArray(actual) && actual.length === shown.length && shown.every((item, i) => matches(item, actual[i]));
  if (shown !== null && typeof shown === 'object') {
    return actual !== null && typeof actual === 'object' && Object.entries(shown).every(([key, value]) => matches(value, (actual as Record<string, unknown>)[key]));
  }
  return shown === actual;
}

function answers(example: Example, stdout: string): boolean {
  if (!example.expect) return true;
  if (example.expect.kind === 'text') {
    const printed = stdout.split('\n').map((line) => line.trim());
    return example.expect.body.split('\n').every((line) => printed.includes(line.trim()));
  }
  try {
    return matches(JSON.parse(example.expect.body), JSON.parse(stdout));
  } catch {
    return false;
  }
}

let origin: Origin | undefined;
let dir: string | undefined;

afterAll(async () => {
  await origin?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('docs/getting-started.md', () => {
  it('runs every example in order and gets the answers it shows', async () => {
    const steps = examples(await readFile(GUIDE, 'utf8'));
    expect(steps.length).toBeGreaterThanOrEqual(10);
    expect(steps.filter((step) => step.label === 'first-answer')).toHaveLength(1);

    const started = performance.now();
    origin = await startOrigin({ edge: false, env: { SLUICE_API_KEY: ADMIN_KEY } });
    dir = await mkdtemp(join(tmpdir(), 'sluice-guide-'));
    const state = join(dir, 'state.sh');
    await writeFile(state, `export SLUICE=${origin.url} ADMIN_KEY=${ADMIN_KEY}\n`);

    for (const [i, step] of steps.entries()) {
      let stdout = '';
      // Run history is written in batches: a step marked retry may take a few tries.
      for (let attempt = 0; attempt < (step.label === 'retry' ? 40 : 1); attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250));
        const script = `set -euo pipefail\nsource ${state}\n${step.code}\nexport -p > ${state}\n`;
        ({ stdout } = await run('bash', ['-c', script], { env: { PATH: process.env.PATH, HOME: process.env.HOME } }));
        if (answers(step, stdout)) break;
      }
      expect(stdout, `example ${i + 1}:\n${step.code}\nanswered:\n${stdout}\nexpected:\n${step.expect?.body}`).toSatisfy((out: string) => answers(step, out));
      if (step.label === 'first-answer') {
        console.log(`getting-started: origin start to a keyed /q answer, following the guide: ${((performance.now() - started) / 1000).toFixed(1)} s`);
      }
    }
  });
});
