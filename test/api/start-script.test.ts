import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import launch from '../../scripts/origin-launch.json';
import { listeningPort, logsCaughtUp, startOrigin, templateDir } from '../harness/origin.ts';
import { recordOrigin } from '../harness/run-record.ts';

/**
 * `npm start` (scripts/start.mjs): bundles the origin and runs it as its own
 * process with the launch settings the benchmark also uses, passes signals
 * on, and exits as the origin did.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
let dataDir: string | null = null;
let freshDir: string | null = null;

afterAll(async () => {
  for (const dir of [dataDir, freshDir]) if (dir) await rm(dir, { recursive: true, force: true });
});

const OPEN_WARNING = 'This server is open: no SLUICE_API_KEY, no API key and no administrator';

/** The index of the first line holding `text`, failing with every line when none does. */
function lineWith(lines: string[], text: string): number {
  const index = lines.findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`no line holds ${JSON.stringify(text)}:\n${lines.join('\n')}`);
  return index;
}

describe('npm start', () => {
  it.runIf(process.platform === 'linux')('runs the origin with the launch settings, and stops it on SIGTERM', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-start-'));
    await cp(templateDir(), dataDir, { recursive: true });
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'Europe/Paris', SLUICE_PORT: '0', SLUICE_DATA_DIR: dataDir };
    const starter = spawn(process.execPath, ['scripts/start.mjs'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => starter.once('exit', (code) => resolve(code)));
    // Its output goes to the run's record like a harness origin's, for the whole-run secret scan.
    const record = recordOrigin(env);
    starter.once('close', () => record.close());
    const port = await listeningPort(starter, (line) => record.line(line));
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);

    const [origin] = (await readFile(`/proc/${starter.pid}/task/${starter.pid}/children`, 'utf8')).trim().split(' ').map(Number);
    const environ = (await readFile(`/proc/${origin}/environ`, 'utf8')).split('\0');
    for (const [name, value] of Object.entries(launch.env)) expect(environ).toContain(`${name}=${value}`);
    expect((await readFile(`/proc/${origin}/cmdline`, 'utf8')).split('\0')).toEqual(expect.arrayContaining([...launch.nodeFlags, 'dist/origin/main.mjs']));

    starter.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect(readFile(`/proc/${origin}/cmdline`, 'utf8')).rejects.toThrow();
  });

  it.runIf(process.platform === 'linux')('on a fresh data folder says what it does at each step, and that the server is open before it listens, within its first 15 lines', async () => {
    freshDir = await mkdtemp(join(tmpdir(), 'sluice-start-fresh-'));
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'Europe/Paris', SLUICE_PORT: '0', SLUICE_DATA_DIR: join(freshDir, 'data') };
    const starter = spawn(process.execPath, ['scripts/start.mjs'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => starter.once('exit', (code) => resolve(code)));
    const record = recordOrigin(env);
    starter.once('close', () => record.close());
    const lines: string[] = [];
    await listeningPort(starter, (line) => {
      lines.push(line);
      record.line(line);
    });

    const steps = [
      'sluice: bundled the origin and the console in',
      `Opening a new embedded store in ${env.SLUICE_DATA_DIR}/store`,
      'Embedded store created in',
      'Store ready in',
      OPEN_WARNING,
      'Building the examples dataset',
      'Examples ready: connection "examples"',
      'listening on http://127.0.0.1:',
    ].map((step) => lineWith(lines, step));
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(lineWith(lines, OPEN_WARNING)).toBeLessThan(15);
    expect(lines[lineWith(lines, OPEN_WARNING)]).toContain('WARN');

    starter.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('warns of nothing open when a server key is set, and says an existing store is not new', async () => {
    const origin = await startOrigin({ env: { SLUICE_API_KEY: 'start-script-server-key' }, edge: false });
    try {
      await logsCaughtUp(origin);
      expect(origin.logs.some((line) => line.includes(OPEN_WARNING))).toBe(false);
      expect(origin.logs.some((line) => line.includes(`Opening the embedded store in ${origin.dataDir}/store`))).toBe(true);
    } finally {
      await origin.stop();
    }
  });

  it('reports an invalid environment one problem a line', async () => {
    const child = spawn(process.execPath, ['dist/origin/main.mjs'], {
      cwd: root,
      env: { PATH: process.env.PATH, SLUICE_PORT: 'abc', SLUICE_POOL_SIZE: '-1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(1);
    const lines = output.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/FATAL .*Invalid environment:$/);
    expect(lines[1]).toMatch(/FATAL .*SLUICE_PORT="abc": must be a whole number$/);
    expect(lines[2]).toMatch(/FATAL .*SLUICE_POOL_SIZE="-1": must be a whole number$/);
    expect(output).not.toContain('\\n');
  });
});
