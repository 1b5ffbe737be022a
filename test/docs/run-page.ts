import { execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { type Origin, startOrigin, templateDir } from '../harness/origin.ts';
import { type Example, answers, assignedNames, originCommand, word } from './examples.ts';

/**
 * Runs the marked examples of a page of README.md and docs/ (the grammar is
 * in examples.ts) as a reader runs them: each page in order against an origin
 * of its own, started by the page's `origin` block with the variables that
 * block gives, on a fresh data directory (a fresh install: migrated store,
 * bundled examples). `sh` blocks run in bash from the repository's root, each
 * seeing the variables the ones before set; `http://127.0.0.1:8080`, the
 * address a reader's origin listens on, stands for the test's origin, whose
 * port and data directory are its own. The answer a block gives must be the
 * one the page shows after it. Blocks that start servers other than the
 * origin, install, or run this suite are instructions, not examples: they
 * stay unmarked, and the page says why where a reader might wonder.
 */

const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLEAN_ENV = { PATH: process.env.PATH, HOME: process.env.HOME };
/** Chosen by the test, never by a page: every origin gets a free port and a data directory of its own. */
const HARNESS_VARIABLES = new Set(['SLUICE_PORT', 'SLUICE_DATA_DIR']);
const DEFAULT_ADDRESS = 'http://127.0.0.1:8080';

/** Every page whose examples run, in order. */
export function pages(): string[] {
  const under = (folder: string) =>
    readdirSync(join(ROOT, folder))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `${folder}/${name}`);
  return ['README.md', ...under('docs'), ...under('docs/guides'), ...under('docs/reference')];
}

/** The variables an origin block's assignments set, evaluated by bash as a reader's shell would, with what the blocks before set. */
async function originEnv(assignments: string, state: string): Promise<Record<string, string>> {
  const names = assignedNames(assignments);
  if (names.length === 0) return {};
  const script = `set -euo pipefail\nsource ${state}\n${assignments} node -e 'process.stdout.write(JSON.stringify(process.env))'`;
  const { stdout } = await run('bash', ['-c', script], { env: CLEAN_ENV, cwd: ROOT });
  const all = JSON.parse(stdout) as Record<string, string>;
  return Object.fromEntries(names.filter((name) => !HARNESS_VARIABLES.has(name)).map((name) => [name, all[name]]));
}

/** The bash that runs one example: an `sql` block goes to `/execute_sql` as the page's admin key (when it has one). */
async function script(example: Example, dir: string, url: string): Promise<string> {
  if (example.lang === 'sh') return example.code.replaceAll(DEFAULT_ADDRESS, url);
  if (example.lang !== 'sql') throw new Error(`line ${example.line}: a marked \`${example.lang}\` block; only sh and sql run`);
  const connection = word(example, 'connection');
  if (!connection) throw new Error(`line ${example.line}: an sql example names no connection=<name>`);
  const file = join(dir, `statement-${example.line}.sql`);
  await writeFile(file, example.code);
  return `jq -n --rawfile sql ${file} --arg c ${connection} '{sql: $sql, connection_name: $c, page_size: 1000}' \\
  | curl -sf -X POST "$SLUICE/execute_sql" -H 'content-type: application/json' \${ADMIN_KEY:+-H "x-api-key: $ADMIN_KEY"} -d @-`;
}

interface Page {
  dir: string;
  dataDir: string;
  origin?: Origin;
}

async function startPageOrigin(page: Page, assignments: string, state: string): Promise<string> {
  await page.origin?.stop();
  const env = await originEnv(assignments, state);
  page.origin = await startOrigin({ edge: false, dataDir: page.dataDir, env });
  return page.origin.url;
}

/** Runs a page's examples in order and checks their answers; fails naming the example and its answer. */
export async function runPage(path: string, steps: Example[]): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-docs-'));
  const page: Page = { dir, dataDir: join(dir, 'data') };
  await cp(templateDir(), page.dataDir, { recursive: true });
  const state = join(dir, 'state.sh');
  await writeFile(state, '');
  const started = performance.now();
  let url: string | undefined;
  const bash = async (step: Example, code: string): Promise<{ stdout: string; stderr: string }> => {
    // Every variable a block sets is kept for the next (allexport), as a reader's shell keeps it.
    const body = `set -euo pipefail -a\nsource ${state}\n${await script({ ...step, code }, dir, url ?? DEFAULT_ADDRESS)}\nexport -p > ${state}\n`;
    try {
      return await run('bash', ['-c', body], { env: CLEAN_ENV, cwd: ROOT });
    } catch (err) {
      const failed = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`${path}:${step.line}: the example failed:\n${step.code}\n${failed.stderr || failed.message}\n${failed.stdout ?? ''}`);
    }
  };
  // A stream never ends by itself: the block runs until it has printed the answer shown, then it is stopped.
  const stream = (step: Example): Promise<string> => {
    const child = spawn('bash', ['-c', `set -euo pipefail\nsource ${state}\n${step.code.replaceAll(DEFAULT_ADDRESS, url!)}`], { env: CLEAN_ENV, cwd: ROOT, detached: true });
    let stdout = '';
    return new Promise((resolve) => {
      const stop = () => {
        clearTimeout(timer);
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          // The block's processes are gone already.
        }
        resolve(stdout);
      };
      const timer = setTimeout(stop, 30_000);
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (answers(step.expect, stdout)) stop();
      });
      child.once('exit', stop);
    });
  };
  try {
    for (const step of steps) {
      let code = step.code;
      if (step.words.includes('origin')) {
        const { before, assignments, after } = originCommand(step.code);
        if (before !== '') await bash(step, before);
        const previous = url;
        url = await startPageOrigin(page, assignments, state);
        // A reader's restarted origin listens where it did: what the blocks before saved of the address still reaches it.
        if (previous) await writeFile(state, (await readFile(state, 'utf8')).replaceAll(previous, url));
        code = after;
      }
      if (!url) throw new Error(`${path}:${step.line}: an example before the page's origin block`);
      if (code === '') continue;
      let stdout = '';
      let stderr = '';
      if (step.words.includes('stream')) stdout = await stream(step);
      // Run history is written in batches: a step marked retry may take a few tries.
      else for (let attempt = 0; attempt < (step.words.includes('retry') ? 40 : 1); attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250));
        ({ stdout, stderr } = await bash(step, code));
        if (answers(step.expect, stdout)) break;
      }
      const shown = step.expect ? (step.expect.kind === 'table' ? [step.expect.header, ...step.expect.rows].join('\n') : step.expect.body) : '';
      expect(answers(step.expect, stdout), `${path}:${step.line}:\n${step.code}\nanswered:\n${stdout}${stderr}\nexpected:\n${shown}`).toBe(true);
      if (step.words.includes('first-answer')) {
        console.log(`${path}: origin start to a keyed /q answer, following the guide: ${((performance.now() - started) / 1000).toFixed(1)} s`);
      }
    }
  } finally {
    await page.origin?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The access-control reference pages, whose examples run in a file of their
 * own (access-examples.test.ts) beside every other page's
 * (examples.test.ts): two files, two workers.
 */
export const ACCESS_PAGES = new Set(
  ['administrators', 'audit', 'authentication', 'grants', 'keys', 'rate-limits', 'roles', 'secrets', 'sign-in-tokens', 'usage', 'workspaces'].map(
    (name) => `docs/reference/${name}.md`,
  ),
);
