import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { isFullRun } from './harness/full-run.ts';
import { startOrigin } from './harness/origin.ts';
import { stopSharedOrigins } from './harness/shared-origin.ts';
import { scanRun, shortfalls } from './harness/secret-scan.ts';

/**
 * Builds the template data dir once per run: a migrated PGlite store with the
 * examples loaded. A cold PGlite start takes seconds; each test origin copies
 * this instead. Each run gets its own template, so concurrent runs never
 * rebuild one under each other's feet.
 *
 * Builds the origin's bundle first (scripts/build.mjs). Also opens the run's record (harness/run-record.ts) and, at the end, scans
 * it: a password or key secret in any log line or response fails the run, and
 * so does a full run (harness/full-run.ts) that recorded too little to prove
 * anything (FULL_RUN_MINIMUMS).
 */
const shared = globalThis as { sluiceRunRecord?: Promise<string>; sluiceTemplate?: Promise<string> };

export default async function setup(project: TestProject) {
  // Each vitest project runs this setup in the one main process: the first
  // opens the run's record and scans it at the end; the others share it.
  const owner = shared.sluiceRunRecord === undefined;
  // Files in a project without isolation share one origin per worker (harness/shared-origin.ts).
  project.provide('sluiceShareOrigin', project.config.isolate === false);
  // Test origins run the bundle `npm start` runs: one plain Node process each, no TypeScript transform.
  if (owner) execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url)), '--quiet'], { stdio: 'inherit' });
  shared.sluiceRunRecord ??= mkdtemp(join(tmpdir(), 'sluice-test-run-'));
  const runDir = await shared.sluiceRunRecord;
  process.env.SLUICE_TEST_RUN_DIR = runDir;
  // One template for every project: each start of it makes a new PGlite store, seconds before any file runs.
  shared.sluiceTemplate ??= makeTemplate();
  process.env.SLUICE_TEST_TEMPLATE = await shared.sluiceTemplate;
  return async () => {
    if (!owner) return;
    await rm(join(process.env.SLUICE_TEST_TEMPLATE!, '..'), { recursive: true, force: true });
    stopSharedOrigins();
    // vitest logs a teardown's error yet exits 0, and cuts a slow teardown
    // short: the run counts as failed until the scan says otherwise.
    const exitCode = process.exitCode;
    process.exitCode = 1;
    const scan = await scanRun(runDir);
    const full = await isFullRun(project.vitest);
    const counts = `${scan.logLines} log lines, ${scan.responses} responses (${scan.edgeResponses} through an edge), ${scan.secrets} secrets`;
    const short = full ? shortfalls(scan) : [];
    if (scan.findings.length === 0 && short.length === 0) {
      process.exitCode = exitCode;
      console.log(`secret scan (${full ? 'full run' : 'some files'}): ${counts}, 0 found`);
      await rm(runDir, { recursive: true, force: true });
      return;
    }
    // Kinds and places only: the record itself stays in `runDir` for a look.
    for (const finding of scan.findings) console.error(`secret scan: ${finding.kind} at ${finding.file}:${finding.line}`);
    const problems = [
      ...(scan.findings.length > 0 ? [`${scan.findings.length} found in ${counts}`] : []),
      ...(short.length > 0 ? [`a full run recorded too little to prove anything, the recording is broken (${short.join('; ')})`] : []),
    ];
    throw new Error(`secret scan: ${problems.join('; and ')}; record kept in ${runDir}`);
  };
}

async function makeTemplate(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'sluice-template-')), 'data');
  const origin = await startOrigin({ dataDir: dir });
  await origin.stop();
  return dir;
}
