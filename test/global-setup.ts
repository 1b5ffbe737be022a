import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startOrigin } from './harness/origin.ts';
import { scanRun } from './harness/secret-scan.ts';

/**
 * Builds the template data dir once per run: a migrated PGlite store with the
 * examples loaded. A cold PGlite start takes seconds; each test origin copies
 * this instead. Each run gets its own template, so concurrent runs never
 * rebuild one under each other's feet.
 *
 * Builds the origin's bundle first (scripts/build.mjs). Also opens the run's record (harness/run-record.ts) and, at the end, scans
 * it: a password or key secret in any log line or response fails the run.
 */
const shared = globalThis as { sluiceRunRecord?: Promise<string> };

export default async function setup() {
  // Each vitest project runs this setup in the one main process: the first
  // opens the run's record and scans it at the end; the others share it.
  const owner = shared.sluiceRunRecord === undefined;
  // Test origins run the bundle `npm start` runs: one plain Node process each, no TypeScript transform.
  if (owner) execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url)), '--quiet'], { stdio: 'inherit' });
  shared.sluiceRunRecord ??= mkdtemp(join(tmpdir(), 'sluice-test-run-'));
  const runDir = await shared.sluiceRunRecord;
  process.env.SLUICE_TEST_RUN_DIR = runDir;
  const dir = join(await mkdtemp(join(tmpdir(), 'sluice-template-')), 'data');
  const origin = await startOrigin({ dataDir: dir });
  await origin.stop();
  process.env.SLUICE_TEST_TEMPLATE = dir;
  return async () => {
    await rm(join(dir, '..'), { recursive: true, force: true });
    if (!owner) return;
    // vitest logs a teardown's error yet exits 0, and cuts a slow teardown
    // short: the run counts as failed until the scan says otherwise.
    const exitCode = process.exitCode;
    process.exitCode = 1;
    const scan = await scanRun(runDir);
    if (scan.findings.length === 0) {
      process.exitCode = exitCode;
      console.log(`secret scan: ${scan.logLines} log lines, ${scan.responses} responses, ${scan.secrets} secrets, 0 found`);
      await rm(runDir, { recursive: true, force: true });
      return;
    }
    // Kinds and places only: the record itself stays in `runDir` for a look.
    for (const finding of scan.findings) console.error(`secret scan: ${finding.kind} at ${finding.file}:${finding.line}`);
    throw new Error(
      `secret scan: ${scan.findings.length} found in ${scan.logLines} log lines and ${scan.responses} responses (${scan.secrets} secrets); record kept in ${runDir}`,
    );
  };
}
