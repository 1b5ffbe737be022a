import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import launch from '../../scripts/origin-launch.json';
import { listeningPort, templateDir } from '../harness/origin.ts';
import { recordOrigin } from '../harness/run-record.ts';

/**
 * `npm start` (scripts/start.mjs): bundles the origin and runs it as its own
 * process with the launch settings the benchmark also uses, passes signals
 * on, and exits as the origin did.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
let dataDir: string | null = null;

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

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
});
