import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * bin/sluice.mjs picks what it runs: the bundle under dist/cli while it is
 * newer than every source file, else the TypeScript sources through tsx (a
 * fresh clone has no bundle). Shown on a copy of the launcher in a project
 * folder whose sources, package.json and node_modules are this checkout's
 * (linked) and whose dist/cli/main.js is a stand-in that names itself.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let project: string;

const version = async () => (await run(process.execPath, [join(project, 'bin/sluice.mjs'), '--version'], { cwd: tmpdir() })).stdout;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'sluice-launcher-'));
  await mkdir(join(project, 'bin'));
  await copyFile(join(ROOT, 'bin/sluice.mjs'), join(project, 'bin/sluice.mjs'));
  for (const linked of ['origin', 'shared', 'node_modules', 'package.json']) await symlink(join(ROOT, linked), join(project, linked));
});

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe('the sluice launcher', () => {
  it('runs the sources with no bundle', async () => {
    expect(await version()).toMatch(/^sluice \d+\.\d+\.\d+\n$/);
  });

  it('runs the bundle while it is newer than the sources, and the sources again once one of them is newer', async () => {
    const bundle = join(project, 'dist/cli/main.js');
    await mkdir(join(project, 'dist/cli'), { recursive: true });
    await writeFile(bundle, "process.stdout.write('the bundle\\n');\n");
    expect(await version()).toBe('the bundle\n');
    const long_ago = new Date('2001-01-01T00:00:00Z');
    await utimes(bundle, long_ago, long_ago);
    expect(await version()).toMatch(/^sluice \d+\.\d+\.\d+\n$/);
  });
});
