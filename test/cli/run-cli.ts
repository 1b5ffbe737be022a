import { spawn } from 'node:child_process';
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_FILE_DIRS, templateDir } from '../harness/origin.ts';
import { recordLog, recordSecretVariables } from '../harness/run-record.ts';

/** The committed launcher package.json's `bin` names: the tests run the command as a user does. */
export const BIN = fileURLToPath(new URL('../../bin/sluice.mjs', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node bin/sluice.mjs ...args` as its own process, with only the
 * variables given (and PATH, HOME), optionally feeding `input` on standard
 * input. Standard error goes to the run's record for the secret scan (it
 * must never hold one); standard output is the result, which for `config
 * new-key` is a secret by design.
 */
export function sluice(args: string[], { env = {}, input, cwd }: { env?: Record<string, string>; input?: string; cwd?: string } = {}): Promise<CliRun> {
  recordSecretVariables(env);
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: cwd ?? tmpdir(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'Europe/Paris', SLUICE_FILE_DIRS: TEST_FILE_DIRS, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.end(input ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const run = { code: code ?? -1, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
      const log = recordLog('cli');
      for (const line of run.stderr.split('\n')) log.line(line);
      log.close();
      resolve(run);
    });
  });
}

/** A data dir of its own, copied from the run's migrated template (examples loaded), for local-mode runs. */
export async function copiedDataDir(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'sluice-cli-')), 'data');
  await cp(templateDir(), dir, { recursive: true });
  return dir;
}

/** For failing expectations: the whole run. */
export const shown = (run: CliRun) => `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
